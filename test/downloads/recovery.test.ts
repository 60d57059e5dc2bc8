import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { FFMPEG } from '../fixtures/audio.js';
import { OFFLINE_UPSTREAMS } from '../helpers/offline.js';
import { ADMIN } from '../helpers/server.js';
import { waitFor } from './helpers.js';

/**
 * kill -9 of the real server (its whole process group, ffmpeg included) during a download and
 * during filing: after a restart every job finishes exactly once, the slskd transfer is followed
 * rather than enqueued again, and no duplicate, half-written or staging file is left.
 */

const repo = path.resolve(import.meta.dirname, '../..');
let dir: string;
let dataDir: string;
let root: string;
let slskd: SlskdFake;
let child: ChildProcess | undefined;
let url = '';
let token = '';

function start(): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: repo,
    detached: true,
    env: { ...process.env, ...OFFLINE_UPSTREAMS, LOG_LEVEL: 'warn', TONEARM_HOST: '127.0.0.1', TONEARM_PORT: '0', TONEARM_DATA_DIR: dataDir, FFMPEG_PATH: path.join(dir, 'slow-ffmpeg'),
      // The slow ffmpeg stands in for tagging; measuring ReplayGain through it would only add its delay.
      TONEARM_REPLAYGAIN_ANALYSIS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', () => reject(new Error(`server exited: ${err}`)));
  });
}

/** SIGKILL to the server's process group (a container stop without grace), then wait for it to be gone. */
async function killHard(): Promise<void> {
  const proc = child!;
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(-proc.pid!, 'SIGKILL');
  await exited;
  child = undefined;
}

const api = async (p: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await fetch(url + p, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.json !== undefined && { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

const db = () => new Database(path.join(dataDir, 'tonearm.db'), { timeout: 5000 });
function row(id: number): { status: string; phase: string | null; source_state: string | null; final_path: string | null; error: string | null } {
  const d = db();
  try {
    return d.prepare('SELECT status, phase, source_state, final_path, error FROM download_jobs WHERE id = ?').get(id) as any;
  } finally {
    d.close();
  }
}
function insertJob(artist: string, track: string, album: string, trackNumber: number): number {
  const d = db();
  try {
    const now = Date.now();
    return Number(
      d
        .prepare(
          `INSERT INTO download_jobs (user_id, status, artist_name, track_name, album_name, track_number, duration_ms, created_at, updated_at)
           VALUES (1, 'pending', ?, ?, ?, ?, 1000, ?, ?)`,
        )
        .run(artist, track, album, trackNumber, now, now).lastInsertRowid,
    );
  } finally {
    d.close();
  }
}
const walk = (d: string): string[] =>
  fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)])) : [];
const enqueues = (file: string) => slskd.state.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/api/v0/transfers/downloads/') && JSON.stringify(r.body).includes(file)).length;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-kill-'));
  dataDir = path.join(dir, 'data');
  root = path.join(dir, 'downloads');
  // ffmpeg that leaves a half-written output for a while, so a kill lands in the middle of writing a file.
  fs.writeFileSync(
    path.join(dir, 'slow-ffmpeg'),
    `#!/bin/sh\nfor a; do out="$a"; done\nhead -c 777 /dev/urandom > "$out"\nsleep 4\nexec ${FFMPEG} "$@"\n`,
    { mode: 0o755 },
  );
  slskd = await startSlskdFake({ searchMs: 200, maxConcurrentSearches: 8 });
  slskd.state.options.users.find((u) => u.username === 'collector')!.transferMs = 8000;
  // quickpeer shares the album in Ogg Vorbis, which is tagged through (the slow) ffmpeg (FLAC is tagged in-process).
  const quick = slskd.state.options.users.find((u) => u.username === 'quickpeer')!;
  quick.files = quick.files.map((f) => ({ ...f, filename: f.filename.replace(/\.mp3$/, '.ogg') }));
  url = await start();
  const onboard = await fetch(`${url}/api/onboarding/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authUser: ADMIN.username, authPassword: ADMIN.password }) });
  expect(onboard.status).toBe(200);
  token = ((await (await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })).json()) as { token: string }).token;
  const saved = await api('/api/settings', { method: 'POST', json: { downloads: { folderPath: root }, integrations: { slskd: { url: slskd.url, apiKey: slskd.apiKey } } } });
  expect(saved.status).toBe(200);
  // Pressing Test confirms slskd's downloads folder, the only one files are taken from.
  const tested = await api('/api/settings/slskd/test', { method: 'POST', json: {} });
  expect(tested.body.confirmedFolder).toBe(slskd.downloadsDir);
}, 60_000);

afterAll(async () => {
  if (child) await killHard();
  await slskd?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('recovery after kill -9', () => {
  it('after a kill during a download and during filing, every job finishes once: the transfer is followed, no half-written or duplicate file', async () => {
    // "collector" delivers slowly (its job is killed mid-transfer), "quickpeer" at once (its job is killed while ffmpeg writes).
    const downloading = insertJob('Copper Lanterns', 'Departure', 'Night Ferry', 1);
    const filing = insertJob('Velvet Harbors', 'Harbor Lights', 'Tidewater', 1);
    await waitFor(() => {
      const a = row(downloading);
      const b = row(filing);
      return a.phase === 'download' && a.source_state && JSON.parse(a.source_state).handle && b.phase === 'file' && b.status === 'downloading' ? true : undefined;
    }, 30_000, 'one job downloading and one filing');
    const tidewater = path.join(root, 'Velvet Harbors', 'Tidewater');
    const halfWritten = await waitFor(() => walk(tidewater).find((f) => f.endsWith('.part') && fs.statSync(f).size === 777), 10_000, 'the half-written file');
    await killHard();
    expect(fs.statSync(halfWritten).size).toBe(777);
    expect([row(downloading).status, row(filing).status]).toEqual(['downloading', 'downloading']);
    expect(fs.existsSync(path.join(tidewater, '01 Harbor Lights.ogg'))).toBe(false);
    expect([enqueues('01 - Departure.mp3'), enqueues('01 - Harbor Lights.ogg')]).toEqual([1, 1]);

    url = await start();
    const done = await waitFor(() => (row(downloading).status === 'done' && row(filing).status === 'done' ? [row(downloading), row(filing)] : undefined), 40_000, 'both jobs to finish');
    expect(done.map((r) => r.final_path)).toEqual([path.join(root, 'Copper Lanterns', 'Night Ferry', '01 Departure.mp3'), path.join(tidewater, '01 Harbor Lights.ogg')]);
    expect([enqueues('01 - Departure.mp3'), enqueues('01 - Harbor Lights.ogg')]).toEqual([1, 1]);
    // Exactly the two files: no "(2)" copy, no leftover ".part", nothing in staging.
    expect(walk(root).filter((f) => !f.includes(`${path.sep}.staging${path.sep}`)).sort()).toEqual(done.map((r) => r.final_path).sort());
    expect(walk(path.join(root, '.staging'))).toEqual([]);
    const jobs = await api('/api/playlists/jobs');
    expect(jobs.body.map((j: { status: string }) => j.status)).toEqual(['done', 'done']);
  }, 120_000);
});
