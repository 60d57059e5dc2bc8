import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_CACHE_MB, openDatabase, openWorkerConnection, shrinkMemory } from '../../server/db/connection.js';
import { LibraryScanService } from '../../server/library/scanService.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer } from '../helpers/server.js';

// Memory at rest after a scan: what an idle server keeps must not grow with the library.
let dir: string;
let music: string;
const FILES = 24;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-idlemem-'));
  music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  for (let i = 0; i < FILES; i++) {
    const artist = `Artist ${i % 2}`;
    const album = `Album ${i % 4}`;
    writeTaggedMp3(path.join(music, artist, album, `${i}.mp3`), template, { title: `Track ${i}`, artist, album, track: i + 1 });
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('memory at rest', () => {
  it('the folder watcher holds a watch per folder, not per file', async () => {
    const server = await startTestServer({ musicDirs: [music] });
    try {
      const scans = server.ctx.library.scans;
      await scans.whenWatching();
      const watched = scans.watchedPaths();
      for (const folder of ['Artist 0', 'Artist 1', path.join('Artist 0', 'Album 0'), path.join('Artist 1', 'Album 3')]) {
        expect(watched).toContain(path.join(music, folder));
      }
      expect(watched.filter((p) => p.endsWith('.mp3'))).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it("a running server keeps no libvips operation cache (artwork is resized once and stored on disk)", async () => {
    sharp.cache(true);
    expect(sharp.cache().items.max).toBeGreaterThan(0);
    const server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' } });
    try {
      expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, files: { max: 0 }, items: { max: 0 } });
    } finally {
      await server.stop();
    }
  });

  it("the server's database connection keeps a 16 MiB page cache (what it frees stays with malloc)", async () => {
    const server = await startTestServer({ env: { TONEARM_SCAN_ON_START: 'false' } });
    try {
      expect(MAIN_CACHE_MB).toBe(16);
      expect(server.ctx.db.pragma('cache_size', { simple: true })).toBe(-16 * 1024);
    } finally {
      await server.stop();
    }
  });

  it('the scan worker ends once idle after a scan, and the next scan starts a new one', async () => {
    const server = await startTestServer({ musicDirs: [music], env: { TONEARM_SCAN_ON_START: 'false', TONEARM_LIBRARY_WATCH: 'false' } });
    const scans = new LibraryScanService({
      db: server.ctx.db,
      jobs: server.ctx.jobs,
      queue: 'library-scan-idle-test',
      dbPath: server.ctx.dbPath,
      imageDir: path.join(server.dataDir, 'images'),
      roots: () => [music],
      workerIdleMs: 50,
    });
    scans.start();
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
      return check();
    };
    try {
      const first = scans.requestScan('full', 'test');
      await scans.whenIdle();
      expect(scans.job(first)).toMatchObject({ status: 'completed', filesIndexed: FILES });
      expect(await until(() => !scans.hasWorker())).toBe(true);
      const second = scans.requestScan('full', 'test');
      await new Promise((r) => setTimeout(r, 0));
      expect(scans.hasWorker()).toBe(true);
      await scans.whenIdle();
      expect(scans.job(second)).toMatchObject({ status: 'completed', filesIndexed: FILES });
      expect(await until(() => !scans.hasWorker())).toBe(true);
    } finally {
      await scans.stop();
      await server.stop();
    }
  });

  // Pages of the database file a connection has read through its memory map are resident memory
  // for as long as the map lives.
  it.runIf(process.platform === 'linux')("the server's connection reads the database without a memory map; a worker connection's map is dropped when memory is given back", () => {
    const file = path.join(dir, 'mapped.db');
    const db = openDatabase(file);
    const mappedKb = () => {
      let kb = 0;
      let inFile = false;
      for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
        if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.trimEnd().endsWith(` ${file}`);
        else if (inFile && line.startsWith('Rss:')) kb += Number(/(\d+)/.exec(line)![1]);
      }
      return kb;
    };
    let worker: ReturnType<typeof openWorkerConnection> | undefined;
    try {
      db.exec('CREATE TABLE filler (b BLOB)');
      const insert = db.prepare('INSERT INTO filler (b) VALUES (randomblob(4000))');
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) insert.run();
      })();
      db.pragma('wal_checkpoint(TRUNCATE)');
      const sum = (c: typeof db) => (c.prepare('SELECT sum(length(b)) AS n FROM filler').get() as { n: number }).n;
      expect(sum(db)).toBe(8_000_000);
      expect(mappedKb()).toBe(0);

      worker = openWorkerConnection(file);
      expect(sum(worker)).toBe(8_000_000);
      expect(mappedKb()).toBeGreaterThan(4000);
      shrinkMemory(worker);
      expect(mappedKb()).toBe(0);
      expect(sum(worker)).toBe(8_000_000);
      expect(mappedKb()).toBeGreaterThan(4000);
      shrinkMemory(db);
      expect(sum(db)).toBe(8_000_000);
    } finally {
      worker?.close();
      db.close();
    }
  });
});
