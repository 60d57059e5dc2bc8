import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { LibraryReader } from '../../server/db/libraryReads.js';
import { scanRuns, type ScanMode } from '../../server/db/libraryScanRuns.js';
import { scanLibrary, type ScanOptions } from '../../server/library/scanner.js';
import { id3Tag, makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

let dir: string;
let music: string;
let template: Buffer;
let db: Db;
let reader: LibraryReader;

async function scan(mode: ScanMode = 'quick', extra: Partial<ScanOptions> = {}) {
  const runId = scanRuns.enqueue(db, mode, 'test', Date.now());
  return scanLibrary(db, { runId, mode, roots: [music], imageDir: path.join(dir, 'images'), ...extra });
}

const tracks = () =>
  db.prepare('SELECT identity_key, title, artist_name, track_number, available FROM library_tracks ORDER BY identity_key').all();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scan-'));
  music = path.join(dir, 'music');
  const cover = makeCoverImage(path.join(dir, 'cover.png'));
  makeAudioFile(path.join(music, 'Björk', 'Homogenic', '01 Hunter.flac'), 'flac', {
    title: 'Hunter', artist: 'Björk', albumArtist: 'Björk', album: 'Homogenic', track: 1, date: '1997-09-22',
    genre: 'Electronic', musicbrainzRecordingId: 'rec-hunter', musicbrainzAlbumId: 'rel-homogenic',
    musicbrainzReleaseGroupId: 'rg-homogenic', musicbrainzArtistId: 'art-bjork', musicbrainzAlbumArtistId: 'art-bjork',
  }, { cover });
  makeAudioFile(path.join(music, 'Björk', 'Homogenic', '02 Jóga.mp3'), 'mp3', {
    title: 'Jóga', artist: 'Björk', albumArtist: 'Björk', album: 'Homogenic', track: 2, date: '1997',
    genre: 'Electronic', musicbrainzRecordingId: 'rec-joga', musicbrainzReleaseGroupId: 'rg-homogenic',
    musicbrainzAlbumArtistId: 'art-bjork', musicbrainzArtistId: 'art-bjork',
  });
  makeAudioFile(path.join(music, '椎名林檎', '無罪モラトリアム', '東京.ogg'), 'ogg', {
    title: '丸ノ内サディスティック', artist: '椎名林檎', album: '無罪モラトリアム', track: 3, genre: 'J-Pop', date: '1999',
  });
  makeAudioFile(path.join(music, 'Various', 'Mix', 'song.m4a'), 'm4a', { title: 'AAC Song', artist: 'Zed', album: 'Mix', track: 1 });
  makeAudioFile(path.join(music, 'Loose', 'untagged.mp3'), 'mp3', {});
  fs.writeFileSync(path.join(music, 'Loose', 'corrupt.flac'), Buffer.from('definitely not audio '.repeat(64)));
  fs.copyFileSync(cover, path.join(music, 'Various', 'Mix', 'cover.png'));
  fs.writeFileSync(path.join(music, 'Various', 'Mix', 'info.nfo'), 'not audio');
  fs.writeFileSync(path.join(music, '.hidden.mp3'), 'dotfile');
  fs.symlinkSync(music, path.join(music, 'Loose', 'loop'));
  template = makeMp3Template(dir);
  db = openDatabase(path.join(dir, 'library.db'));
  reader = new LibraryReader(db);
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('folder scan', () => {
  it('indexes every audio file into exact canonical rows and reports one that holds no audio', async () => {
    const result = await scan();
    expect(result).toMatchObject({ filesSeen: 6, filesIndexed: 5, filesFailed: 1, filesSkipped: 0, filesMissing: 0 });
    expect(result.errors).toEqual([
      { path: path.join('Loose', 'corrupt.flac'), reason: 'unreadable audio: Invalid FLAC preamble' },
    ]);
    expect(tracks()).toEqual([
      { identity_key: 'mbid:rec-hunter', title: 'Hunter', artist_name: 'Björk', track_number: 1, available: 1 },
      { identity_key: 'track:album:name:unknown artist/loose/1/0/untagged', title: 'untagged', artist_name: 'Unknown Artist', track_number: 0, available: 1 },
      { identity_key: 'track:album:name:zed/mix/1/1/aac song', title: 'AAC Song', artist_name: 'Zed', track_number: 1, available: 1 },
      { identity_key: 'track:album:name:椎名林檎/無罪モラトリアム/1/3/丸ノ内サディスティック', title: '丸ノ内サディスティック', artist_name: '椎名林檎', track_number: 3, available: 1 },
      { identity_key: 'track:mbid:rg-homogenic/1/2/joga', title: 'Jóga', artist_name: 'Björk', track_number: 2, available: 1 },
    ]);
    expect(db.prepare('SELECT identity_key, name, album_count, track_count FROM library_artists ORDER BY sort_name').all()).toEqual([
      { identity_key: 'mbid:art-bjork', name: 'Björk', album_count: 1, track_count: 2 },
      { identity_key: 'name:unknown artist', name: 'Unknown Artist', album_count: 1, track_count: 1 },
      { identity_key: 'name:zed', name: 'Zed', album_count: 1, track_count: 1 },
      { identity_key: 'name:椎名林檎', name: '椎名林檎', album_count: 1, track_count: 1 },
    ]);
    const homogenic = db.prepare("SELECT * FROM library_albums WHERE identity_key = 'mbid:rg-homogenic'").get() as Record<string, unknown>;
    expect(homogenic).toMatchObject({ title: 'Homogenic', mbid: 'rg-homogenic', release_date: '1997-09-22', year: 1997, track_count: 2, available: 1 });
    expect(homogenic.image_key).toMatch(/^[a-f0-9]{32}$/);
    const mix = db.prepare("SELECT image_key FROM library_albums WHERE title = 'Mix'").get() as { image_key: string };
    expect(mix.image_key).toBe(homogenic.image_key); // same picture bytes: one cache entry
    const flac = db.prepare("SELECT format, mime, codec, sample_rate, bit_depth, lossless, tag_error FROM library_media_files WHERE path LIKE '%Hunter.flac'").get();
    expect(flac).toEqual({ format: 'flac', mime: 'audio/flac', codec: 'FLAC', sample_rate: 44100, bit_depth: 16, lossless: 1, tag_error: null });
    expect(reader.genres().map((g) => [g.name, g.track_count])).toEqual([['Electronic', 2], ['J-Pop', 1]]);
    expect(reader.count('tracks')).toBe(5);
  });

  it('skips unchanged files in quick mode and re-reads them in full mode', async () => {
    // The file that holds no audio is read (and reported) again each time.
    expect(await scan('quick')).toMatchObject({ filesSeen: 6, filesIndexed: 0, filesSkipped: 5, filesFailed: 1 });
    expect(await scan('full')).toMatchObject({ filesSeen: 6, filesIndexed: 5, filesSkipped: 0, filesFailed: 1 });
    expect(tracks()).toHaveLength(5);
  });

  it('adds, modifies, marks deleted files unavailable and keeps identity across a move', async () => {
    writeTaggedMp3(path.join(music, 'New', 'Album', 'one.mp3'), template, { title: 'Brand New', artist: 'Newcomer', album: 'Album', track: 1 });
    const mixFile = path.join(music, 'Various', 'Mix', 'song.m4a');
    const aac = db.prepare('SELECT id FROM library_media_files WHERE path = ?').get(mixFile) as { id: number };
    const movedTo = path.join(music, 'Various', 'Moved', 'song.m4a');
    fs.mkdirSync(path.dirname(movedTo), { recursive: true });
    fs.renameSync(mixFile, movedTo);
    const untagged = path.join(music, 'Loose', 'untagged.mp3');
    writeTaggedMp3(untagged, template, { title: 'Now Tagged', artist: 'Tagged Artist', album: 'Tagged Album', track: 4 });
    fs.rmSync(path.join(music, 'Björk', 'Homogenic', '02 Jóga.mp3'));

    const result = await scan('quick');
    expect(result).toMatchObject({ filesSeen: 6, filesIndexed: 3, filesSkipped: 2, filesMissing: 1, filesMoved: 1 });
    expect(db.prepare('SELECT id FROM library_media_files WHERE path = ?').get(movedTo)).toEqual({ id: aac.id });
    const joga = db.prepare("SELECT available FROM library_tracks WHERE identity_key = 'track:mbid:rg-homogenic/1/2/joga'").get();
    expect(joga).toEqual({ available: 0 });
    const titles = (tracks() as { title: string }[]).map((t) => t.title);
    expect(titles).toContain('Now Tagged');
    expect(titles).toContain('Brand New');
    expect(titles).not.toContain('untagged'); // the retagged file's old track is pruned
    const homogenic = db.prepare("SELECT track_count, available_track_count FROM library_albums WHERE identity_key = 'mbid:rg-homogenic'").get();
    expect(homogenic).toEqual({ track_count: 2, available_track_count: 1 });
    expect(reader.count('tracks', 'all', true)).toBe(5);
    expect(reader.count('tracks')).toBe(6);
  });

  it('brings a file back as available when it reappears', async () => {
    makeAudioFile(path.join(music, 'Björk', 'Homogenic', '02 Jóga.mp3'), 'mp3', {
      title: 'Jóga', artist: 'Björk', albumArtist: 'Björk', album: 'Homogenic', track: 2,
      musicbrainzRecordingId: 'rec-joga', musicbrainzReleaseGroupId: 'rg-homogenic', musicbrainzAlbumArtistId: 'art-bjork',
    });
    await scan('quick');
    expect(db.prepare("SELECT available FROM library_tracks WHERE identity_key = 'track:mbid:rg-homogenic/1/2/joga'").get()).toEqual({ available: 1 });
  });

  it('leaves a consistent database when killed mid-way and the next scan finishes the job', async () => {
    for (let i = 0; i < 30; i++) {
      writeTaggedMp3(path.join(music, 'Bulk', `Album ${i % 3}`, `t${i}.mp3`), template, {
        title: `Bulk ${i}`, artist: 'Bulk Artist', album: `Album ${i % 3}`, track: i,
      });
    }
    await expect(
      scan('quick', {
        batchSize: 5,
        concurrency: 1,
        afterBatch: (c) => {
          if (c.filesIndexed >= 10) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    const partial = db.prepare("SELECT COUNT(*) AS n FROM library_tracks WHERE title LIKE 'Bulk %'").get() as { n: number };
    expect(partial.n).toBeGreaterThan(0);
    expect(partial.n).toBeLessThan(30);
    expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    await scan('quick');
    expect(db.prepare("SELECT COUNT(*) AS n FROM library_tracks WHERE title LIKE 'Bulk %' AND available = 1").get()).toEqual({ n: 30 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM library_dirty').get()).toEqual({ n: 0 });
    const bulk = db.prepare("SELECT track_count FROM library_artists WHERE name = 'Bulk Artist'").get();
    expect(bulk).toEqual({ track_count: 30 });
  });

  it('reports an unreadable folder and a missing music folder without failing', async () => {
    const missing = await scan('quick', { roots: [path.join(dir, 'nope')] });
    expect(missing.errors).toEqual([{ path: 'nope', reason: 'music folder not found' }]);
    if (process.getuid?.() === 0) return; // root reads every folder
    const locked = path.join(music, 'Locked');
    fs.mkdirSync(locked);
    fs.chmodSync(locked, 0);
    try {
      const result = await scan('quick');
      expect(result.errors).toEqual(expect.arrayContaining([{ path: 'Locked', reason: 'permission denied' }]));
    } finally {
      fs.chmodSync(locked, 0o755);
    }
  });
});

describe('folder scan: retags, changed paths, unusual names', () => {
  const at = (root: string, ...parts: string[]) => path.join(root, ...parts);
  /** Rewrites a file's tags and moves its mtime on, so a quick scan sees the change. */
  const retag = (file: string, tags: Parameters<typeof writeTaggedMp3>[2], bump = 10_000) => {
    writeTaggedMp3(file, template, tags);
    const t = new Date(Date.now() + bump);
    fs.utimesSync(file, t, t);
  };
  const album = (title: string) =>
    db.prepare('SELECT id, track_count, available_track_count FROM library_albums WHERE title = ?').get(title) as
      | { id: number; track_count: number; available_track_count: number }
      | undefined;
  const albumTitles = (trackTitle: string) =>
    (db
      .prepare(
        `SELECT a.title FROM library_tracks t JOIN library_album_tracks l ON l.track_id = t.id
         JOIN library_albums a ON a.id = l.album_id WHERE t.title = ? ORDER BY a.title`,
      )
      .pluck()
      .all(trackTitle) as string[]);

  it('moves a retagged track out of its old album; an album left empty is pruned with no available tracks', async () => {
    const root = path.join(dir, 'retag');
    const x = at(root, 'Artist', 'Before', 'x.mp3');
    const y = at(root, 'Artist', 'Before', 'y.mp3');
    writeTaggedMp3(x, template, { title: 'Retag X', artist: 'Retag Artist', album: 'Before', track: 1, musicbrainzRecordingId: 'rec-retag-x' });
    writeTaggedMp3(y, template, { title: 'Retag Y', artist: 'Retag Artist', album: 'Before', track: 2 });
    await scan('quick', { roots: [root] });
    expect(album('Before')).toMatchObject({ track_count: 2, available_track_count: 2 });

    // Same recording (same track identity), now filed under another album.
    retag(x, { title: 'Retag X', artist: 'Retag Artist', album: 'After', track: 1, musicbrainzRecordingId: 'rec-retag-x' });
    expect(await scan('quick', { roots: [root] })).toMatchObject({ filesIndexed: 1, filesSkipped: 1 });
    expect(albumTitles('Retag X')).toEqual(['After']);
    expect(album('Before')).toMatchObject({ track_count: 1, available_track_count: 1 });
    expect(album('After')).toMatchObject({ track_count: 1, available_track_count: 1 });

    // The last track leaves: the old album has nothing left and goes.
    const before = album('Before')!.id;
    retag(y, { title: 'Retag Y', artist: 'Retag Artist', album: 'After', track: 2 });
    await scan('quick', { roots: [root] });
    expect(albumTitles('Retag Y')).toEqual(['After']);
    expect(album('Before')).toBeUndefined();
    expect(reader.canonicalPage({ kind: 'tracks', page: 1, pageSize: 10, albumId: before, availableOnly: true }).total).toBe(0);
    expect(album('After')).toMatchObject({ track_count: 2, available_track_count: 2 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM library_album_tracks l LEFT JOIN library_albums a ON a.id = l.album_id WHERE a.id IS NULL').get()).toEqual({ n: 0 });
  });

  it('scans only the changed paths: re-read files, deleted files and folders, added folders', async () => {
    const root = path.join(dir, 'scoped');
    for (const name of ['keep', 'change', 'delete', 'untouched']) {
      writeTaggedMp3(at(root, 'A', 'Album', `${name}.mp3`), template, { title: `Scoped ${name}`, artist: 'Scoped', album: 'Album' });
    }
    for (const name of ['one', 'two']) {
      writeTaggedMp3(at(root, 'Gone', 'Album', `${name}.mp3`), template, { title: `Gone ${name}`, artist: 'Gone', album: 'Album' });
    }
    expect(await scan('quick', { roots: [root] })).toMatchObject({ filesSeen: 6, filesIndexed: 6 });

    retag(at(root, 'A', 'Album', 'change.mp3'), { title: 'Scoped changed', artist: 'Scoped', album: 'Album' });
    retag(at(root, 'A', 'Album', 'untouched.mp3'), { title: 'Scoped not listed', artist: 'Scoped', album: 'Album' });
    fs.rmSync(at(root, 'A', 'Album', 'delete.mp3'));
    fs.rmSync(at(root, 'Gone'), { recursive: true });
    for (const name of ['new1', 'new2']) {
      writeTaggedMp3(at(root, 'New', 'Album', `${name}.mp3`), template, { title: `Scoped ${name}`, artist: 'New', album: 'Album' });
    }
    const result = await scan('quick', {
      roots: [root],
      paths: [
        at(root, 'A', 'Album', 'change.mp3'), at(root, 'A', 'Album', 'delete.mp3'), at(root, 'Gone'),
        at(root, 'New'), at(root, 'New', 'Album', 'new1.mp3'), path.join(dir, 'outside', 'x.mp3'),
      ],
    });
    expect(result).toMatchObject({ filesSeen: 3, filesIndexed: 3, filesSkipped: 0, filesMissing: 3, filesFailed: 0 });
    const titles = db
      .prepare("SELECT title, available FROM library_tracks WHERE title LIKE 'Scoped %' OR title LIKE 'Gone %' ORDER BY title")
      .all();
    expect(titles).toEqual([
      { title: 'Gone one', available: 0 },
      { title: 'Gone two', available: 0 },
      { title: 'Scoped changed', available: 1 },
      { title: 'Scoped delete', available: 0 },
      { title: 'Scoped keep', available: 1 },
      { title: 'Scoped new1', available: 1 },
      { title: 'Scoped new2', available: 1 },
      { title: 'Scoped untouched', available: 1 }, // changed on disk but not among the paths
    ]);
    // A later full walk catches what the scoped scan was not told about.
    expect(await scan('quick', { roots: [root] })).toMatchObject({ filesIndexed: 1, filesSkipped: 4, filesMissing: 0 });
  });

  it('reports names that are not valid UTF-8 and indexes their siblings', async () => {
    const root = path.join(dir, 'bytes');
    writeTaggedMp3(at(root, 'Album', 'fine.mp3'), template, { title: 'Fine Name', artist: 'Bytes', album: 'Album' });
    const bad = Buffer.concat([Buffer.from(at(root, 'Album') + path.sep), Buffer.from([0x66, 0xff, 0xfe, 0x2e, 0x6d, 0x70, 0x33])]);
    fs.writeFileSync(bad, Buffer.concat([id3Tag({ title: 'Bad Bytes' }), template]));
    const badDir = Buffer.concat([Buffer.from(root + path.sep), Buffer.from([0x44, 0xe9, 0x6a, 0xe0])]);
    fs.mkdirSync(badDir);
    fs.writeFileSync(Buffer.concat([badDir, Buffer.from('/inside.mp3')]), Buffer.concat([id3Tag({ title: 'Inside Bad Dir' }), template]));

    const result = await scan('full', { roots: [root] });
    expect(result).toMatchObject({ filesSeen: 1, filesIndexed: 1, filesFailed: 2 });
    expect(result.errors).toEqual([
      { path: 'D\ufffdj\ufffd', reason: 'file name is not valid UTF-8' },
      { path: path.join('Album', 'f\ufffd\ufffd.mp3'), reason: 'file name is not valid UTF-8' },
    ]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM library_tracks WHERE title IN ('Bad Bytes', 'Inside Bad Dir')").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT available FROM library_tracks WHERE title = 'Fine Name'").get()).toEqual({ available: 1 });
  });

  it('indexes a file under a path longer than 1024 bytes', async () => {
    const root = path.join(dir, 'long');
    const segments = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(3)}-${'ß'.repeat(60)}-${'x'.repeat(60)}`);
    const file = at(root, ...segments, 'deep track.mp3');
    expect(Buffer.byteLength(file)).toBeGreaterThan(1024);
    writeTaggedMp3(file, template, { title: 'Deep Down', artist: 'Long Path', album: 'Nested' });
    const result = await scan('quick', { roots: [root] });
    expect(result).toMatchObject({ filesSeen: 1, filesIndexed: 1, filesFailed: 0 });
    const media = db.prepare("SELECT m.path, t.available FROM library_media_files m JOIN library_tracks t ON t.id = m.track_id WHERE t.title = 'Deep Down'").get() as { path: string; available: number };
    expect(media).toEqual({ path: file, available: 1 });
    expect(fs.statSync(media.path).size).toBe(fs.statSync(file).size);
    fs.rmSync(at(root, segments[0]!), { recursive: true });
    expect(await scan('quick', { roots: [root] })).toMatchObject({ filesMissing: 1 });
  });
});
