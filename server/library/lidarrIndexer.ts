import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import { refreshDerived } from '../db/libraryDerived.js';
import type { ScanCounts } from '../db/libraryScanRuns.js';
import { LibraryWriter } from '../db/libraryWrites.js';
import { LidarrIndexRepository } from '../db/lidarrIndex.js';
import type { Album, Artist, LidarrClient, Track, TrackFile } from '../integrations/lidarr/index.js';
import { audioMimeOf } from './audioFormats.js';
import { realPathWithin } from './libraryRoots.js';
import { mapLidarrPath, type PathMapping } from './lidarrPaths.js';

/**
 * Indexes Lidarr's library into the canonical store (media source `lidarr`), so Lidarr's tracks
 * browse and stream like scanned ones. A full run reads `/artist` once and skips every artist whose
 * fingerprint (statistics, path, monitoring, name) is unchanged since its last complete index; the
 * others cost three reads (`/album`, `/track`, `/trackfile` by artist). Files are checked on disk
 * (through the path mappings) with bounded concurrency. Each artist is written in one transaction
 * and its fingerprint stamped in it, so a run killed half-way redoes only the unstamped artists.
 */
export interface LidarrIndexOptions {
  runId: number;
  pathMappings: readonly PathMapping[];
  /** Index only these Lidarr artist ids (webhook, add/update routes); they are never skipped. */
  artistIds?: number[] | null;
  /** Re-index every artist even when its fingerprint is unchanged. */
  force?: boolean;
  statConcurrency?: number;
  artistConcurrency?: number;
  now?: () => number;
  onProgress?: (counts: LidarrIndexCounts) => void;
  shouldStop?: () => boolean;
}

export interface LidarrIndexCounts extends ScanCounts {
  artistsSeen: number;
  artistsIndexed: number;
  artistsSkipped: number;
  artistsRemoved: number;
  artistsFailed: number;
}

export interface LidarrIndexResult extends LidarrIndexCounts {
  errors: { path: string; reason: string }[];
}

export class LidarrIndexStoppedError extends Error {
  constructor() {
    super('Lidarr index stopped');
  }
}

const ROOT_PREFIX = 'lidarr-artist:';
const MAX_ERRORS = 200;
/** Above this many artists to read, one `/album` call for the whole library beats one per artist. */
const BULK_ALBUMS_THRESHOLD = 50;
/** Tracks written per transaction (whole artists; the fingerprint is stamped in the same one). */
const WRITE_BATCH_TRACKS = 2_000;

export function fingerprintOf(artist: Artist, mappings: readonly PathMapping[]): string {
  const s = artist.statistics ?? {};
  const parts = [
    artist.artistName,
    artist.path ?? '',
    artist.monitored ?? '',
    s.albumCount ?? '',
    s.trackCount ?? '',
    s.trackFileCount ?? '',
    s.sizeOnDisk ?? '',
    (artist as { lastInfoSync?: string }).lastInfoSync ?? '',
    JSON.stringify(mappings),
  ];
  return createHash('sha1').update(parts.join('\u0000')).digest('hex').slice(0, 20);
}

export async function indexLidarrLibrary(db: Db, client: LidarrClient, options: LidarrIndexOptions): Promise<LidarrIndexResult> {
  const now = options.now ?? Date.now;
  const writer = new LibraryWriter(db);
  const index = new LidarrIndexRepository(db);
  const counts: LidarrIndexCounts = {
    filesSeen: 0, filesIndexed: 0, filesSkipped: 0, filesFailed: 0, filesMissing: 0, filesMoved: 0,
    artistsSeen: 0, artistsIndexed: 0, artistsSkipped: 0, artistsRemoved: 0, artistsFailed: 0,
  };
  const errors: { path: string; reason: string }[] = [];
  const addError = (where: string, reason: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path: where, reason });
  };
  const statLimit = limiter(options.statConcurrency ?? 16);
  const rootExists = new Map<string, Promise<boolean>>();
  const scoped = options.artistIds != null;
  const stopCheck = () => {
    if (options.shouldStop?.()) throw new LidarrIndexStoppedError();
  };

  // Which artists exist in Lidarr now; a scoped artist that is gone (null) is removed below.
  const known = new Map(index.all().map((r) => [r.lidarrArtistId, r]));
  let artists: Artist[];
  const gone: number[] = [];
  if (scoped) {
    artists = [];
    for (const id of new Set(options.artistIds)) {
      const artist = await client.artist(id);
      if (artist) artists.push(artist);
      else gone.push(id);
    }
  } else {
    artists = await client.artists();
    const present = new Set(artists.map((a) => a.id));
    for (const id of known.keys()) if (!present.has(id)) gone.push(id);
  }

  for (const id of gone) {
    const row = known.get(id);
    inTransaction(db, () => {
      if (row?.canonicalArtistId != null) {
        counts.filesMissing += index.removeStale(writer, row.canonicalArtistId, id, null, null);
      }
      index.forget(id);
    });
    if (row) counts.artistsRemoved++;
  }

  const todo: Artist[] = [];
  for (const artist of artists) {
    counts.artistsSeen++;
    const fingerprint = fingerprintOf(artist, options.pathMappings);
    if (!scoped && !options.force && known.get(artist.id)?.fingerprint === fingerprint) {
      counts.artistsSkipped++;
      counts.filesSkipped += artist.statistics?.trackFileCount ?? 0;
      continue;
    }
    todo.push(artist);
  }

  let albumsByArtist: Map<number, Album[]> | null = null;
  if (todo.length >= BULK_ALBUMS_THRESHOLD) {
    albumsByArtist = new Map();
    for (const album of await client.albums()) {
      if (album.artistId === undefined) continue;
      const list = albumsByArtist.get(album.artistId) ?? [];
      list.push(album);
      albumsByArtist.set(album.artistId, list);
    }
  }

  /** The artist's Lidarr root folder as this computer sees it. */
  const localRootOf = (artist: Artist) => mapLidarrPath(artist.rootFolderPath ?? path.dirname(artist.path ?? '/'), options.pathMappings);
  const localRootExists = (artist: Artist): Promise<boolean> => {
    const root = localRootOf(artist);
    let found = rootExists.get(root);
    if (!found) {
      found = fs.promises.stat(root).then((s) => s.isDirectory(), () => false);
      rootExists.set(root, found);
    }
    return found;
  };

  let lastProgress = 0;
  const indexArtist = async (artist: Artist) => {
    const [albums, tracks, files] = await Promise.all([
      albumsByArtist ? Promise.resolve(albumsByArtist.get(artist.id) ?? []) : client.albumsByArtist(artist.id),
      client.tracks({ artistId: artist.id }),
      client.trackFiles({ artistId: artist.id }),
    ]);
    // A root folder that is not mounted here makes every file unavailable without a stat each.
    const mounted = await localRootExists(artist);
    const stats = new Map<number, fs.Stats | 'outside' | null>();
    const rootFolder = localRootOf(artist);
    await Promise.all(
      files.map((file) =>
        statLimit(async () => {
          const local = mapLidarrPath(file.path, options.pathMappings);
          const stat = mounted ? await fs.promises.stat(local).catch(() => null) : null;
          // A link out of the root folder is never served (see libraryRoots).
          stats.set(file.id, stat && !realPathWithin(local, [rootFolder]) ? 'outside' : stat);
        }),
      ),
    );
    stopCheck();
    pending.push(() => writeArtist(artist, albums, tracks, files, stats, rootFolder));
    pendingTracks += tracks.length;
    if (pendingTracks >= WRITE_BATCH_TRACKS) flush();
  };

  // Several small artists per transaction: a commit costs more than a hundred row writes.
  const pending: (() => void)[] = [];
  let pendingTracks = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const batch = pending.splice(0);
    pendingTracks = 0;
    inTransaction(db, () => {
      for (const write of batch) write();
    });
    counts.artistsIndexed += batch.length;
    const t = Date.now();
    if (options.onProgress && t - lastProgress >= 250) {
      lastProgress = t;
      options.onProgress({ ...counts });
    }
  };

  const writeArtist = (
    artist: Artist,
    albums: Album[],
    tracks: Track[],
    files: TrackFile[],
    stats: Map<number, fs.Stats | 'outside' | null>,
    rootFolder: string,
  ) => {
    const t = now();
    const root = `${ROOT_PREFIX}${artist.id}`;
    const artistId = writer.upsertArtist(
      {
        identityKey: `mbid:${artist.foreignArtistId}`,
        mbid: artist.foreignArtistId,
        name: artist.artistName,
        metadata: {
          source: 'lidarr',
          lidarrArtistId: artist.id,
          monitored: artist.monitored ?? null,
          path: artist.path ?? null,
          genres: artist.genres ?? [],
          artistType: artist.artistType ?? null,
          disambiguation: artist.disambiguation ?? null,
        },
      },
      t,
    );
    const albumIds = new Map<number, { id: number; album: Album }>();
    for (const album of albums) {
      const release = album.releases?.find((r) => r.monitored) ?? album.releases?.[0];
      const id = writer.upsertAlbum(
        {
          identityKey: `mbid:${album.foreignAlbumId}`,
          mbid: album.foreignAlbumId,
          releaseMbid: release?.foreignReleaseId ?? null,
          artistId,
          title: album.title,
          albumArtist: artist.artistName,
          releaseDate: album.releaseDate ? album.releaseDate.slice(0, 10) : null,
          albumType: album.albumType ?? null,
          secondaryTypes: album.secondaryTypes ?? [],
          monitored: album.monitored !== false,
          metadata: { source: 'lidarr', lidarrAlbumId: album.id, lidarrArtistId: artist.id },
        },
        t,
      );
      albumIds.set(album.id, { id, album });
    }
    const fileById = new Map(files.map((f) => [f.id, f]));
    const keepTracks = new Set<number>();
    for (const track of tracks) {
      const album = albumIds.get(track.albumId);
      if (!album) continue;
      const recording = track.foreignRecordingId ?? null;
      const trackNumber = track.absoluteTrackNumber ?? (Number.parseInt(track.trackNumber ?? '', 10) || 0);
      const trackId = writer.upsertTrack(
        {
          identityKey: recording ? `mbid:${recording}` : `lidarr-track:${track.id}`,
          mbid: recording,
          title: track.title ?? `Track ${trackNumber}`,
          artistName: artist.artistName,
          artistId,
          albumId: album.id,
          albumTitle: album.album.title,
          discNumber: track.mediumNumber ?? 1,
          trackNumber,
          year: album.album.releaseDate ? Number(album.album.releaseDate.slice(0, 4)) || 0 : 0,
          durationMs: track.duration ?? 0,
          genres: album.album.genres ?? artist.genres ?? [],
          monitored: album.album.monitored !== false,
          metadata: { source: 'lidarr', lidarrTrackId: track.id, lidarrAlbumId: track.albumId, lidarrArtistId: artist.id },
        },
        t,
      );
      keepTracks.add(trackId);
      const file = track.trackFileId ? fileById.get(track.trackFileId) : undefined;
      if (!file) continue;
      counts.filesSeen++;
      const local = mapLidarrPath(file.path, options.pathMappings);
      const found = stats.get(file.id) ?? null;
      const stat = found === 'outside' ? null : found;
      if (found === 'outside') {
        counts.filesFailed++;
        addError(local, 'symbolic link to a place outside the Lidarr root folder');
      } else if (!stat) {
        counts.filesMissing++;
        if (counts.filesMissing <= 20) addError(local, 'file not found on this computer (check the path mappings)');
      }
      const quality = file.quality?.quality?.name ?? null;
      const lossless = /flac|alac|wav|aiff|ape|wavpack/i.test(quality ?? path.extname(local));
      writer.upsertMediaFile(
        {
          source: 'lidarr',
          path: local,
          root,
          trackId,
          albumId: album.id,
          format: path.extname(local).slice(1).toLowerCase() || null,
          mime: audioMimeOf(local),
          codec: quality,
          size: stat?.size ?? file.size ?? 0,
          mtimeMs: stat?.mtimeMs ?? (file.dateAdded ? Date.parse(file.dateAdded) || 0 : 0),
          durationMs: track.duration ?? 0,
          lossless,
          available: stat !== null,
          scanId: options.runId,
        },
        t,
      );
      counts.filesIndexed++;
    }
    // Files Lidarr no longer lists for this artist, and tracks and albums it dropped.
    counts.filesMissing += writer.markMissingUnder('lidarr', root, options.runId, t);
    const keepAlbums = new Set([...albumIds.values()].map((a) => a.id));
    index.removeStale(writer, artistId, artist.id, keepTracks, keepAlbums);
    index.stamp(artist.id, artist.foreignArtistId, artistId, fingerprintOf(artist, options.pathMappings), t, rootFolder);
  };

  // A few artists in flight at once; the client caps requests, the limiter caps stats.
  const queue = [...todo];
  const runners = Array.from({ length: Math.min(options.artistConcurrency ?? 4, queue.length) }, async () => {
    for (let artist = queue.shift(); artist; artist = queue.shift()) {
      stopCheck();
      try {
        await indexArtist(artist);
      } catch (err) {
        if (err instanceof LidarrIndexStoppedError) throw err;
        counts.artistsFailed++;
        counts.filesFailed += artist.statistics?.trackFileCount ?? 0;
        addError(artist.path ?? artist.artistName, err instanceof Error ? err.message : String(err));
        // Lidarr is gone: the remaining artists would fail the same way.
        if ((err as { kind?: string }).kind === 'circuit_open') throw err;
      }
    }
  });
  try {
    await Promise.all(runners);
  } finally {
    // What was fetched before a failure or a stop is still written.
    flush();
  }
  refreshDerived(db);
  options.onProgress?.({ ...counts });
  return { ...counts, errors };
}

/** Runs at most `n` tasks at once. */
function limiter(n: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
