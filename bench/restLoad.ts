/**
 * Subsonic request load for the benchmarks that drive a server only through /rest: bench/versus.ts
 * (Tonearm against supysonic on the same generated library) and bench/memory.ts (what memory the
 * server keeps after it). Everything goes over real HTTP with `u` + `p=enc:…`, which every Subsonic
 * server accepts, so the same calls run against any of them.
 */
import http from 'node:http';

export interface RestTarget {
  url: string;
  username: string;
  password: string;
}

/** Ids and names to ask for, taken from the server itself. */
export interface Catalog {
  albumIds: string[];
  songIds: string[];
  /** Words that match something in the generated library (bench/idleMemory.ts generateMusic). */
  queries: string[];
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  errors: number;
}

/** One request's kind: a Subsonic method and its parameters for the i-th call. */
export type RestCase = (i: number) => [method: string, params: Record<string, string | number>];

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function restUrl(t: RestTarget, method: string, params: Record<string, string | number> = {}): string {
  const q = new URLSearchParams({ u: t.username, p: `enc:${Buffer.from(t.password).toString('hex')}`, v: '1.10.2', c: 'bench', f: 'json' });
  for (const [k, v] of Object.entries(params)) q.set(k, String(v));
  return `${t.url}/rest/${method}?${q}`;
}

/** GETs a URL to its end over a keep-alive socket; status and bytes. */
export function get(url: string): Promise<{ status: number; bytes: number; body: Buffer | null }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: keepAlive }, (res) => {
        const keep = !(res.headers['content-type'] ?? '').startsWith('audio');
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: keep ? Buffer.concat(chunks) : null }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function restCall(t: RestTarget, method: string, params: Record<string, string | number> = {}): Promise<Record<string, any>> {
  const res = await get(restUrl(t, method, params));
  const r = (JSON.parse(String(res.body)) as { 'subsonic-response': Record<string, any> })['subsonic-response'];
  if (r.status !== 'ok') throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r;
}

const list = <T>(v: T | T[] | undefined): T[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** The words search3 is asked for in the generated library (bench/idleMemory.ts generateMusic). */
export const GENERATED_QUERIES = ['Scan Album 1', 'Track 7', 'Artist 42', 'Scan Track 123', 'Album 19'];

/** Up to 500 albums and 500 songs of the server's library, found through getAlbumList2 and getRandomSongs. */
export async function catalogOf(t: RestTarget, queries = GENERATED_QUERIES): Promise<Catalog> {
  const albums = list((await restCall(t, 'getAlbumList2', { type: 'alphabeticalByName', size: 500 })).albumList2?.album) as { id: string }[];
  const songs = list((await restCall(t, 'getRandomSongs', { size: 500 })).randomSongs?.song) as { id: string; title: string }[];
  if (albums.length === 0 || songs.length === 0) throw new Error(`${t.url}: no albums or songs to ask for (${albums.length} albums, ${songs.length} songs)`);
  return { albumIds: albums.map((a) => a.id), songIds: songs.filter((s) => s.title !== 'Big').map((s) => s.id), queries };
}

/** The single-method cases of the comparison, each cycling through the catalog. */
export function restCases(c: Catalog): Record<string, RestCase> {
  return {
    search3: (i) => ['search3', { query: c.queries[i % c.queries.length]!, artistCount: 20, albumCount: 20, songCount: 20 }],
    getAlbumList2: (i) => ['getAlbumList2', { type: ['newest', 'alphabeticalByName', 'random'][i % 3]!, size: 50 }],
    getAlbum: (i) => ['getAlbum', { id: c.albumIds[(i * 7) % c.albumIds.length]! }],
    getArtists: () => ['getArtists', {}],
    getRandomSongs: () => ['getRandomSongs', { size: 10 }],
  };
}

/**
 * A player-like mix: browsing, searching, song details and whole (small) song streams (`stream:
 * false` leaves those out, for a library whose files are not on disk).
 */
export function mixedCase(c: Catalog, options: { stream?: boolean } = {}): RestCase {
  const cases = restCases(c);
  const mix: RestCase[] = [
    cases.getAlbumList2!, cases.getAlbum!, cases.getAlbum!, cases.search3!, cases.getRandomSongs!,
    (i) => ['getSong', { id: c.songIds[(i * 13) % c.songIds.length]! }],
    ...(options.stream === false ? [] : [(i: number): ReturnType<RestCase> => ['stream', { id: c.songIds[(i * 11) % c.songIds.length]!, format: 'raw' }]]),
    cases.getArtists!,
  ];
  return (i) => mix[i % mix.length]!(Math.floor(i / mix.length));
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 10) / 10;
}

/**
 * `count` requests made by `concurrency` clients back to back. Statuses other than 200 count as
 * errors (a Subsonic error would still be 200 with `status: failed`; the answers are not parsed
 * here, so that parsing does not weigh on the client side of the measurement).
 */
export async function closedLoop(t: RestTarget, make: RestCase, concurrency: number, count: number): Promise<LoadResult> {
  const times: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const [method, params] = make(next++);
        const t0 = performance.now();
        const res = await get(restUrl(t, method, params)).catch(() => ({ status: 0 }));
        times.push(performance.now() - t0);
        if (res.status !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { requests: count, seconds, perSecond: Math.round(count / seconds), p50: pct(times, 0.5), p95: pct(times, 0.95), errors };
}

/**
 * An open loop: `perSecond` requests started every second for `seconds`, whether or not the earlier
 * ones have been answered (as many players would), at most 256 in flight.
 */
export async function openLoop(t: RestTarget, make: RestCase, perSecond: number, seconds: number): Promise<LoadResult> {
  const times: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const total = perSecond * seconds;
  while (sent < total) {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (sent < Math.min(due, total) && inFlight.size < 256) {
      const [method, params] = make(sent++);
      const t0 = performance.now();
      const p: Promise<void> = get(restUrl(t, method, params))
        .then((res) => {
          if (res.status !== 200) errors++;
        }, () => void errors++)
        .finally(() => {
          times.push(performance.now() - t0);
          inFlight.delete(p);
        });
      inFlight.add(p);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  return { requests: total, seconds: elapsed, perSecond: Math.round(total / elapsed), p50: pct(times, 0.5), p95: pct(times, 0.95), errors };
}

/** Median MB/s of reading one song `reads` times through /rest/stream?format=raw. */
export async function streamThroughput(t: RestTarget, songId: string, expectedBytes: number, reads: number): Promise<number> {
  const rates: number[] = [];
  await get(restUrl(t, 'stream', { id: songId, format: 'raw' }));
  for (let i = 0; i < reads; i++) {
    const t0 = performance.now();
    const res = await get(restUrl(t, 'stream', { id: songId, format: 'raw' }));
    if (res.bytes !== expectedBytes) throw new Error(`${t.url}: streamed ${res.bytes} of ${expectedBytes} bytes`);
    rates.push(res.bytes / 1048576 / ((performance.now() - t0) / 1000));
  }
  return Math.round([...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!);
}
