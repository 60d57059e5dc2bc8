/**
 * Discovery refresh (issue 13): a user with BENCH_DISCOVERY_ARTISTS (default 10,000) library artists
 * and BENCH_DISCOVERY_HISTORY (default 2,000) artists in the local play history, against the Last.fm
 * fake answering after 50 ms. Reports the full refresh time and the upstream calls (bounded by the
 * per-refresh budget, not by the library), `GET /api/discover` p95 from the cache (target ≤ 25 ms)
 * and `/api/health/live` p99 while a refresh runs (target ≤ 20 ms).
 */
import { DISCOVERY_CALL_BUDGET } from '../server/domain/discovery/refresh.js';
import { startLastFmFake } from '../test/fakes/lastfm/index.js';
import { startTestServer } from '../test/helpers/server.js';

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

export async function runDiscoveryBench(
  libraryArtists = Number(process.env.BENCH_DISCOVERY_ARTISTS ?? 10_000),
  historyArtists = Number(process.env.BENCH_DISCOVERY_HISTORY ?? 2_000),
  repeat = Number(process.env.BENCH_REPEAT ?? 60),
): Promise<Record<string, number>> {
  // Every library and history artist is known to Last.fm with 30 similar artists, half of them new.
  const seed = [];
  for (let i = 0; i < Math.max(libraryArtists, historyArtists); i++)
    seed.push({ name: `Artist ${i}`, tags: [`tag ${i % 40}`], listeners: 100_000 - i, similar: Array.from({ length: 30 }, (_, j) => ({ name: j % 2 ? `Artist ${(i + j) % libraryArtists}` : `New ${(i * 7 + j) % 20_000}`, match: 1 - j / 30 })) });
  const lastfm = await startLastFmFake(seed);
  lastfm.faults.delayMs = 50;
  const server = await startTestServer({ env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } });
  const db = server.ctx.db;
  const now = Date.now();
  db.transaction(() => {
    const artist = db.prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, 0, 0, ?, 1)');
    for (let i = 0; i < libraryArtists; i++) artist.run(`name:artist ${i}`, `Artist ${i}`, `artist ${i}`, 1 + (i % 30));
    const play = db.prepare('INSERT INTO play_events (user_id, title, artist, played_at, created_at) VALUES (1, ?, ?, ?, ?)');
    for (let i = 0; i < historyArtists; i++) for (let k = 0; k < 1 + (i % 5); k++) play.run(`Song ${k}`, `Artist ${(i * 3) % Math.max(libraryArtists, historyArtists)}`, now - k * 60_000, now);
  })();

  // /api/health/live while the refresh runs.
  const live: number[] = [];
  let refreshing = true;
  const probe = (async () => {
    while (refreshing) {
      const s = performance.now();
      await (await server.api('/api/health/live')).arrayBuffer();
      live.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const before = lastfm.requests.length;
  const t0 = performance.now();
  const result = await server.ctx.discovery.refreshUser(1);
  const refreshMs = performance.now() - t0;
  refreshing = false;
  await probe;
  const calls = lastfm.requests.length - before;

  const samples: number[] = [];
  for (let i = 0; i < repeat + 5; i++) {
    const s = performance.now();
    const res = await server.api('/api/discover?limit=50', { token: server.admin.token });
    if (!res.ok) throw new Error(`/api/discover: ${res.status}`);
    await res.arrayBuffer();
    if (i >= 5) samples.push(performance.now() - s);
  }
  await server.stop();
  await lastfm.close();

  const out = {
    discoveryLibraryArtists: libraryArtists,
    discoveryHistoryArtists: historyArtists,
    discoveryRefreshMs: Math.round(refreshMs),
    discoveryUpstreamCalls: calls,
    discoveryRecommendations: result.recommendations,
    discoverP50: pct(samples, 0.5),
    discoverP95: pct(samples, 0.95),
    healthLiveDuringRefreshP99: pct(live, 0.99),
  };
  console.log(`\nDiscovery: ${libraryArtists} library artists, ${historyArtists} history artists, Last.fm fake at 50 ms`);
  console.log(`  full refresh ${out.discoveryRefreshMs} ms, ${calls} upstream calls (budget ${DISCOVERY_CALL_BUDGET}) ${calls <= DISCOVERY_CALL_BUDGET ? 'ok' : 'MISS'}, ${result.recommendations} recommendations`);
  console.log(`  GET /api/discover p50 ${out.discoverP50} p95 ${out.discoverP95} ms  ≤ 25 ms ${out.discoverP95 <= 25 ? 'ok' : 'MISS'}`);
  console.log(`  /api/health/live during the refresh p99 ${out.healthLiveDuringRefreshP99} ms  ≤ 20 ms ${out.healthLiveDuringRefreshP99 <= 20 ? 'ok' : 'MISS'}`);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await runDiscoveryBench();
