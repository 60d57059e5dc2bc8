import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import { SPARE_CORE_WINDOW_MS, ScanReadThread, SpareCore, cpuTimes, idleCores, ownCores, readThreadEnabled, spareCoreStartHere } from '../../server/library/scanReadThread.js';
import { scanLibrary, type ScanOptions } from '../../server/library/scanner.js';
import { makeAudioFile, makeCoverImage, makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

// Issue 25: a scan hands batches of reads (tags, fingerprint, embedded picture) to a second thread
// and writes meanwhile. Whoever reads a file, the scan writes the same rows, in the order found.
let dir: string;
let music: string;
const FILES = 300;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanread-'));
  music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  for (let i = 0; i < FILES; i++) {
    writeTaggedMp3(path.join(music, `Artist ${i % 7}`, `Album ${i % 23}`, `${String(i).padStart(3, '0')}.mp3`), template, {
      title: `Track ${i}`, artist: `Artist ${i % 7}`, album: `Album ${i % 23}`, track: (i % 12) + 1, genre: i % 2 ? 'Rock; Pop' : 'Jazz',
    });
  }
  const cover = makeCoverImage(path.join(dir, 'cover.png'));
  makeAudioFile(path.join(music, 'Covered', 'Art', '01 Cover.mp3'), 'mp3', { title: 'Cover', artist: 'Covered', album: 'Art', track: 1 }, { cover });
  fs.writeFileSync(path.join(music, 'Covered', 'Art', '02 Broken.mp3'), Buffer.from('not audio at all'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function freshDb(name: string): Db {
  return openDatabase(path.join(dir, `${name}.db`));
}

async function scan(db: Db, name: string, extra: Partial<ScanOptions> = {}) {
  const runId = scanRuns.enqueue(db, 'full', 'test', Date.now());
  return scanLibrary(db, { runId, mode: 'full', roots: [music], imageDir: path.join(dir, `images-${name}`), now: () => 1000, ...extra });
}

/** Everything a scan writes that a reader sees, without the times. */
function contents(db: Db) {
  const q = (sql: string) => db.prepare(sql).all();
  return {
    artists: q('SELECT id, identity_key, name, track_count, album_count, available FROM library_artists ORDER BY id'),
    albums: q('SELECT id, identity_key, title, artist_id, track_count, image_key FROM library_albums ORDER BY id'),
    tracks: q('SELECT id, identity_key, title, album_id, artist_id, track_number, duration_ms, available FROM library_tracks ORDER BY id'),
    media: q('SELECT id, path, track_id, album_id, size, fingerprint, image_key, codec, bitrate, tag_error FROM library_media_files ORDER BY id'),
    genres: q('SELECT g.name, l.kind, l.entity_id FROM library_genre_links l JOIN library_genres g ON g.id = l.genre_id ORDER BY 1, 2, 3'),
    search: q("SELECT rowid FROM library_tracks_fts WHERE library_tracks_fts MATCH '\"Track 1\"' ORDER BY rowid"),
    images: q('SELECT cache_key, mime, bytes, origin FROM library_images ORDER BY cache_key'),
    dirty: q('SELECT * FROM library_dirty'),
  };
}

describe('scan reads on a second thread', () => {
  it('writes the same rows as a scan reading on its own thread', async () => {
    const here = freshDb('here');
    const alone = await scan(here, 'here');
    const there = freshDb('there');
    const thread = new ScanReadThread({ imageDir: path.join(dir, 'images-there') });
    let taken = 0;
    const offload = {
      start: () => thread.start(),
      take: (files: Parameters<ScanReadThread['take']>[0]) => {
        const batch = thread.take(files);
        if (batch) taken++;
        return batch;
      },
    };
    try {
      thread.start();
      // Wait until the thread takes batches, so this scan really reads there.
      await expect.poll(() => (thread as unknown as { ready: boolean }).ready, { timeout: 30_000 }).toBe(true);
      const helped = await scan(there, 'there', { readThread: offload });
      expect(taken).toBeGreaterThan(0);
      expect(helped).toEqual(alone);
      expect(helped.filesIndexed).toBe(FILES + 1);
      expect(helped.errors).toEqual([expect.objectContaining({ path: path.join('Covered', 'Art', '02 Broken.mp3') })]);
      expect(contents(there)).toEqual(contents(here));
      expect((contents(there).images as unknown[]).length).toBe(1);
      expect(fs.readdirSync(path.join(dir, 'images-there'))).toEqual(fs.readdirSync(path.join(dir, 'images-here')));
    } finally {
      await thread.close();
      here.close();
      there.close();
    }
  });

  it('reads the batches a failed thread held on the scan thread instead', async () => {
    const db = freshDb('failed');
    const reference = freshDb('reference');
    let calls = 0;
    // A thread that takes every batch and fails the third one (as a thread that died would).
    const failing = new ScanReadThread({ imageDir: path.join(dir, 'images-failed') });
    try {
      failing.start();
      await expect.poll(() => (failing as unknown as { ready: boolean }).ready, { timeout: 30_000 }).toBe(true);
      const offload = {
        take: (files: Parameters<ScanReadThread['take']>[0]) => {
          if (++calls === 3) return Promise.reject(new Error('scan read thread ended'));
          return failing.take(files);
        },
      };
      const result = await scan(db, 'failed', { readThread: offload });
      const expected = await scan(reference, 'reference');
      expect(result).toEqual(expected);
      expect(contents(db)).toEqual(contents(reference));
    } finally {
      await failing.close();
      db.close();
      reference.close();
    }
  });

  it('hands every batch to a busy thread instead of reading it on the scan thread, and writes the same rows', async () => {
    const db = freshDb('busy');
    const reference = freshDb('busy-reference');
    // A thread holding two batches at most: it is busy most of the scan.
    const thread = new ScanReadThread({ imageDir: path.join(dir, 'images-busy') }, undefined, 2);
    const offered = new Map<string, boolean>();
    let sawBusy = false;
    const offload = {
      take: (files: Parameters<ScanReadThread['take']>[0]) => {
        const key = files[0]!.path;
        const batch = thread.take(files);
        offered.set(key, offered.get(key) === true || batch !== null);
        return batch;
      },
      get busy() {
        sawBusy ||= thread.busy;
        return thread.busy;
      },
    };
    try {
      thread.start();
      await expect.poll(() => (thread as unknown as { ready: boolean }).ready, { timeout: 30_000 }).toBe(true);
      const result = await scan(db, 'busy', { readThread: offload });
      expect(result).toEqual(await scan(reference, 'busy-reference'));
      expect(contents(db)).toEqual(contents(reference));
      expect(sawBusy).toBe(true);
      // Every batch went to the thread in the end: none was read on the scan thread.
      expect(offered.size).toBeGreaterThan(5);
      expect([...offered.values()].every(Boolean)).toBe(true);
    } finally {
      await thread.close();
      db.close();
      reference.close();
    }
  });

  it('is on unless TONEARM_SCAN_READ_THREAD turns it off', () => {
    expect(readThreadEnabled({})).toBe(true);
    expect(readThreadEnabled({ TONEARM_SCAN_READ_THREAD: 'true' })).toBe(true);
    expect(readThreadEnabled({ TONEARM_SCAN_READ_THREAD: 'false' })).toBe(false);
    expect(readThreadEnabled({ TONEARM_SCAN_READ_THREAD: ' OFF ' })).toBe(false);
    expect(readThreadEnabled({ TONEARM_SCAN_READ_THREAD: '0' })).toBe(false);
  });
});

describe('when a scan offers its reads to the read thread', () => {
  /** The number of files waiting to be read at each offer to start the read thread. */
  async function offers(db: Db, name: string, extra: Partial<ScanOptions>) {
    const at: number[] = [];
    let read = 0;
    await scan(db, name, {
      readThread: {
        take: (files) => {
          read += files.length;
          return null;
        },
        start: () => at.push(read),
      },
      ...extra,
    });
    return at;
  }

  it('from the first batch in a full scan or a first index, and only past 256 files to read in a quick one', async () => {
    const full = await offers(freshDb('offers-full'), 'offers-full', {});
    expect(full[0]).toBe(0);
    const db = freshDb('offers-quick');
    await scan(db, 'offers-quick-first', { mode: 'quick' });
    // Every file changed size: a quick scan reads them all again, offering the thread only past 256.
    db.prepare('UPDATE library_media_files SET size = size + 1').run();
    const quick = await offers(db, 'offers-quick', { mode: 'quick' });
    expect(quick.length).toBeGreaterThan(0);
    expect(quick[0]).toBeGreaterThanOrEqual(256 - 32);
  });
});

describe('a core to spare for the read thread', () => {
  it('counts idle cores from the processor times of all cores', () => {
    const cpu = (idle: number, busy: number) => ({ model: '', speed: 0, times: { user: busy, nice: 0, sys: 0, idle, irq: 0 } });
    expect(cpuTimes([cpu(100, 50), cpu(10, 40)])).toEqual({ idle: 110, total: 200 });
    // Over 200 ms of two cores, 150 ms idle: three quarters of the machine, 1.5 cores.
    expect(idleCores({ idle: 0, total: 0 }, { idle: 150, total: 200 }, 2)).toBe(1.5);
    expect(idleCores({ idle: 5, total: 9 }, { idle: 5, total: 9 }, 2)).toBe(0);
  });

  it('answers after its window: yes with a core idle beside the scan, no with every core busy or one core', () => {
    let now = 0;
    let times = { idle: 0, total: 0 };
    const spare = new SpareCore(() => times, () => now, 2);
    expect(spare.check()).toBeNull();
    now = SPARE_CORE_WINDOW_MS;
    times = { idle: 90, total: 200 }; // the scan's core busy, the other 90 % idle
    expect(spare.check()).toBe(true);
    now += SPARE_CORE_WINDOW_MS;
    times = { idle: 100, total: 400 }; // both cores busy since the last answer
    expect(spare.check()).toBe(false);
    spare.reset();
    expect(spare.check()).toBeNull();
    expect(new SpareCore(() => times, () => now + 10_000, 1).check()).toBe(false);
  });

  it("counts this process's own time beyond the scan's core as spare, not another program's load", () => {
    let now = 0;
    let times = { idle: 0, total: 0 };
    let own = 0;
    const spare = new SpareCore(() => times, () => now, 2, () => own);
    expect(ownCores(150, 200, 2)).toBe(1.5);
    // The worker just started: the scan's core and 70 % of the other busy, all of it this process.
    now = SPARE_CORE_WINDOW_MS;
    times = { idle: 30, total: 200 };
    own = 170;
    expect(spare.check()).toBe(true);
    // The same machine time, but another program held the other core: nothing to spare.
    now += SPARE_CORE_WINDOW_MS;
    times = { idle: 60, total: 400 };
    own += 100;
    expect(spare.check()).toBe(false);
  });

  it('answers at once when its window began as the worker was started, counting the start as this process’s time', () => {
    let now = 5000;
    const spare = new SpareCore(() => ({ idle: 40, total: 300 }), () => now, 2, () => 250);
    spare.beginAt({ times: { idle: 0, total: 0 }, ownMs: 0, wallMs: 1_000 }, 1_000 + SPARE_CORE_WINDOW_MS + 50);
    // 150 ms since the start: 0.27 cores idle, and 250 ms of this process's time over 150 ms (0.67 spare).
    expect(spare.check()).toBe(true);
    now += 1;
    expect(spare.check()).toBeNull();
    const start = spareCoreStartHere();
    expect(start.times.total).toBeGreaterThan(0);
    expect(start.wallMs).toBeLessThanOrEqual(Date.now());
  });
});
