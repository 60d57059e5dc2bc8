import fs from 'node:fs';
import path from 'node:path';
import { inTransaction } from '../../db/connection.js';
import { refreshDerived } from '../../db/libraryDerived.js';
import { findImage } from '../../db/libraryImages.js';
import { LibraryReader, type CanonicalQuery, type MediaFileRow, type TrackRow } from '../../db/libraryReads.js';
import { LibraryWriter } from '../../db/libraryWrites.js';
import { LidarrIndexRepository } from '../../db/lidarrIndex.js';
import type { ScanMode, ScanRun } from '../../db/libraryScanRuns.js';
import { ImageCache } from '../../library/imageCache.js';
import { realPathWithin } from '../../library/libraryRoots.js';
import { LibraryScanService, SCAN_QUEUE } from '../../library/scanService.js';
import type { Role } from '../auth/permissions.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { downloadsRoot, type Deps as DownloadsLayoutDeps } from '../downloads/layout.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'dbPath' | 'jobs' | 'log' | 'onClose' | 'scheduler'>
  & {
    hub: Broadcaster;
    settings: SettingsStore;
    library: LibraryService;
  }
  & DownloadsLayoutDeps;


/** Background start: resume interrupted scans, scan at start when folders exist, watch for changes. */
export function startLibrary(ctx: Deps): void {
  const service = ctx.library;
  service.start();
  ctx.onClose(() => service.stop());
}

/** The canonical library: reads, scans, track deletion, artwork. */
export class LibraryService {
  readonly reader: LibraryReader;
  readonly images: ImageCache;
  readonly scans: LibraryScanService;
  private readonly scanListeners = new Set<() => void>();

  constructor(private readonly ctx: Deps) {
    this.reader = new LibraryReader(ctx.db);
    this.images = new ImageCache(path.join(ctx.config.dataDir, 'images'));
    const settings = ctx.settings.get().library;
    this.scans = new LibraryScanService({
      db: ctx.db,
      jobs: ctx.jobs,
      dbPath: ctx.dbPath,
      imageDir: this.images.dir,
      roots: () => this.scanRoots(),
      linkRoots: () => [downloadsRoot(ctx)],
      now: () => ctx.clock.now(),
      broadcast: (type, payload) => {
        ctx.hub.broadcast('library', type, payload);
        if (type === 'library_scan_completed') this.scanCompleted();
      },
      log: ctx.log,
      watch: settings.watchEnabled && ctx.config.libraryWatch,
      watchDebounceMs: () => ctx.settings.get().library.watchDebounceMs,
    });
  }

  /** Called after every finished scan run (new tracks are readable then); returns the unsubscribe function. */
  onScanCompleted(listener: () => void): () => void {
    this.scanListeners.add(listener);
    return () => this.scanListeners.delete(listener);
  }

  private scanCompleted(): void {
    for (const l of this.scanListeners) {
      try {
        l();
      } catch (err) {
        this.ctx.log.warn('scan listener failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  start(): void {
    this.ctx.scheduler.define({ name: SCAN_QUEUE, queue: SCAN_QUEUE, onDemand: true, detail: () => this.scans.describe() });
    this.scans.start();
    if (this.scanRoots().length > 0 && this.ctx.config.scanOnStart) {
      this.scans.requestScan('quick', 'start-up');
    }
    this.ctx.settings.onChange((next, previous) => {
      const a = JSON.stringify(next.library);
      if (a === JSON.stringify(previous.library)) return;
      this.scans.refreshWatcher();
      if (JSON.stringify(next.library.musicFolders) !== JSON.stringify(previous.library.musicFolders)) {
        this.scans.requestScan('quick', 'music folders changed');
      }
    });
  }

  /** The library block of the detailed health answer. */
  health() {
    return { library: { artistCount: this.reader.count('artists'), lastScan: this.reader.lastCompletedScanAt() } };
  }

  stop(): Promise<void> {
    return this.scans.stop();
  }

  /** Effective music folders: TONEARM_MUSIC_DIRS ∪ settings, resolved, without duplicates. */
  musicFolders(): string[] {
    const all = [...this.ctx.config.musicDirs, ...this.ctx.settings.get().library.musicFolders];
    return [...new Set(all.filter((d) => d.trim() !== '').map((d) => path.resolve(d)))];
  }

  /** What library scans walk: the music folders and, once it exists, the downloads root (self-managed downloads land there). */
  scanRoots(): string[] {
    const root = downloadsRoot(this.ctx);
    const music = this.musicFolders();
    return fs.existsSync(root) && !music.includes(root) ? [...music, root] : music;
  }

  /**
   * Where library files may be read from: the music folders, the downloads root and Lidarr's root
   * folders (as mapped here). Anything else, a link's target included, is refused.
   */
  servingRoots(): string[] {
    return [...this.musicFolders(), downloadsRoot(this.ctx), ...new LidarrIndexRepository(this.ctx.db).rootFolders()];
  }

  /** The real path to open for a stored library file path, or null when it is gone or outside servingRoots. */
  servablePath(file: string): string | null {
    return realPathWithin(file, this.servingRoots());
  }

  suggest<K extends 'artists' | 'albums' | 'tracks'>(kind: K, query: string, limit: number) {
    return this.reader.suggest(kind, query, limit);
  }

  canonicalPage(q: CanonicalQuery) {
    return this.reader.canonicalPage(q);
  }

  /**
   * A scan a caller asks for, by `POST /api/library/refresh` or `/rest/startScan`: one rule for both
   * doors. Only administrators (the API key acts as one) may start it; a request while a scan is
   * queued joins that one (full wins over quick) instead of queueing another.
   */
  requestScan(caller: { role: Role }, mode: ScanMode, door: 'api' | 'subsonic'): number {
    if (caller.role !== 'admin') throw new ForbiddenError('Only administrators can start a library scan');
    return this.scans.requestScan(mode, door === 'api' ? 'requested' : 'requested by a Subsonic client');
  }

  scanJob(id: number): ScanRun {
    const run = this.scans.job(id);
    if (!run) throw new NotFoundError('Scan job not found');
    return run;
  }

  track(id: number): TrackRow {
    const track = this.reader.track(id);
    if (!track) throw new NotFoundError('Track not found');
    return track;
  }

  /**
   * The file to stream for a track (optionally the one filed under an album), with `path` the real
   * path to open; NotFound when none is available or its real path is outside servingRoots.
   */
  playableFile(trackId: number, albumId?: number): MediaFileRow {
    this.track(trackId);
    const files = this.reader.filesOfTrack(trackId).filter((f) => f.available === 1);
    const file = albumId === undefined ? files[0] : (files.find((f) => f.album_id === albumId) ?? (this.trackInAlbum(trackId, albumId) ? files[0] : undefined));
    const real = file ? this.servablePath(file.path) : null;
    if (!file || !real) throw new NotFoundError('Media file not found');
    return { ...file, path: real };
  }

  private trackInAlbum(trackId: number, albumId: number): boolean {
    return this.reader.tracksOfAlbum(albumId).some((t) => t.id === trackId);
  }

  /**
   * Deletes a track's files that lie inside a configured music folder, then prunes the track (and
   * its album and artist) once no media remains. Files elsewhere are never touched.
   */
  deleteTrack(trackId: number): { deletedFiles: number; pruned: boolean } {
    this.track(trackId);
    const files = this.reader.filesOfTrack(trackId);
    const folders = this.scanRoots().map(realOrResolved);
    const inside = files.filter((f) => folders.some((root) => isInside(realOrResolved(f.path), root)));
    if (files.length > 0 && inside.length === 0) {
      throw new ForbiddenError('The track file is outside the configured music folders');
    }
    for (const file of inside) {
      try {
        fs.unlinkSync(file.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ForbiddenError('The track file could not be deleted');
      }
    }
    const writer = new LibraryWriter(this.ctx.db);
    let pruned = false;
    inTransaction(this.ctx.db, () => {
      for (const file of inside) pruned = writer.deleteMediaFile(file.id).trackPruned || pruned;
      if (files.length === 0) pruned = writer.pruneTrackIfOrphan(trackId);
    });
    refreshDerived(this.ctx.db);
    return { deletedFiles: inside.length, pruned };
  }

  /** An artwork file by cache key (original bytes), or null. */
  image(cacheKey: string): { file: string; mime: string } | null {
    const row = findImage(this.ctx.db, cacheKey);
    const file = this.images.fileOf(cacheKey);
    if (!row || !fs.existsSync(file)) return null;
    return { file, mime: row.mime };
  }
}

function realOrResolved(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
