import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFromTokenizer, type IOptions } from 'music-metadata';
import { fromFile } from 'strtok3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataFastPathActive, parseTokenizer } from '../../server/library/metadataParser.js';
import { makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3, type FixtureFormat } from '../fixtures/audio.js';

/** The scanner's parse (metadataParser.ts) must give exactly what music-metadata's own does. */
describe('metadata parser fast path', () => {
  let dir: string;
  const files: string[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-mmfast-'));
    const cover = makeCoverImage(path.join(dir, 'cover.png'));
    const tags = {
      title: 'Fast Path', artist: 'Same Result', albumArtist: 'Various', album: 'Parsers', track: 3, disc: 2, date: '1997-09-22',
      genre: 'Rock; Pop', musicbrainzRecordingId: '4e0d8649-1f89-44f3-91af-4c0dbee81f28', musicbrainzAlbumArtistId: '89ad4ac3-39f7-470e-963a-56509c546377',
    };
    for (const format of ['mp3', 'flac', 'ogg', 'm4a'] as FixtureFormat[]) {
      files.push(makeAudioFile(path.join(dir, `tagged.${format}`), format, tags, { cover: format === 'mp3' || format === 'flac' ? cover : undefined }));
    }
    const template = makeMp3Template(dir);
    const plain = path.join(dir, 'plain.mp3');
    writeTaggedMp3(plain, template, { title: 'Written', artist: 'In Process', album: 'Template', track: 1 });
    files.push(plain);
    const untagged = path.join(dir, 'untagged.mp3');
    fs.writeFileSync(untagged, template);
    files.push(untagged);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is in use', async () => {
    expect(await metadataFastPathActive()).toBe(true);
  });

  it('gives the same metadata as parseFromTokenizer, file after file', async () => {
    for (let round = 0; round < 2; round++) {
      for (const file of files) {
        const options = (): IOptions => ({ duration: false, skipCovers: false });
        const theirs = await parseFromTokenizer(await fromFile(file), options());
        const ours = await parseTokenizer(await fromFile(file), options());
        expect(ours, file).toEqual(theirs);
        expect(ours.format.duration ?? ours.format.numberOfSamples ?? ours.format.codec, file).toBeTruthy();
        if (!file.endsWith('untagged.mp3')) expect(ours.common.title, file).toBeTruthy();
      }
    }
  });

  it('reports the same progress to an observer', async () => {
    const seen = (into: string[]): IOptions => ({ duration: false, observer: (u) => into.push(`${u.tag.type}:${u.tag.id}`) });
    const theirs: string[] = [];
    const ours: string[] = [];
    await parseFromTokenizer(await fromFile(files[0]!), seen(theirs));
    await parseTokenizer(await fromFile(files[0]!), seen(ours));
    expect(ours.length).toBeGreaterThan(3);
    expect(ours).toEqual(theirs);
  });
});
