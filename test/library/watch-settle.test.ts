import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, openDatabase } from '../../server/db/connection.js';
import { settingsRepository } from '../../server/db/settings.js';
import { createSettingsStore } from '../../server/domain/settings/store.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { standaloneScanService } from '../helpers/scanService.js';

let dir: string;
let template: Buffer;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-settle-'));
  template = makeMp3Template(dir);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('folder watcher settle time', () => {
  it('scans a folder that keeps changing once the cap after its first change has passed', async () => {
    const music = path.join(dir, 'growing');
    fs.mkdirSync(music, { recursive: true });
    const dbPath = path.join(dir, 'growing.db');
    const { db, jobs, service, close } = standaloneScanService(dbPath, {
      roots: () => [music],
      watch: true,
      watchDebounceMs: () => 400,
      watchMaxWaitMs: 1500,
    });
    const runs = () => db.prepare("SELECT id, status, requested_at AS requestedAt FROM library_scan_runs WHERE reason = 'music folder changed'").all() as { id: number; status: string; requestedAt: number }[];
    try {
      service.start();
      jobs.start();
      await service.whenWatching();
      // A file every 150 ms for 3.5 s: never 400 ms of quiet, so only the cap can start a scan.
      const started = Date.now();
      for (let i = 0; Date.now() - started < 3500; i++) {
        writeTaggedMp3(path.join(music, 'Album', `${i}.mp3`), template, { title: `Growing ${i}`, artist: 'Grower', album: 'Album', track: i });
        await new Promise((r) => setTimeout(r, 150));
      }
      const duringWrites = runs();
      expect(duringWrites.length).toBeGreaterThanOrEqual(1);
      expect(duringWrites[0]!.requestedAt - started).toBeLessThan(2500);
      // After the writes stop, the rest settles within the quiet time.
      const stopped = Date.now();
      const deadline = stopped + 5000;
      while (Date.now() < deadline && (runs().length === duringWrites.length || runs().some((r) => r.status !== 'completed'))) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const last = runs().at(-1)!;
      expect(last.requestedAt - stopped).toBeLessThan(1500);
      await service.whenIdle();
      const count = db.prepare("SELECT COUNT(*) AS n FROM library_tracks WHERE title LIKE 'Growing %' AND available = 1").get() as { n: number };
      expect(count.n).toBe(fs.readdirSync(path.join(music, 'Album')).length);
    } finally {
      await close();
    }
  }, 30_000);

  it('defaults to 10 s of quiet; an older install stored the old default, which moves, and a chosen value stays', () => {
    const store = (file: string) => createSettingsStore(settingsRepository(openDatabase(file)));
    expect(store(path.join(dir, 'fresh.db')).get().library.watchDebounceMs).toBe(10_000);

    const before = loadMigrations().filter((m) => m.version < 34);
    for (const [name, stored, expected] of [
      ['old-default', 120_000, 10_000],
      ['chosen', 30_000, 30_000],
      ['huge', 24 * 3600_000, 3600_000],
    ] as const) {
      const file = path.join(dir, `${name}.db`);
      const old = openDatabase(file, { migrations: before });
      settingsRepository(old).put('settings', { library: { musicFolders: [], watchEnabled: true, watchDebounceMs: stored } });
      old.close();
      expect(store(file).get().library.watchDebounceMs).toBe(expected);
    }
  });
});
