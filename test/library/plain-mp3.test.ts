import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainMp3Treats } from '../../server/library/plainMp3Tag.js';
import { readFileTags, readTagsAndFingerprint, UnreadableAudioError, type FileTags } from '../../server/library/tags.js';
import { LAME, lameAvailable } from '../fixtures/mp3Streams.js';
import { mp3VariantList, writeMp3Variants, type Mp3Variant } from '../fixtures/mp3Variants.js';

/**
 * The plain-MP3 direct reader's rule: for every file, readTagsAndFingerprint with { direct: true }
 * gives exactly what it gives with { direct: false } (music-metadata): every tag field, picture bytes,
 * ReplayGain, tag error and fingerprint; a file music-metadata rejects is rejected with the same
 * message. `direct` in the result says whether the direct reader answered, and it answers exactly
 * for the plain MP3s it fully understands (the corpus's expectDirect).
 */

type Outcome =
  | { read: { tags: Omit<FileTags, 'picture'> & { picture: string | null }; fingerprint: string }; direct: boolean }
  | { rejected: { unreadable: boolean; message: string } };

/** Picture bytes compared by their digest (a deep comparison of 200 KiB takes vitest a second). */
const withPictureDigest = (tags: FileTags) => ({
  ...tags,
  picture: tags.picture && `${tags.picture.length} bytes, sha1 ${createHash('sha1').update(tags.picture).digest('hex')}`,
});

async function outcome(file: string, root: string, direct: boolean): Promise<Outcome> {
  const size = fs.statSync(file).size;
  try {
    const { tags, fingerprint, direct: answered } = await readTagsAndFingerprint(file, root, size, { direct });
    return { read: { tags: withPictureDigest(tags), fingerprint }, direct: answered };
  } catch (err) {
    return { rejected: { unreadable: err instanceof UnreadableAudioError, message: err instanceof Error ? err.message : String(err) } };
  }
}

/** What must be the same either way: everything but the `direct` flag. */
const comparable = (o: Outcome) => ('read' in o ? o.read : o);

/** Each file read with the direct reader, with music-metadata, and with the direct reader again (reused buffers). */
interface Reads {
  direct: Outcome;
  musicMetadata: Outcome;
  directAgain: Outcome;
}

function readsOf(file: string, root: string): () => Promise<Reads> {
  let reads: Promise<Reads> | undefined;
  return () =>
    (reads ??= (async () => {
      const direct = await outcome(file, root, true);
      const musicMetadata = await outcome(file, root, false);
      const directAgain = await outcome(file, root, true);
      return { direct, musicMetadata, directAgain };
    })());
}

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');
/** Every *.mp3 kept under test/fixtures (the equality rule holds for them too). */
const fixtureMp3s = fs
  .readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.toLowerCase().endsWith('.mp3'))
  .sort();

const variants = mp3VariantList();
const withExpectation = variants.filter((v): v is { name: string; expectDirect: boolean } => v.expectDirect !== null);

let dir: string;
let corpus: Map<string, Mp3Variant & { reads: () => Promise<Reads> }>;
let buildMs = 0;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-plainmp3-'));
  const started = performance.now();
  const written = writeMp3Variants(dir);
  buildMs = performance.now() - started;
  corpus = new Map(written.map((v) => [v.name, { ...v, reads: readsOf(v.file, dir) }]));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const variant = (name: string) => {
  const v = corpus.get(name);
  if (!v) throw new Error(`variant ${name} was not written`);
  return v;
};

describe('plain MP3 direct reader', () => {
  it('builds its corpus in a few seconds, every variant listed and written', () => {
    expect([...corpus.keys()]).toEqual(variants.map((v) => v.name));
    expect(new Set(corpus.keys()).size).toBe(corpus.size);
    expect(buildMs).toBeLessThan(20_000);
  });

  // Skipped, with the reason in its name, on a machine without LAME (ffmpeg's libmp3lame cannot ask for CRCs).
  it.runIf(lameAvailable())(`has the CRC-protected stream (made by LAME's command line, ${LAME}; apt-get install lame)`, () => {
    expect(corpus.has('bare-crc') && corpus.has('full-v24-crc')).toBe(true);
  });

  it('corpus: every variant meant for the direct reader is a sound file music-metadata reads without a tag error', async () => {
    for (const { name } of withExpectation.filter((v) => v.expectDirect)) {
      const { musicMetadata } = await variant(name).reads();
      expect('read' in musicMetadata, name).toBe(true);
      if (!('read' in musicMetadata)) continue;
      expect(musicMetadata.read.tags.error, name).toBeNull();
      expect(musicMetadata.read.tags.durationMs, name).toBeGreaterThan(900);
      expect(musicMetadata.read.tags.codec, name).toMatch(/^MPEG (1|2|2\.5) Layer 3$/);
    }
  });

  describe('gives the same result with and without the direct reader', () => {
    it.each(variants)('$name', async ({ name }) => {
      const { direct, musicMetadata, directAgain } = await variant(name).reads();
      expect(comparable(direct)).toStrictEqual(comparable(musicMetadata));
      expect(comparable(directAgain)).toStrictEqual(comparable(musicMetadata));
    });

    if (fixtureMp3s.length > 0) {
      it.each(fixtureMp3s)('test/fixtures/%s', async (rel) => {
        const { direct, musicMetadata, directAgain } = await readsOf(path.join(FIXTURES, rel), FIXTURES)();
        expect(comparable(direct)).toStrictEqual(comparable(musicMetadata));
        expect(comparable(directAgain)).toStrictEqual(comparable(musicMetadata));
      });
    }
  });

  describe('reads a tag layout music-metadata misreads like the same tag without it', () => {
    it.each(variants.filter((v) => v.sameAs))('$name reads like $sameAs', async ({ name, sameAs }) => {
      const { direct, musicMetadata } = await variant(name).reads();
      const twin = (await variant(sameAs!).reads()).musicMetadata;
      expect('read' in twin && twin.read.tags.error).toBeNull();
      if (!('read' in twin)) return;
      for (const ours of [direct, musicMetadata]) {
        expect('read' in ours, name).toBe(true);
        if ('read' in ours) expect(ours.read.tags).toStrictEqual(twin.read.tags);
      }
      // The tag reader of downloads under review reads it the same way.
      expect(withPictureDigest(await readFileTags(variant(name).file, dir))).toStrictEqual(twin.read.tags);
    });
  });

  describe('answers with the direct reader exactly for the plain MP3s it understands', () => {
    it.each(withExpectation)('$name: direct $expectDirect', async ({ name, expectDirect }) => {
      const { direct, musicMetadata, directAgain } = await variant(name).reads();
      // A file music-metadata rejects has no result to flag (the same rejection is checked above).
      if (!('read' in musicMetadata)) return;
      expect('read' in direct && direct.direct).toBe(expectDirect);
      expect('read' in directAgain && directAgain.direct).toBe(expectDirect);
      expect(musicMetadata.direct).toBe(false);
    });
  });
});

/** The common fields the scanner keeps (tags.ts tagsOf), and those music-metadata fills them from. */
const KEPT_FIELDS = new Set([
  'title', 'artist', 'artists', 'albumartist', 'albumartists', 'album', 'track', 'disk', 'totaltracks', 'totaldiscs', 'year', 'date',
  'genre', 'lyrics', 'picture', 'musicbrainz_recordingid', 'musicbrainz_albumid', 'musicbrainz_releasegroupid',
  'musicbrainz_artistid', 'musicbrainz_albumartistid',
]);

describe('the direct MP3 reader and music-metadata’s ID3v2 mapping', () => {
  it('reads or refuses every ID3v2 tag music-metadata maps to a field the scanner keeps', async () => {
    const index = import.meta.resolve('music-metadata');
    const { ID3v24TagMapper } = (await import(new URL('./id3v2/ID3v24TagMapper.js', index).href)) as { ID3v24TagMapper: new () => { tagMap: Record<string, string> } };
    const map = new ID3v24TagMapper().tagMap;
    const keys = Object.keys(map);
    expect(keys.length).toBeGreaterThan(50);
    const missed: string[] = [];
    for (const key of keys) {
      // The mapper keeps its keys in upper case; UFID owners are compared exactly before mapping.
      const native = key === 'UFID:HTTP://MUSICBRAINZ.ORG' ? 'UFID:http://musicbrainz.org' : key;
      const treated = plainMp3Treats(native);
      if (KEPT_FIELDS.has(map[key]!) && treated === 'passed over') missed.push(`${key} → ${map[key]}`);
      if (treated === 'read') expect(KEPT_FIELDS.has(map[key]!), key).toBe(true);
    }
    expect(missed).toEqual([]);
  });
});
