/**
 * Playlist status (issue 14): `GET /api/playlists/status` with 100 flows × 100 jobs (one run each,
 * its 100 planned tracks) and 20 shared playlists × 20 jobs, rows inserted directly; p95 over HTTP
 * on loopback for an administrator (target ≤ 25 ms). Then 50 real WebSocket clients (10 users with
 * flow access, 5 sockets each, and the administrator's 0) subscribe to `playlists`, and the CPU time
 * of the process (process.cpuUsage, user + system) over BENCH_PUSH_SECONDS (default 60) of 4-second
 * push cycles, while a job changes every second so statuses differ between ticks, is reported as a
 * share of one core (target ≤ 5 %). The idle share before the sockets connect is reported too.
 */
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { flows } from '../server/db/flows.js';
import { playlistStatus } from '../server/domain/flows/status.js';
import { makeUser } from '../test/downloads/helpers.js';
import { startTestServer } from '../test/helpers/server.js';

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFlowStatusBench(repeat = Number(process.env.BENCH_REPEAT ?? 200), pushSeconds = Number(process.env.BENCH_PUSH_SECONDS ?? 60)): Promise<Record<string, number>> {
  const server = await startTestServer({});
  await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { worker: { running: false } } } });
  const users: { id: number; token: string }[] = [];
  for (let i = 0; i < 10; i++) users.push(await makeUser(server, `bench${i}`, { accessFlow: true }));
  const db = server.ctx.db;
  const now = Date.now();
  const statuses = ['done', 'done', 'done', 'pending', 'failed', 'downloading'];
  db.transaction(() => {
    const job = db.prepare(
      `INSERT INTO download_jobs (user_id, playlist_type, playlist_id, status, artist_name, track_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const run = db.prepare(`INSERT INTO flow_runs (flow_id, trigger, status, planned, created_at) VALUES (?, 'manual', 'downloading', 100, ?)`);
    const track = db.prepare(`INSERT INTO flow_tracks (run_id, flow_id, position, source, artist_name, track_name, state, job_id) VALUES (?, ?, ?, 'discover', ?, ?, 'queued', ?)`);
    for (let f = 0; f < 100; f++) {
      const owner = f % 11 === 0 ? 1 : users[f % 10]!.id;
      const id = crypto.randomUUID();
      flows.insert(db, id, owner, {
        name: `Flow ${f}`, description: '', size: 100, mix: { discover: 100, mix: 0, trending: 0, focus: 0 }, tags: [], relatedArtists: [], deepDive: false,
        recordHistory: false, showInLibrary: false, includeLibraryTracks: false, onePerArtist: false, yearFrom: null, yearTo: null,
        scheduleDays: [5], scheduleTime: '00:00', enabled: true, templateId: null, discoverPresetId: null,
      }, now);
      const runId = Number(run.run(id, now).lastInsertRowid);
      for (let j = 0; j < 100; j++) {
        const jobId = Number(job.run(owner, 'flow', id, statuses[j % statuses.length], `Artist ${j}`, `Track ${f}-${j}`, now, now).lastInsertRowid);
        track.run(runId, id, j, `Artist ${j}`, `Track ${f}-${j}`, jobId);
      }
      flows.setState(db, id, { currentRunId: runId }, now);
    }
    const shared = db.prepare(`INSERT INTO shared_playlists (id, owner_user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`);
    for (let s = 0; s < 20; s++) {
      const id = crypto.randomUUID();
      shared.run(id, s % 2 === 0 ? 1 : users[s % 10]!.id, `Shared ${s}`, now, now);
      for (let j = 0; j < 20; j++) job.run(1, 'shared', id, statuses[j % statuses.length], `Shared Artist ${j}`, `S${s}-${j}`, now, now);
    }
  })();

  const timed = async (token: string) => {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) await (await server.api('/api/playlists/status', { token })).text();
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      const res = await server.api('/api/playlists/status', { token });
      await res.text();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      times.push(performance.now() - t0);
    }
    return times;
  };
  if (process.env.BENCH_PROFILE) {
    const t = (label: string, fn: () => unknown) => {
      const ts: number[] = [];
      for (let i = 0; i < 30; i++) { const t0 = performance.now(); fn(); ts.push(performance.now() - t0); }
      console.log(label, pct(ts, 0.5));
    };
    const svc = server.ctx.flows;
    const fl = svc.list({ userId: 1, role: 'admin' } as never);
    t('presentMany', () => svc.presentMany(fl, new Map()));
    t('present each', () => fl.map((f) => svc.present(f)));
    t('grouped', () => db.prepare(`SELECT playlist_type AS type, playlist_id AS id, status, count(*) AS n FROM download_jobs GROUP BY playlist_type, playlist_id, status`).all());
    const { flows: fdb } = await import('../server/db/flows.js');
    t('currentRuns', () => fdb.currentRuns(db));
    t('list', () => svc.list({ userId: 1, role: 'admin' } as never));
  }
  const admin = await timed(server.admin.token);
  const user = await timed(users[0]!.token);

  // In-process: the computation alone (meaningful on a loaded machine, where HTTP times wander).
  const adminPrincipal = { userId: 1, username: 'admin', role: 'admin' as const, permissions: {} as never, via: 'session' as const };
  const inProcess: number[] = [];
  for (let i = 0; i < 10; i++) playlistStatus(server.ctx, adminPrincipal);
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    JSON.stringify(playlistStatus(server.ctx, adminPrincipal));
    inProcess.push(performance.now() - t0);
  }

  // Idle share first (no sockets), then 50 sockets on `playlists`.
  const idleStart = process.cpuUsage();
  const idleT0 = performance.now();
  await sleep(8_000);
  const idle = process.cpuUsage(idleStart);
  const idleShare = ((idle.user + idle.system) / 1000 / (performance.now() - idleT0)) * 100;

  const sockets: WebSocket[] = [];
  let received = 0;
  for (let i = 0; i < 50; i++) {
    const token = users[i % 10]!.token;
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${token}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { type: string };
        if (m.type === 'connected') ws.send(JSON.stringify({ type: 'subscribe', channels: ['playlists'] }));
        if (m.type === 'subscribed') resolve();
        if (m.type === 'playlist_status') received++;
      });
    });
    sockets.push(ws);
  }
  await sleep(1_000);
  const jobIds = (db.prepare(`SELECT id FROM download_jobs WHERE playlist_type = 'flow' AND status = 'pending' LIMIT 200`).pluck().all() as number[]);
  const change = db.prepare(`UPDATE download_jobs SET progress = ?, updated_at = ? WHERE id = ?`);
  let k = 0;
  const churn = setInterval(() => change.run(k % 100, Date.now(), jobIds[k++ % jobIds.length]!), 1000);
  const start = process.cpuUsage();
  const t0 = performance.now();
  const before = received;
  await sleep(pushSeconds * 1000);
  const used = process.cpuUsage(start);
  const wall = performance.now() - t0;
  clearInterval(churn);
  const share = ((used.user + used.system) / 1000 / wall) * 100;
  const messages = received - before;
  for (const ws of sockets) ws.close();
  await server.stop();

  const out = {
    playlistStatusInProcessP50: pct(inProcess, 0.5),
    playlistStatusAdminP50: pct(admin, 0.5),
    playlistStatusAdminP95: pct(admin, 0.95),
    playlistStatusUserP95: pct(user, 0.95),
    playlistStatusPushCpuPct: Math.round(share * 100) / 100,
    playlistStatusIdleCpuPct: Math.round(idleShare * 100) / 100,
    playlistStatusPushMessages: messages,
  };
  console.log('\nPlaylist status: 100 flows × 100 jobs, 20 shared playlists × 20 jobs, 11 users');
  console.log(`  GET /api/playlists/status admin p50 ${out.playlistStatusAdminP50} ms, p95 ${out.playlistStatusAdminP95} ms; user p95 ${out.playlistStatusUserP95} ms  ≤ 25 ms ${Math.max(out.playlistStatusAdminP95, out.playlistStatusUserP95) <= 25 ? 'ok' : 'MISS'}`);
  console.log(`  in-process playlistStatus (admin, incl. JSON.stringify) p50 ${out.playlistStatusInProcessP50} ms`);
  console.log(`  50 sockets, pushes every 4 s for ${pushSeconds} s (a job changing every second): ${out.playlistStatusPushCpuPct} % of one core (idle ${out.playlistStatusIdleCpuPct} %), ${messages} messages  ≤ 5 % ${out.playlistStatusPushCpuPct <= 5 ? 'ok' : 'MISS'}`);
  console.log('  (the CPU share is the whole process: the server, the 50 clients in this process and the churn)');
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runFlowStatusBench();
  // A CLI run ends here (and writes its --cpu-prof profiles), whatever idle handle is left.
  process.exit(0);
}
