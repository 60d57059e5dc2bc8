/**
 * Download-job listing (issue 12): `GET /api/playlists/jobs` with BENCH_DOWNLOAD_JOBS (default
 * 100,000) jobs stored across 50 users, about 1 % of them blocked. Measures a user's first page and
 * an administrator's `status=blocked` page over HTTP on loopback. Target p95 ≤ 25 ms for both. The
 * download worker is stopped meanwhile (the seeded jobs are rows only). Writes JSON under bench-results/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../server/db/connection.js';
import { startTestServer } from '../test/helpers/server.js';

const STATUSES = ['done', 'done', 'done', 'done', 'failed', 'cancelled', 'pending', 'downloading'] as const;

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

export async function runDownloadJobsBench(
  count = Number(process.env.BENCH_DOWNLOAD_JOBS ?? 100_000),
  repeat = Number(process.env.BENCH_REPEAT ?? 60),
): Promise<Record<string, number>> {
  const server = await startTestServer();
  const users: { id: number; token: string }[] = [];
  for (let u = 0; u < 50; u++) {
    const name = `listener${u}`;
    const created = await server.api('/api/users', {
      method: 'POST',
      token: server.admin.token,
      json: { username: name, password: 'bench password 1', permissions: { accessFlow: true } },
    });
    const user = (await created.json()) as { id: number };
    const login = await server.api('/api/auth/login', { method: 'POST', json: { username: name, password: 'bench password 1' } });
    users.push({ id: user.id, token: ((await login.json()) as { token: string }).token });
  }

  // The worker is stopped: the seeded pending and downloading jobs have no queue job, and a running
  // worker's sweep would queue all 25,000 of them and run them during the measurement.
  const stop = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { worker: { running: false } } } });
  if (stop.status !== 200) throw new Error(`settings: HTTP ${stop.status} ${await stop.text()}`);

  const db = openDatabase(server.ctx.dbPath);
  const t0 = performance.now();
  const insert = db.prepare(
    `INSERT INTO download_jobs (user_id, status, artist_name, track_name, album_name, download_source, progress,
       block_reason, blocked_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'slskd', ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    const now = Date.now() - count * 1000;
    for (let i = 0; i < count; i++) {
      const blocked = i % 100 === 7;
      const status = blocked ? 'blocked' : STATUSES[i % STATUSES.length]!;
      const at = now + i * 1000;
      insert.run(users[i % users.length]!.id, status, `Artist ${i % 997}`, `Track ${i}`, `Album ${i % 4001}`, status === 'done' ? 100 : 0,
        blocked ? 'Duration differs by 42 s' : null, blocked ? at : null, at, at);
    }
  })();
  db.close();
  const seedMs = performance.now() - t0;

  const time = async (path: string, token: string) => {
    const samples: number[] = [];
    for (let i = 0; i < repeat + 5; i++) {
      const s = performance.now();
      const res = await server.api(path, { token });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      if (i >= 5) samples.push(performance.now() - s);
    }
    return samples;
  };
  const userPage = await time('/api/playlists/jobs?limit=50', users[3]!.token);
  const blocked = await time('/api/playlists/jobs?status=blocked&limit=50', server.admin.token);
  await server.stop();

  const out = {
    downloadJobsStored: count,
    downloadJobsSeedMs: Math.round(seedMs),
    jobsUserPageP50: pct(userPage, 0.5),
    jobsUserPageP95: pct(userPage, 0.95),
    jobsBlockedP50: pct(blocked, 0.5),
    jobsBlockedP95: pct(blocked, 0.95),
  };
  console.log(`\nDownload jobs listing: ${count} jobs stored (seeded in ${out.downloadJobsSeedMs} ms)`);
  for (const [label, p50, p95] of [
    ["GET /api/playlists/jobs (a user's page)", out.jobsUserPageP50, out.jobsUserPageP95],
    ['GET /api/playlists/jobs?status=blocked (admin)', out.jobsBlockedP50, out.jobsBlockedP95],
  ] as const) {
    console.log(label.padEnd(48), `p50 ${String(p50).padStart(7)}  p95 ${String(p95).padStart(7)}  ≤ 25 ms ${p95 <= 25 ? 'ok' : 'MISS'}`);
  }
  fs.mkdirSync('bench-results', { recursive: true });
  const file = path.join('bench-results', `download-jobs-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ ...out, repeat, loadAverage: os.loadavg().map((l) => l.toFixed(2)) }, null, 2));
  console.log(`written ${file}`);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await runDownloadJobsBench();
