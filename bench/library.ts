/**
 * The synthetic library every benchmark reads: `tracks` tracks on tracks/10 albums by tracks/100
 * artists in 300 genres, with Latin and non-Latin names, seeded straight through the store's writer
 * into a data folder a test server has created and onboarded. Shared by `bench/index.ts` (the
 * library benchmark) and `bench/metadata.ts` when it runs on its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../server/db/connection.js';
import { rebuildDerived } from '../server/db/libraryDerived.js';
import { LibraryWriter } from '../server/db/libraryWrites.js';
import { ADMIN, startTestServer } from '../test/helpers/server.js';

export function libraryShape(tracks: number) {
  return { tracks, albums: Math.max(1, Math.round(tracks / 10)), artists: Math.max(1, Math.round(tracks / 100)), genres: 300 };
}

/** Bumped whenever the seeded data changes (v2: names without negative syllable indexes). */
const SEED_VERSION = 'v2';
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ne', 'to', 'su', 'vi', 'an', 'el', 'or', 'ix'];
const NON_LATIN = ['東京', '夜明け', 'サクラ', 'Москва', 'Ночь', 'Ωμέγα', 'ללא', 'سماء', '서울', 'Björk', 'Sigur Rós', 'Motörhead'];
export function benchName(seed: number, words: number): string {
  const out: string[] = [];
  let x = seed * 2654435761 >>> 0;
  for (let w = 0; w < words; w++) {
    if (x % 7 === 0) out.push(NON_LATIN[x % NON_LATIN.length]!);
    else out.push(SYLLABLES[x % 12]! + SYLLABLES[(x >>> 4) % 12]! + SYLLABLES[(x >>> 8) % 12]!);
    x = (x * 1103515245 + 12345) >>> 0;
  }
  const s = out.join(' ');
  return s[0]!.toUpperCase() + s.slice(1);
}
const name = benchName;

/**
 * Seeds through the store's writer in large transactions, then builds every derived column, genre
 * membership and search document once, set-based (rebuildDerived), instead of entity by entity.
 */
function seed(dbPath: string, tracks: number): { seedInsertSeconds: number; seedDerivedSeconds: number } {
  const { albums: ALBUMS, artists: ARTISTS, genres: GENRES } = libraryShape(tracks);
  const db = openDatabase(dbPath);
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -524288');
  const w = new LibraryWriter(db);
  const t0 = performance.now();
  const genreNames = Array.from({ length: GENRES }, (_, i) => `${name(i + 7, 1)} ${i}`);
  const artistIds: number[] = [];
  const albumIds: number[] = [];
  db.transaction(() => {
    for (let a = 0; a < ARTISTS; a++) artistIds.push(w.upsertArtist({ identityKey: `bench:artist:${a}`, mbid: `bench-artist-${a}`, name: `${name(a, 2)} ${a}` }, 1_600_000_000_000 + a));
    for (let b = 0; b < ALBUMS; b++) {
      const artist = b % ARTISTS;
      albumIds.push(w.upsertAlbum({ identityKey: `bench:album:${b}`, mbid: `bench-album-${b}`, artistId: artistIds[artist]!, title: name(b + 1_000_000, 3), albumArtist: `${name(artist, 2)} ${artist}`, releaseDate: String(1960 + (b % 60)) }, 1_600_000_000_000 + b));
    }
  })();
  const batch = 50_000;
  for (let start = 0; start < tracks; start += batch) {
    db.transaction(() => {
      for (let t = start; t < Math.min(tracks, start + batch); t++) {
        const album = t % ALBUMS;
        const artist = album % ARTISTS;
        const now = 1_600_000_000_000 + t * 1000;
        const trackId = w.upsertTrack({
          identityKey: `bench:track:${t}`, mbid: `bench-track-${t}`, title: name(t + 5_000_000, 3), artistName: `${name(artist, 2)} ${artist}`,
          artistId: artistIds[artist]!, albumId: albumIds[album]!, albumTitle: name(album + 1_000_000, 3), trackNumber: Math.floor(t / ALBUMS) + 1,
          durationMs: 200_000, genres: [genreNames[Math.floor(Math.abs(Math.sin(album + 1)) * GENRES) % GENRES]!],
        }, now);
        w.upsertMediaFile({ source: t % 5 === 0 ? 'lidarr' : 'aurral', path: `/bench/${t}.flac`, root: '/bench', trackId, albumId: albumIds[album]!, format: 'flac', mime: 'audio/flac', size: 30_000_000, mtimeMs: now, lossless: true }, now);
      }
    })();
    if (start % 200_000 === 0) process.stdout.write(`  ${Math.min(tracks, start + batch)} tracks written (${Math.round((performance.now() - t0) / 1000)} s)\n`);
  }
  const seedInsertSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const t1 = performance.now();
  rebuildDerived(db);
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const seedDerivedSeconds = Math.round((performance.now() - t1) / 100) / 10;
  db.close();
  return { seedInsertSeconds, seedDerivedSeconds };
}

/**
 * Puts a seeded database of `tracks` tracks into `dataDir`: made once under BENCH_SEED_CACHE (when
 * set) and copied for each run, since a run's scan writes into it. The seeding times, or null when
 * the database came from the cache.
 */
export async function seededLibrary(dataDir: string, tracks: number): Promise<{ seedInsertSeconds: number; seedDerivedSeconds: number } | null> {
  const cacheDir = process.env.BENCH_SEED_CACHE;
  // The name carries the seed's version: a cache made by an older seed is not reused.
  const cached = cacheDir ? path.join(cacheDir, `library-${SEED_VERSION}-${tracks}.db`) : null;
  if (cached && fs.existsSync(cached)) {
    fs.copyFileSync(cached, path.join(dataDir, 'tonearm.db'));
    console.log(`seeded database copied from ${cached}`);
    // This data folder has new keys: store the administrator's password again, so its encrypted
    // copy (used by /rest token and password auth) is readable with them.
    const server = await startTestServer({ dataDir, env: { TONEARM_SCAN_ON_START: 'false' } });
    const me = (await (await server.api('/api/auth/me', { headers: server.admin.headers })).json()) as { user: { id: number } };
    await server.api(`/api/users/${me.user.id}`, { method: 'PATCH', json: { password: ADMIN.password }, headers: server.admin.headers });
    await server.stop();
    return null;
  }
  const setup = await startTestServer({ dataDir });
  await setup.stop();
  const shape = libraryShape(tracks);
  console.log(`seeding ${tracks} tracks, ${shape.albums} albums, ${shape.artists} artists, ${shape.genres} genres …`);
  const times = seed(path.join(dataDir, 'tonearm.db'), tracks);
  console.log(`seeded in ${times.seedInsertSeconds} s + derived ${times.seedDerivedSeconds} s`);
  if (cached) {
    fs.mkdirSync(cacheDir!, { recursive: true });
    fs.copyFileSync(path.join(dataDir, 'tonearm.db'), cached);
  }
  return times;
}
