/**
 * Metadata layer: artist pages against MusicBrainz and Cover Art Archive fakes that answer in
 * 100 ms (BENCH_UPSTREAM_DELAY_MS) and refuse bursts over 1 request/s like MusicBrainz. Measures the
 * warm artist page, upstream calls of one cold page, and 20 concurrent cold pages: the request rate
 * MusicBrainz sees and /api/health/live meanwhile; then warm searches (artist and album scopes, and
 * as-you-type suggestions, whose library half searches the seeded library's full-text index).
 * BENCH_METADATA_PROVIDER=1 puts the Lidarr-format provider fake (same delay) in front of MusicBrainz.
 *
 * Part of `npm run bench` (on its seeded data folder), or on its own on a generated library:
 *   node --import tsx bench/metadata.ts            # BENCH_TRACKS tracks, 1,000,000 by default
 *   BENCH_TRACKS=250000 node --import tsx bench/metadata.ts
 * (BENCH_SEED_CACHE=<folder> keeps the seeded database for the next run; BENCH_REPEAT samples per case.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startCoverArtFake } from '../test/fakes/coverart/index.js';
import { startMetadataFake, type MetadataFake } from '../test/fakes/metadata/index.js';
import { startMusicBrainzFake, type FakeArtist } from '../test/fakes/musicbrainz/index.js';
import { startTestServer } from '../test/helpers/server.js';
import { seededLibrary } from './library.js';

const id = (n: number) => `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function catalogue(artists: number): FakeArtist[] {
  return Array.from({ length: artists }, (_, a) => ({
    id: id(a),
    name: `Bench Metadata Artist ${a}`,
    tags: ['rock'],
    releaseGroups: Array.from({ length: 20 }, (_, g) => ({
      id: id(100_000 + a * 100 + g),
      title: `Record ${g}`,
      primaryType: g % 4 === 0 ? 'Single' : 'Album',
      firstReleaseDate: `${2000 + g}-01-01`,
      releases: [{ id: id(500_000 + a * 100 + g), title: `Record ${g}`, tracks: [{ id: id(900_000 + a * 100 + g), recordingId: id(950_000 + a * 100 + g), title: 'Song', lengthMs: 200_000 }] }],
    })),
  }));
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
};

export async function runMetadataBench(dataDir: string, repeat = 60): Promise<Record<string, number>> {
  const delay = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 100);
  const mb = await startMusicBrainzFake(catalogue(21));
  mb.faults.delayMs = delay;
  // MusicBrainz's own rule, with a little slack for network jitter.
  mb.minSpacingMs = 950;
  const caa = await startCoverArtFake();
  caa.faults.delayMs = delay;
  let sky: MetadataFake | null = null;
  if (process.env.BENCH_METADATA_PROVIDER === '1') {
    sky = await startMetadataFake(catalogue(21));
    sky.faults.delayMs = delay;
  }
  const server = await startTestServer({
    dataDir,
    onboard: false,
    env: {
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_COVERART_URL: caa.url,
      TONEARM_SCAN_ON_START: '0',
      TONEARM_LIBRARY_WATCH: '0',
      ...(sky && { TONEARM_METADATA_URL: sky.url }),
    },
  });
  const headers = server.admin.headers;
  const page = async (n: number, mode = '') => {
    const t0 = performance.now();
    const res = await server.api(`/api/artists/${id(n)}${mode}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`artist page ${n}: HTTP ${res.status}`);
    return performance.now() - t0;
  };
  try {
    // One cold page: how many upstream requests per resource.
    const before = mb.requests.length;
    const skyBefore = sky?.requests.length ?? 0;
    const coldMs = await page(0);
    const cold = [...mb.requests.slice(before), ...(sky?.requests.slice(skyBefore) ?? [])].map((r) => `${r.path}?${r.query.get('offset') ?? ''}`);
    const perResource = Math.max(...Object.values(cold.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {})));

    // Warm pages.
    const warm: number[] = [];
    for (let i = 0; i < repeat; i++) warm.push(await page(0));

    // 20 concurrent cold pages while /api/health/live is polled.
    const start = mb.requests.length;
    const live: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        await (await server.api('/api/health/live')).arrayBuffer();
        live.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 20 }, (_, i) => page(i + 1, '?mode=core')));
    const concurrentSeconds = (performance.now() - t0) / 1000;
    polling = false;
    await poller;
    const times = mb.requests.slice(start).map((r) => r.at);
    let maxPerSecond = 0;
    for (let i = 0; i < times.length; i++) maxPerSecond = Math.max(maxPerSecond, times.filter((t) => t >= times[i]! && t < times[i]! + 1000).length);
    const rateLimited = mb.requests.length - start - times.length;

    // Warm searches: each asked once cold (MusicBrainz, then the search cache), then repeatedly.
    const search = async (pathname: string) => {
      const t0 = performance.now();
      const res = await server.api(pathname, { headers });
      const body = (await res.json()) as { remote?: { status: string } };
      if (res.status !== 200) throw new Error(`${pathname}: HTTP ${res.status}`);
      return { ms: performance.now() - t0, body };
    };
    const warmSearch = async (pathname: string) => {
      await search(pathname);
      const samples: number[] = [];
      for (let i = 0; i < repeat; i++) samples.push((await search(pathname)).ms);
      return samples;
    };
    const searchArtist = await warmSearch(`/api/search?scope=artist&q=${encodeURIComponent('Bench Metadata Artist')}&limit=25`);
    const searchAlbum = await warmSearch('/api/search?scope=album&q=Record&limit=25');
    // Suggestions: the library part is the seeded library's full-text search; the remote part is
    // warm once MusicBrainz's answer is in the search cache.
    const suggest = `/api/search/unified?q=kalo&limit=5`;
    for (let i = 0; i < 50 && (await search(suggest)).body.remote?.status !== 'complete'; i++) await new Promise((r) => setTimeout(r, 200));
    const searchUnified = await warmSearch(suggest);

    const out = {
      coldArtistPageMs: Math.round(coldMs),
      coldUpstreamCallsPerResource: perResource,
      warmArtistPageP50Ms: pct(warm, 0.5),
      warmArtistPageP95Ms: pct(warm, 0.95),
      concurrentColdPagesSeconds: Math.round(concurrentSeconds * 10) / 10,
      musicbrainzMaxRequestsPerSecond: maxPerSecond,
      healthLiveP99Ms: pct(live, 0.99),
      rateLimitedAnswers: rateLimited,
      searchArtistP50Ms: pct(searchArtist, 0.5),
      searchArtistP95Ms: pct(searchArtist, 0.95),
      searchAlbumP95Ms: pct(searchAlbum, 0.95),
      searchUnifiedP50Ms: pct(searchUnified, 0.5),
      searchUnifiedP95Ms: pct(searchUnified, 0.95),
      ...(sky && { providerRequests: sky.requests.length }),
    };
    console.log(`\nMetadata (fakes answer in ${delay} ms, MusicBrainz refuses > 1 request/s${sky ? ', Lidarr-format provider first' : ''})`);
    const row = (label: string, value: number, target: string, pass: boolean) =>
      console.log(label.padEnd(40), String(value).padStart(8), ''.padStart(17), `  ${target} ${pass ? 'ok' : 'MISS'}`);
    row('cold artist page: calls per resource', perResource, '≤ 1', perResource <= 1);
    row('warm artist page p95 ms', out.warmArtistPageP95Ms, '≤ 25', out.warmArtistPageP95Ms <= 25);
    console.log('warm artist page p50 ms'.padEnd(40), String(out.warmArtistPageP50Ms).padStart(8));
    row('20 cold pages: MusicBrainz req/s max', maxPerSecond, '≤ 1', maxPerSecond <= 1);
    row('20 cold pages: /api/health/live p99 ms', out.healthLiveP99Ms, '≤ 20', out.healthLiveP99Ms <= 20);
    console.log('20 cold pages took'.padEnd(40), String(out.concurrentColdPagesSeconds).padStart(8), 's');
    row('warm search (artists) p95 ms', out.searchArtistP95Ms, '≤ 25', out.searchArtistP95Ms <= 25);
    row('warm search (albums) p95 ms', out.searchAlbumP95Ms, '≤ 25', out.searchAlbumP95Ms <= 25);
    row('suggestions (library FTS + warm) p95 ms', out.searchUnifiedP95Ms, '≤ 25', out.searchUnifiedP95Ms <= 25);
    return out;
  } finally {
    await server.stop();
    await mb.close();
    await caa.close();
    await sky?.close();
  }
}

/** On its own: seeds a BENCH_TRACKS-track library (1,000,000 by default), runs, and writes JSON under bench-results/. */
async function main(): Promise<void> {
  const tracks = Number(process.env.BENCH_TRACKS ?? 1_000_000);
  const repeat = Number(process.env.BENCH_REPEAT ?? 60);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-bench-metadata-'));
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir);
  try {
    const t0 = performance.now();
    const seeded = await seededLibrary(dataDir, tracks);
    const seedSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const load = os.loadavg().map((l) => l.toFixed(2));
    const figures = await runMetadataBench(dataDir, repeat);
    console.log(`\n${tracks}-track library (seeded in ${seedSeconds} s), ${os.cpus().length} CPUs, load ${load.join(' ')} at start, ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at end`);
    fs.mkdirSync('bench-results', { recursive: true });
    const out = path.join('bench-results', `metadata-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, JSON.stringify({ tracks, seedSeconds, ...seeded, loadAverage: { start: load, end: os.loadavg().map((l) => l.toFixed(2)) }, ...figures }, null, 2));
    console.log(`written ${out}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
