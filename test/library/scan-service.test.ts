import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

const FILES = 1000;
let dir: string;
let music: string;
let dataDir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scansvc-'));
  music = path.join(dir, 'music');
  dataDir = path.join(dir, 'data');
  fs.mkdirSync(dataDir);
  const template = makeMp3Template(dir);
  for (let i = 0; i < FILES; i++) {
    const artist = `Artist ${i % 40}`;
    const album = `Album ${i % 200}`;
    writeTaggedMp3(path.join(music, artist, album, `${i}.mp3`), template, { title: `Track ${i}`, artist, album, track: (i % 10) + 1, genre: `Genre ${i % 7}` });
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function job(server: TestServer, id: string) {
  return (await (await server.api(`/api/library/refresh/${id}`, { headers: server.admin.headers })).json()) as Record<string, any>;
}

describe('scan service', () => {
  it('keeps HTTP responsive and reports progress on /ws while scanning thousands of files', async () => {
    const server = await startTestServer({ dataDir, musicDirs: [music] });
    try {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws?token=${server.admin.token}`);
      const messages: Record<string, any>[] = [];
      ws.on('message', (m) => messages.push(JSON.parse(String(m))));
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'subscribe', channels: ['library'] }));
      await new Promise((r) => setTimeout(r, 100));

      const started = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'full' }, headers: server.admin.headers });
      const { jobId } = (await started.json()) as { jobId: string };
      const latencies: number[] = [];
      let status = 'queued';
      while (status === 'queued' || status === 'running') {
        const t = performance.now();
        const res = await server.api('/api/library/canonical?kind=tracks&pageSize=50', { headers: server.admin.headers });
        expect(res.status).toBe(200);
        latencies.push(performance.now() - t);
        status = (await job(server, jobId)).status;
        await new Promise((r) => setTimeout(r, 20));
      }
      const final = await job(server, jobId);
      expect(final).toMatchObject({ status: 'completed', filesSeen: FILES, filesIndexed: FILES, filesFailed: 0 });
      latencies.sort((a, b) => a - b);
      expect(latencies.length).toBeGreaterThan(5);
      expect(latencies[Math.floor(latencies.length * 0.95)]).toBeLessThan(250);
      const types = messages.filter((m) => m.channel === 'library').map((m) => m.type);
      expect(messages).toContainEqual(expect.objectContaining({ type: 'library_scan_started', channel: 'library', jobId, mode: 'full' }));
      expect(types).toContain('library_scan_progress');
      const completed = () => messages.find((m) => m.type === 'library_scan_completed' && m.jobId === jobId);
      for (let i = 0; i < 100 && !completed(); i++) await new Promise((r) => setTimeout(r, 20));
      const done = completed();
      expect(done).toMatchObject({ channel: 'library', jobId, status: 'completed', filesIndexed: FILES });
      ws.close();
      const page = await (await server.api('/api/library/canonical?kind=artists&pageSize=1', { headers: server.admin.headers })).json();
      expect((page as { total: number }).total).toBe(40);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('resumes a scan stopped half-way at the next start and finishes the job', async () => {
    fs.rmSync(path.join(dataDir), { recursive: true, force: true });
    fs.mkdirSync(dataDir);
    const env = {};
    const first = await startTestServer({ dataDir, env, musicDirs: [music] });
    // The start-up scan is running; stop the server once its first batches are committed.
    for (let i = 0; i < 400; i++) {
      const row = first.ctx.db.prepare("SELECT files_indexed AS n FROM library_scan_runs WHERE status = 'running'").get() as { n: number } | undefined;
      if (row && row.n > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await first.stop();
    const second = await startTestServer({ dataDir, env, musicDirs: [music] });
    try {
      const interrupted = second.ctx.db
        .prepare("SELECT files_indexed AS n FROM library_scan_runs WHERE status = 'failed' AND error = 'interrupted'")
        .all() as { n: number }[];
      expect(interrupted).toHaveLength(1);
      expect(interrupted[0]!.n).toBeGreaterThan(0);
      expect(interrupted[0]!.n).toBeLessThan(FILES);
      const resumed = second.ctx.db.prepare("SELECT id FROM library_scan_runs WHERE status IN ('queued', 'running')").all() as { id: number }[];
      expect(resumed.length).toBeGreaterThan(0);
      let last: Record<string, any> = {};
      for (let i = 0; i < 600; i++) {
        last = await job(second, String(resumed[resumed.length - 1]!.id));
        if (last.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(last).toMatchObject({ status: 'completed', filesSeen: FILES });
      const tracks = await (await second.api('/api/library/canonical?kind=tracks&pageSize=1&availableOnly=true', { headers: second.admin.headers })).json();
      expect((tracks as { total: number }).total).toBe(FILES);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('folder watcher', () => {
  it('scans only what changed after the debounce and ignores artwork, sidecars, dotfiles and temp files', async () => {
    const watched = path.join(dir, 'watched');
    const template = makeMp3Template(dir);
    const file = (...parts: string[]) => path.join(watched, ...parts);
    for (const name of ['keep', 'change', 'delete']) {
      writeTaggedMp3(file('Artist', 'Album', `${name}.mp3`), template, { title: `Watched ${name}`, artist: 'Watcher', album: 'Album' });
    }
    const server = await startTestServer({ dataDir: fs.mkdtempSync(path.join(dir, 'watch-data-')), musicDirs: [watched] });
    const library = server.ctx.library;
    const runs = () => server.ctx.db.prepare('SELECT id, files_seen AS seen, status FROM library_scan_runs ORDER BY id').all() as { id: number; seen: number; status: string }[];
    const titles = () =>
      server.ctx.db.prepare("SELECT title, available FROM library_tracks WHERE title LIKE 'Watched %' ORDER BY title").all();
    const until = async <T>(check: () => T | undefined | false, timeoutMs = 30_000): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = check();
        if (value) return value;
        if (Date.now() > deadline) throw new Error('timed out waiting for the watcher');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      const res = await server.api('/api/settings', { method: 'POST', headers: server.admin.headers, json: { library: { watchDebounceMs: 1000 } } });
      expect(res.status).toBe(200);
      await library.scans.whenIdle();
      await library.scans.whenWatching();
      expect(runs()).toEqual([{ id: 1, seen: 3, status: 'completed' }]);

      // Only ignored writes: no scan.
      fs.writeFileSync(file('Artist', 'Album', 'cover.jpg'), 'jpeg');
      fs.writeFileSync(file('Artist', 'Album', 'album.nfo'), 'nfo');
      fs.writeFileSync(file('Artist', 'Album', '.hidden.mp3'), 'dot');
      fs.writeFileSync(file('Artist', 'Album', 'next.mp3.part'), 'partial');
      fs.writeFileSync(file('Artist', 'Album', 'next.tmp'), 'temp');
      await new Promise((r) => setTimeout(r, 2500));
      expect(runs()).toHaveLength(1);

      // A burst of changes: one scoped scan after the quiet time.
      writeTaggedMp3(file('Artist', 'Album', 'change.mp3'), template, { title: 'Watched changed', artist: 'Watcher', album: 'Album', track: 12 });
      fs.rmSync(file('Artist', 'Album', 'delete.mp3'));
      writeTaggedMp3(file('Other', 'New Album', 'added.mp3'), template, { title: 'Watched added', artist: 'Other', album: 'New Album' });
      await until(() => runs().length === 2 && runs()[1]!.status === 'completed');
      expect(titles()).toEqual([
        { title: 'Watched added', available: 1 },
        { title: 'Watched changed', available: 1 },
        { title: 'Watched delete', available: 0 },
        { title: 'Watched keep', available: 1 },
      ]);
      expect(runs()[1]!.seen).toBe(2); // the changed and the added file, not the whole folder

      // A folder removed as a whole.
      fs.rmSync(file('Other'), { recursive: true });
      await until(() => runs().length === 3 && runs()[2]!.status === 'completed');
      expect(server.ctx.db.prepare("SELECT available FROM library_tracks WHERE title = 'Watched added'").get()).toEqual({ available: 0 });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
