/**
 * Scrobble forwarding cost (issue 15): `/rest/scrobble` p95 for a user with no scrobbling links
 * against one linked to Last.fm, ListenBrainz and Koito (the fakes), BENCH_SCROBBLES calls each
 * (default 300). The forwarding writes outbox rows and queue jobs in the request; the target is that
 * it adds at most 2 ms to the p95 of the answer. A player scrobbles once per track, so calls are spaced
 * (BENCH_SCROBBLE_GAP_MS, default 30 ms, the same on both sides): the deliveries of one call, which run
 * in this process against fakes that also run in this process, finish before the next call is timed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeMp3Template, writeTaggedMp3 } from '../test/fixtures/audio.js';
import { startTestServer } from '../test/helpers/server.js';
import { RestClient, waitForScans } from '../test/rest/harness.js';
import { configureLastFm, createUser, linkAll, scrobbleEnv, startScrobbleFakes } from '../test/scrobbling/helpers.js';

const GAP_MS = Number(process.env.BENCH_SCROBBLE_GAP_MS ?? 30);

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
    const time = async (client: RestClient) => {
      const times: number[] = [];
      for (let i = 0; i < count + 10; i++) {
        const url = client.url('scrobble', { id: song, submission: true, time: Date.now() - i * 1000, f: 'json' });
        const t = performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        if (i >= 10) times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, GAP_MS));
      }
      return times;
    };
    // Interleaved runs, so a slower moment of the machine does not land on one side only.
    const plain: number[] = [];
    const linked: number[] = [];
    for (let round = 0; round < 3; round++) {
      plain.push(...(await time(clients.plain)));
      linked.push(...(await time(clients.linked)));
    }
    const plainP95 = pct(plain, 0.95);
    const linkedP95 = pct(linked, 0.95);
    const added = Math.round((linkedP95 - plainP95) * 100) / 100;
    console.log(`\nScrobble forwarding: /rest/scrobble p95 ${plainP95} ms without links, ${linkedP95} ms with three links`);
    console.log('scrobble forwarding adds (p95 ms)'.padEnd(40), String(added).padStart(8), ''.padStart(17), `  ≤ 2 ${added <= 2 ? 'ok' : 'MISS'}`);
    return { plainP95, linkedP95 };
  } finally {
    await server.stop();
    await fakes.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runScrobblingBench();
