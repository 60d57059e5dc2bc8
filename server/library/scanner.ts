import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import { refreshDerived } from '../db/libraryDerived.js';
import { recordImage } from '../db/libraryImages.js';
import { scanRuns, type ScanCounts, type ScanError, type ScanMode } from '../db/libraryScanRuns.js';
import { nameKey } from '../db/libraryText.js';
import { LibraryWriter, type KnownMediaFile } from '../db/libraryWrites.js';
import { audioMimeOf } from './audioFormats.js';
import { contentFingerprint } from './fingerprint.js';
import { ImageCache, imageMimeOf } from './imageCache.js';
import { readFileTags, type FileTags } from './tags.js';
import { walkMusicFolder } from './walk.js';

export interface ScanOptions {
  runId: number;
  mode: ScanMode;
  roots: string[];
  imageDir: string;
  now?: () => number;
  /** Called at most every `progressMs` with the running counts. */
  onProgress?: (counts: ScanCounts) => void;
  progressMs?: number;
  /** Files per write transaction. */
  batchSize?: number;
  /** Concurrent tag reads. */
  concurrency?: number;
  /** Checked between batches; true stops the scan (the run stays `running` for the next start). */
  shouldStop?: () => boolean;
  /** Test hook: called after each committed batch (a test kills the scan here). */
  afterBatch?: (counts: ScanCounts) => void;
}

export interface ScanResult extends ScanCounts {
  errors: ScanError[];
}

const MAX_ERRORS = 200;

export class ScanStoppedError extends Error {
  constructor() {
    super('scan stopped');
  }
}

/**
 * Scans the music folders into the canonical store (source `aurral`). Quick mode skips files whose
 * size and mtime are unchanged; full mode re-reads everything. Writes go in batched transactions;
 * files not seen under a readable root are marked unavailable at the end, never deleted. Runs on
 * the connection it is given (the scan worker's own).
 */
export async function scanLibrary(db: Db, options: ScanOptions): Promise<ScanResult> {
  const now = options.now ?? Date.now;
  const writer = new LibraryWriter(db);
  const images = new ImageCache(options.imageDir);
  const batchSize = options.batchSize ?? 250;
  const concurrency = options.concurrency ?? 6;
  const counts: ScanCounts = { filesSeen: 0, filesIndexed: 0, filesSkipped: 0, filesFailed: 0, filesMissing: 0, filesMoved: 0 };
  const errors: ScanError[] = [];
  const pending: (() => void)[] = [];
  let lastProgress = 0;

  const relative = (root: string, file: string) => path.relative(root, file) || path.basename(file);
  const addError = (root: string, file: string, reason: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path: relative(root, file), reason });
  };
  const flush = () => {
    if (pending.length === 0) return;
    const ops = pending.splice(0, pending.length);
    inTransaction(db, () => {
      for (const op of ops) op();
      scanRuns.progress(db, options.runId, counts, errors);
    });
    options.afterBatch?.(counts);
    if (options.shouldStop?.()) throw new ScanStoppedError();
    const t = Date.now();
    if (options.onProgress && t - lastProgress >= (options.progressMs ?? 250)) {
      lastProgress = t;
      options.onProgress({ ...counts });
    }
  };

  for (const root of options.roots) {
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
      // An unmounted or removed folder is reported; its files keep their state until it is back.
      addError(root, root, 'music folder not found');
      continue;
    }
    let walkFailed = false;
    const folderImageKeys = new Map<string, string | null>();
    const folderImageKey = (file: string | null): string | null => {
      if (!file) return null;
      if (folderImageKeys.has(file)) return folderImageKeys.get(file)!;
      let key: string | null = null;
      try {
        const bytes = fs.readFileSync(file);
        key = images.store(bytes);
        const stored = key;
        pending.push(() => recordImage(db, { cache_key: stored, mime: imageMimeOf(bytes), bytes: bytes.length, origin: 'folder' }, now()));
      } catch {
        key = null;
      }
      folderImageKeys.set(file, key);
      return key;
    };

    const inFlight = new Set<Promise<void>>();
    const walker = walkMusicFolder(root, (problem) => {
      counts.filesFailed++;
      addError(root, problem.path, problem.reason);
      if (problem.path === root) walkFailed = true;
    });
    for await (const directory of walker) {
      for (const file of directory.files) {
        counts.filesSeen++;
        const known = writer.knownMediaFile('aurral', file.path);
        if (options.mode === 'quick' && known && known.size === file.size && known.mtimeMs === file.mtimeMs) {
          counts.filesSkipped++;
          pending.push(() => writer.markSeen(known, options.runId, now()));
        } else {
          const task = indexFile(file, known, directory.folderImage).finally(() => inFlight.delete(task));
          inFlight.add(task);
          if (inFlight.size >= concurrency) await Promise.race(inFlight);
        }
        if (pending.length >= batchSize) flush();
      }
    }
    await Promise.all(inFlight);
    flush();
    if (!walkFailed) {
      inTransaction(db, () => {
        counts.filesMissing += writer.markMissingUnder('aurral', root, options.runId, now());
      });
    }

    async function indexFile(
      file: { path: string; size: number; mtimeMs: number },
      known: KnownMediaFile | undefined,
      folderImage: string | null,
    ): Promise<void> {
      let tags: FileTags;
      let fingerprint: string | null = null;
      try {
        [tags, fingerprint] = await Promise.all([
          readFileTags(file.path, root),
          contentFingerprint(file.path, file.size),
        ]);
      } catch (err) {
        counts.filesFailed++;
        addError(root, file.path, err instanceof Error ? err.message : String(err));
        return;
      }
      if (tags.error) {
        counts.filesFailed++;
        addError(root, file.path, tags.error);
      }
      let imageKey: string | null = null;
      let imageBytes: Uint8Array | null = null;
      if (tags.picture) {
        try {
          imageKey = images.store(tags.picture);
          imageBytes = tags.picture;
        } catch {
          imageKey = null;
        }
      }
      imageKey ??= folderImageKey(folderImage);
      pending.push(() => {
        const t = now();
        if (imageKey && imageBytes) {
          recordImage(db, { cache_key: imageKey, mime: imageMimeOf(imageBytes), bytes: imageBytes.length, origin: 'embedded' }, t);
        }
        if (!known && fingerprint) {
          const moved = writer.moveIfSameContent('aurral', fingerprint, file.path, root, (p) => fs.existsSync(p), t);
          if (moved !== null) counts.filesMoved++;
        }
        writeFile(writer, tags, file, root, fingerprint, imageKey, options.runId, t);
        counts.filesIndexed++;
      });
    }
  }
  flush();
  refreshDerived(db);
  db.pragma('optimize');
  options.onProgress?.({ ...counts });
  return { ...counts, errors };
}

/** Tags → canonical rows. Identity keys prefer MusicBrainz ids, else normalized names. */
function writeFile(
  writer: LibraryWriter,
  tags: FileTags,
  file: { path: string; size: number; mtimeMs: number },
  root: string,
  fingerprint: string | null,
  imageKey: string | null,
  scanId: number,
  now: number,
): void {
  const previous = writer.knownMediaFile('aurral', file.path);
  const albumArtistKey = tags.albumArtistMbid ? `mbid:${tags.albumArtistMbid}` : `name:${nameKey(tags.albumArtist)}`;
  const albumArtistId = writer.upsertArtist(
    { identityKey: albumArtistKey, mbid: tags.albumArtistMbid, name: tags.albumArtist },
    now,
  );
  let trackArtistId = albumArtistId;
  if (nameKey(tags.artist) !== nameKey(tags.albumArtist) || (tags.artistMbid && tags.artistMbid !== tags.albumArtistMbid)) {
    const key = tags.artistMbid ? `mbid:${tags.artistMbid}` : `name:${nameKey(tags.artist)}`;
    trackArtistId = writer.upsertArtist({ identityKey: key, mbid: tags.artistMbid, name: tags.artist }, now);
  }
  const albumKey = tags.releaseGroupMbid
    ? `mbid:${tags.releaseGroupMbid}`
    : tags.releaseMbid
      ? `release:${tags.releaseMbid}`
      : `album:${albumArtistKey}/${nameKey(tags.album)}`;
  const albumId = writer.upsertAlbum(
    {
      identityKey: albumKey,
      mbid: tags.releaseGroupMbid,
      releaseMbid: tags.releaseMbid,
      artistId: albumArtistId,
      title: tags.album,
      albumArtist: tags.albumArtist,
      releaseDate: tags.date,
    },
    now,
  );
  const trackKey = tags.recordingMbid
    ? `mbid:${tags.recordingMbid}`
    : `track:${albumKey}/${tags.discNumber}/${tags.trackNumber}/${nameKey(tags.title)}`;
  const trackId = writer.upsertTrack(
    {
      identityKey: trackKey,
      mbid: tags.recordingMbid,
      title: tags.title,
      artistName: tags.artist,
      artistId: trackArtistId,
      albumId,
      albumTitle: tags.album,
      discNumber: tags.discNumber,
      trackNumber: tags.trackNumber,
      year: tags.year,
      durationMs: tags.durationMs,
      lyrics: tags.lyrics,
      genres: tags.genres,
    },
    now,
  );
  const ext = path.extname(file.path).slice(1).toLowerCase();
  writer.upsertMediaFile(
    {
      source: 'aurral',
      path: file.path,
      root,
      trackId,
      albumId,
      format: ext,
      mime: audioMimeOf(file.path),
      codec: tags.codec,
      size: file.size,
      mtimeMs: file.mtimeMs,
      durationMs: tags.durationMs,
      bitrate: tags.bitrate,
      sampleRate: tags.sampleRate,
      bitDepth: tags.bitDepth,
      channels: tags.channels,
      lossless: tags.lossless,
      fingerprint,
      imageKey,
      tagError: tags.error,
      scanId,
    },
    now,
  );
  if (previous && previous.trackId !== trackId) writer.pruneTrackIfOrphan(previous.trackId);
}
