/**
 * Scrobble forwarding cost (issue 15): `/rest/scrobble` p95 for a user with no scrobbling links
 * against one linked to Last.fm, ListenBrainz and Koito (the fakes), 3 × BENCH_SCROBBLES calls each
 * (default 300), alternating call by call so a busy moment of the (shared) machine lands on both sides
 * alike. The target is that forwarding adds at most 2 ms to the p95 of the answer as a player sees it.
 * Also printed: the server's own time from the request to writing the answer (`res.end`), per side.
 *
 * What is measured, and why this way:
 * - The player is a worker thread with its own event loop: it times fetch → body read, as a player on
 *   another machine would. The server, the fakes and the deliveries run on this (main) thread. A
 *   client on the server's own event loop would also be charged for work the server does after the
 *   answer is on the wire (queuing the deliveries, talking to the fakes, which are in this process),
 *   work a real player never waits for; the earlier version of this bench timed exactly that.
 * - A player scrobbles once per track, minutes apart: before the next timed call the bench waits until
 *   the outbox has no pending row (the deliveries of the last call reached the fakes, or not at all for
 *   the plain user), then BENCH_SCROBBLE_GAP_MS (default 30 ms). Both sides get the same wait, so a call
 *   never overlaps the deliveries of the previous one; a delivery that stalled would show as a timeout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { makeMp3Template, writeTaggedMp3 } from '../test/fixtures/audio.js';
import { startTestServer } from '../test/helpers/server.js';
import { RestClient, waitForScans } from '../test/rest/harness.js';
import { configureLastFm, createUser, linkAll, scrobbleEnv, startScrobbleFakes } from '../test/scrobbling/helpers.js';

const GAP_MS = Number(process.env.BENCH_SCROBBLE_GAP_MS ?? 30);
/** The player: times each URL it is sent (fetch and body), answers with the milliseconds. Plain JS, no imports. */
const PLAYER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', async (url) => {
  const t = performance.now();
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    parentPort.postMessage(res.ok ? performance.now() - t : -res.status);
  } catch {
    parentPort.postMessage(-1);
  }
});`;

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

export async function runScrobblingBench(count = Number(process.env.BENCH_SCROBBLES ?? 300)): Promise<{ plainP95: number; linkedP95: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-scrobble-'));
  writeTaggedMp3(path.join(dir, 'music', 'A', 'B', '01 T.mp3'), makeMp3Template(dir, 1), { title: 'T', artist: 'A', album: 'B', albumArtist: 'A', track: 1 });
  const fakes = await startScrobbleFakes();
  const server = await startTestServer({ musicDirs: [path.join(dir, 'music')], env: { ...scrobbleEnv(fakes), TONEARM_LIBRARY_WATCH: '0', RATE_LIMIT_MAX: '100000000' } });
  try {
    await waitForScans(server);
    await configureLastFm(server, fakes);
    await createUser(server, 'plain');
    const linkedToken = await createUser(server, 'linked');
    await linkAll(server, fakes, linkedToken, 'linked');
    const clients = { plain: new RestClient(server, { username: 'plain', password: 'plain-password-1' }), linked: new RestClient(server, { username: 'linked', password: 'linked-password-1' }) };
    const song = (await clients.plain.ok('search3', { query: 'T', artistCount: 0, albumCount: 0 })).searchResult3.song[0].id as string;
    const player = new Worker(PLAYER, { eval: true });
    const played = (url: string) =>
      new Promise<number>((resolve) => {
        player.once('message', resolve);
        player.postMessage(url);
      });
    const pending = server.ctx.db.prepare("SELECT COUNT(*) FROM scrobble_deliveries WHERE status = 'pending'").pluck();
    const drained = async () => {
      const end = Date.now() + 10_000;
      while ((pending.get() as number) > 0) {
        if (Date.now() > end) throw new Error('the deliveries of a scrobble did not finish within 10 s');
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    // The server's time from the request to writing the answer, for the call being timed.
    let written: number | null = null;
    server.http.prependListener('request', (req: { url?: string }, res: { end: (...args: unknown[]) => unknown }) => {
      if (!req.url?.startsWith('/rest/scrobble')) return;
      const t = performance.now();
      const end = res.end.bind(res);
      res.end = (...args: unknown[]) => {
        written = performance.now() - t;
        return end(...args);
      };
    });
    const plain = { player: [] as number[], server: [] as number[] };
    const linked = { player: [] as number[], server: [] as number[] };
    const call = async (client: RestClient, i: number, into: typeof plain) => {
      written = null;
      const ms = await played(client.url('scrobble', { id: song, submission: true, time: Date.now() - i * 1000, f: 'json' }));
      if (ms < 0) throw new Error(`/rest/scrobble failed (${-ms})`);
      if (i >= 10) {
        into.player.push(ms);
        into.server.push(written ?? NaN);
      }
      await drained();
      await new Promise((r) => setTimeout(r, GAP_MS));
    };
    for (let i = 0; i < 3 * count + 10; i++) {
      await call(clients.plain, i, plain);
      await call(clients.linked, i, linked);
    }
    await player.terminate();
    const plainP95 = pct(plain.player, 0.95);
    const linkedP95 = pct(linked.player, 0.95);
    const added = Math.round((linkedP95 - plainP95) * 100) / 100;
    const delivered = server.ctx.db.prepare("SELECT COUNT(*) FROM scrobble_deliveries WHERE status = 'delivered' AND kind = 'scrobble'").pluck().get() as number;
    console.log(`\nScrobble forwarding: /rest/scrobble p95 ${plainP95} ms without links, ${linkedP95} ms with three links (p50 ${pct(plain.player, 0.5)} / ${pct(linked.player, 0.5)}); server to res.end p50 ${pct(plain.server, 0.5)} / ${pct(linked.server, 0.5)}, p95 ${pct(plain.server, 0.95)} / ${pct(linked.server, 0.95)}; ${delivered} deliveries; load ${os.loadavg()[0]!.toFixed(2)}`);
    console.log('scrobble forwarding adds (p95 ms)'.padEnd(40), String(added).padStart(8), ''.padStart(17), `  ≤ 2 ${added <= 2 ? 'ok' : 'MISS'}`);
    return { plainP95, linkedP95 };
  } finally {
    await server.stop();
    await fakes.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runScrobblingBench();
