import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { LibraryReader } from '../../server/db/libraryReads.js';
import { scanRuns, type ScanMode } from '../../server/db/libraryScanRuns.js';
import { scanLibrary, type ScanOptions } from '../../server/library/scanner.js';
import { makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

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
  it('indexes every audio file into exact canonical rows, broken files included', async () => {
    const result = await scan();
    expect(result).toMatchObject({ filesSeen: 6, filesIndexed: 6, filesSkipped: 0, filesMissing: 0 });
    expect(result.errors).toEqual([
      { path: path.join('Loose', 'corrupt.flac'), reason: 'unreadable tags: Invalid FLAC preamble' },
    ]);
    expect(tracks()).toEqual([
      { identity_key: 'mbid:rec-hunter', title: 'Hunter', artist_name: 'Björk', track_number: 1, available: 1 },
      { identity_key: 'track:album:name:unknown artist/loose/1/0/corrupt', title: 'corrupt', artist_name: 'Unknown Artist', track_number: 0, available: 1 },
      { identity_key: 'track:album:name:unknown artist/loose/1/0/untagged', title: 'untagged', artist_name: 'Unknown Artist', track_number: 0, available: 1 },
      { identity_key: 'track:album:name:zed/mix/1/1/aac song', title: 'AAC Song', artist_name: 'Zed', track_number: 1, available: 1 },
      { identity_key: 'track:album:name:椎名林檎/無罪モラトリアム/1/3/丸ノ内サディスティック', title: '丸ノ内サディスティック', artist_name: '椎名林檎', track_number: 3, available: 1 },
      { identity_key: 'track:mbid:rg-homogenic/1/2/joga', title: 'Jóga', artist_name: 'Björk', track_number: 2, available: 1 },
    ]);
    expect(db.prepare('SELECT identity_key, name, album_count, track_count FROM library_artists ORDER BY sort_name').all()).toEqual([
      { identity_key: 'mbid:art-bjork', name: 'Björk', album_count: 1, track_count: 2 },
      { identity_key: 'name:unknown artist', name: 'Unknown Artist', album_count: 1, track_count: 2 },
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
    expect(reader.count('tracks')).toBe(6);
  });

  it('skips unchanged files in quick mode and re-reads them in full mode', async () => {
    expect(await scan('quick')).toMatchObject({ filesSeen: 6, filesIndexed: 0, filesSkipped: 6 });
    expect(await scan('full')).toMatchObject({ filesSeen: 6, filesIndexed: 6, filesSkipped: 0 });
    expect(tracks()).toHaveLength(6);
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
    expect(result).toMatchObject({ filesSeen: 6, filesIndexed: 3, filesSkipped: 3, filesMissing: 1, filesMoved: 1 });
    expect(db.prepare('SELECT id FROM library_media_files WHERE path = ?').get(movedTo)).toEqual({ id: aac.id });
    const joga = db.prepare("SELECT available FROM library_tracks WHERE identity_key = 'track:mbid:rg-homogenic/1/2/joga'").get();
    expect(joga).toEqual({ available: 0 });
    const titles = (tracks() as { title: string }[]).map((t) => t.title);
    expect(titles).toContain('Now Tagged');
    expect(titles).toContain('Brand New');
    expect(titles).not.toContain('untagged'); // the retagged file's old track is pruned
    const homogenic = db.prepare("SELECT track_count, available_track_count FROM library_albums WHERE identity_key = 'mbid:rg-homogenic'").get();
    expect(homogenic).toEqual({ track_count: 2, available_track_count: 1 });
    expect(reader.count('tracks', 'all', true)).toBe(6);
    expect(reader.count('tracks')).toBe(7);
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
