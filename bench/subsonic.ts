/**
 * /rest benchmark cases, called by bench/index.ts against its seeded server:
 *
 *   rows.push(...(await benchSubsonic({ url: server.url, username, password, transcodeSongId })));
 *
 * Every case runs `repeat` times after two warm-up calls and reports p50/p95/p99 in ms against the
 * issue's targets. `transcodeSongId` (a song backed by a real audio file) enables the cached-transcode
 * first-byte case; without it that row is reported with pass null.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface SubsonicBenchTarget {
  url: string;
  username: string;
  password: string;
  transcodeSongId?: string;
  repeat?: number;
}

export interface SubsonicBenchRow {
  case: string;
  p50: number;
  p95: number;
  p99: number;
  target: string;
  pass: boolean | null;
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 100) / 100;
}

export async function benchSubsonic(t: SubsonicBenchTarget): Promise<SubsonicBenchRow[]> {
  const repeat = t.repeat ?? 60;
  const url = (method: string, params: Record<string, string | number> = {}) => {
    const salt = randomBytes(6).toString('hex');
    const q = new URLSearchParams({
      u: t.username,
      t: createHash('md5').update(t.password + salt).digest('hex'),
      s: salt,
      v: '1.16.1',
      c: 'bench',
      f: 'json',
    });
    for (const [k, v] of Object.entries(params)) q.set(k, String(v));
    return `${t.url}/rest/${method}?${q}`;
  };
  const call = async (method: string, params: Record<string, string | number> = {}) => {
    const res = await fetch(url(method, params));
    const body = (await res.json()) as { 'subsonic-response': Record<string, any> };
    const r = body['subsonic-response'];
    if (r.status !== 'ok') throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r;
  };

  const rows: SubsonicBenchRow[] = [];
  const measure = async (label: string, make: () => [string, Record<string, string | number>], targetMs: number, firstByte = false) => {
    const times: number[] = [];
    for (let i = 0; i < repeat + 2; i++) {
      const [method, params] = make();
      const started = performance.now();
      const res = await fetch(url(method, params));
      if (firstByte) {
        const reader = res.body!.getReader();
        await reader.read();
        if (i >= 2) times.push(performance.now() - started);
        await reader.cancel();
        continue;
      }
      await res.arrayBuffer();
      if (i >= 2) times.push(performance.now() - started);
    }
    const p95 = pct(times, 0.95);
    rows.push({ case: `/rest ${label}`, p50: pct(times, 0.5), p95, p99: pct(times, 0.99), target: `p95 <= ${targetMs} ms`, pass: p95 <= targetMs });
  };

  const genres = (await call('getGenres')).genres.genre as { value: string; albumCount: number }[];
  const genre = [...genres].sort((a, b) => b.albumCount - a.albumCount)[0]?.value ?? '';
  const anAlbum = (await call('getAlbumList2', { type: 'newest', size: 1 })).albumList2.album[0]?.id as string;
  const artistCount = (await call('getArtists')).artists.index.reduce((n: number, i: { artist: unknown[] }) => n + i.artist.length, 0);

  await measure('getAlbumList2 newest', () => ['getAlbumList2', { type: 'newest', size: 50 }], 25);
  await measure('getAlbumList2 random', () => ['getAlbumList2', { type: 'random', size: 50 }], 25);
  await measure('getAlbumList2 byGenre', () => ['getAlbumList2', { type: 'byGenre', genre, size: 50 }], 25);
  await measure('search3 term', () => ['search3', { query: 'kalo', artistCount: 20, albumCount: 20, songCount: 20 }], 50);
  await measure('search3 "" offset 0 (500 songs)', () => ['search3', { query: '""', artistCount: 0, albumCount: 0, songCount: 500, songOffset: 0 }], 50);
  await measure('search3 "" offset 500000 (500 songs)', () => ['search3', { query: '""', artistCount: 0, albumCount: 0, songCount: 500, songOffset: 500_000 }], 50);
  await measure(`getArtists (${artistCount} artists)`, () => ['getArtists', {}], 100);
  await measure(`getIndexes (${artistCount} artists)`, () => ['getIndexes', {}], 100);
  await measure('getGenres', () => ['getGenres', {}], 25);
  await measure('getAlbum', () => ['getAlbum', { id: anAlbum }], 25);
  await measure('getRandomSongs (10)', () => ['getRandomSongs', { size: 10 }], 25);

  if (t.transcodeSongId) {
    // The first request fills the cache; the measured ones are served from it.
    await (await fetch(url('stream', { id: t.transcodeSongId, format: 'mp3', maxBitRate: 128 }))).arrayBuffer();
    await new Promise((r) => setTimeout(r, 200));
    await measure('stream cached transcode, first byte', () => ['stream', { id: t.transcodeSongId!, format: 'mp3', maxBitRate: 128 }], 50, true);
  } else {
    rows.push({ case: '/rest stream cached transcode, first byte', p50: 0, p95: 0, p99: 0, target: 'p95 <= 50 ms', pass: null });
  }
  return rows;
}
