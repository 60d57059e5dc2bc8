/**
 * Flow planning (issue 14): a 100-track flow mixing all four sources (discover 40, library blend 20,
 * trending 20, focus 20 on two tags) for a user with 2,000 library artists, 5,000 library tracks,
 * 2,000 plays and a full discovery cache, against the Last.fm fake answering after 20 ms. Reports
 * the first plan (cold: top tracks fetched, within the per-plan budget) and the planning time from
 * the warm cache (target ≤ 1 s), with the upstream calls each made; then the status route and the
 * playlist_status push (bench/flowStatus.ts).
 */
import { sortName } from '../server/db/libraryText.js';
import { FlowPlanner } from '../server/domain/flows/planner.js';
import { startLastFmFake } from '../test/fakes/lastfm/index.js';
import { startTestServer } from '../test/helpers/server.js';
import { runFlowStatusBench } from './flowStatus.js';

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

export async function runFlowsBench(size = Number(process.env.BENCH_FLOW_SIZE ?? 100), repeat = Number(process.env.BENCH_REPEAT ?? 20)): Promise<Record<string, number>> {
  const libraryArtists = 2000;
  const songs = (name: string) => Array.from({ length: 20 }, (_, k) => ({ name: `${name} Song ${k + 1}`, playcount: 10_000 - k }));
  const seed = [];
  for (let i = 0; i < libraryArtists; i++)
    seed.push({ name: `Artist ${i}`, listeners: 1000 + (i % 500), tags: [`tag ${i % 10}`], topTracks: songs(`Artist ${i}`), similar: Array.from({ length: 20 }, (_, j) => ({ name: `New ${(i * 7 + j) % 3000}`, match: 1 - j / 20 })) });
  for (let i = 0; i < 3000; i++) seed.push({ name: `New ${i}`, listeners: 100_000 - i, tags: [`tag ${i % 10}`], topTracks: songs(`New ${i}`) });
  const lastfm = await startLastFmFake(seed);
  lastfm.faults.delayMs = 20;
  const server = await startTestServer({ env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } });
  const db = server.ctx.db;
  const now = Date.now();
  db.transaction(() => {
    const artist = db.prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, 0, 0, ?, 1)');
    for (let i = 0; i < libraryArtists; i++) artist.run(`name:artist ${i}`, `Artist ${i}`, sortName(`Artist ${i}`), 1 + (i % 30));
    const track = db.prepare('INSERT INTO library_tracks (identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available) VALUES (?, ?, ?, ?, ?, 0, 0, 1)');
    for (let i = 0; i < 5000; i++) {
      const a = `Artist ${i % libraryArtists}`;
      const t = `${a} Song ${1 + (i % 3)}`;
      track.run(`t:${i}`, t, sortName(t), a, sortName(a));
    }
    const play = db.prepare('INSERT INTO play_events (user_id, title, artist, played_at, created_at) VALUES (1, ?, ?, ?, ?)');
    for (let i = 0; i < 2000; i++) play.run(`New ${i % 3000} Song 2`, `New ${i % 3000}`, now - i * 60_000, now);
  })();
  await server.ctx.discovery.refreshUser(1);
  const input = {
    size,
    mix: { discover: 40, mix: 20, trending: 20, focus: 20 },
    tags: ['tag 1', 'tag 2'],
    relatedArtists: [],
    deepDive: false,
    includeLibraryTracks: false,
    onePerArtist: false,
    yearFrom: null,
    yearTo: null,
    ownerUserId: 1,
  };

  // Cold: top tracks are fetched (at most the per-plan budget); a second plan fills the rest of the cache.
  let t0 = performance.now();
  const cold = await new FlowPlanner(server.ctx).plan(input, { seed: 1 });
  const coldMs = performance.now() - t0;
  await new FlowPlanner(server.ctx).plan(input, { seed: 1 });
  const warm: number[] = [];
  let warmCalls = 0;
  let planned = 0;
  for (let i = 0; i < repeat; i++) {
    t0 = performance.now();
    const plan = await new FlowPlanner(server.ctx).plan(input, { seed: 1 });
    warm.push(performance.now() - t0);
    warmCalls += plan.calls;
    planned = plan.tracks.length;
  }
  await server.stop();
  await lastfm.close();

  const out = {
    flowPlanSize: size,
    flowPlanPlanned: planned,
    flowPlanColdMs: Math.round(coldMs),
    flowPlanColdCalls: cold.calls,
    flowPlanWarmP50: pct(warm, 0.5),
    flowPlanWarmMax: Math.round(Math.max(...warm) * 100) / 100,
    flowPlanWarmCalls: warmCalls,
  };
  console.log(`\nFlows: planning a ${size}-track flow (discover 40, library 20, trending 20, focus 20), ${libraryArtists} library artists, Last.fm fake at 20 ms`);
  console.log(`  cold ${out.flowPlanColdMs} ms with ${cold.calls} upstream calls; warm p50 ${out.flowPlanWarmP50} ms, max ${out.flowPlanWarmMax} ms (${warmCalls} calls), ${planned} tracks  ≤ 1000 ms ${out.flowPlanWarmMax <= 1000 ? 'ok' : 'MISS'}`);
  // The status route and the playlist_status push (bench/flowStatus.ts).
  return { ...out, ...(await runFlowStatusBench()) };
}

if (import.meta.url === `file://${process.argv[1]}`) await runFlowsBench();
