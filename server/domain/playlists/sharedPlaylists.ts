import path from 'node:path';
import { downloads, type DownloadJobRow } from '../../db/downloads.js';
import { playlistTracks } from '../../db/playlistQueries.js';
import { requests } from '../../db/requests.js';
import { sharedPlaylistsRepository, type SharedEntryRow, type SharedPlaylistRow } from '../../db/sharedPlaylists.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { researchJob, restart, type Deps as DownloadsControlDeps } from '../downloads/control.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { attachFinishedJobs, type Deps as PlaylistsAttachDeps } from './attach.js';
import { toJspf, toM3u, toOwnExport, type ExportTrack, type PlaylistEntry, type PlaylistFormat } from './formats.js';
import {
  restNumberOf,
  viewerOf,
  type PlaylistProvider,
  type PlaylistRef,
  type PlaylistViewer,
  type PlaylistRegistry,
} from './registry.js';
import { isRetryPaused, type Deps as PlaylistsRetryCycleDeps } from './retryCycle.js';
import { presentEntry } from './sharedEntries.js';
import { checkName, checkSettings, createShared, importShared, type Deps as PlaylistsSharedImportDeps } from './sharedImport.js';
import { syncFromSource, type SyncResult, type Deps as PlaylistsSharedSyncDeps } from './sharedSync.js';
import type { NewEntry, SharedHost, SharedSettings } from './sharedTypes.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { LibraryService } from '../library/service.js';
import type { PlaylistArtwork } from './artwork.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'scheduler'>
  & {
    downloads: DownloadService;
    library: LibraryService;
    playlistArtwork: PlaylistArtwork;
    playlists: PlaylistRegistry;
    sharedPlaylists: SharedPlaylists;
  }
  & DownloadsControlDeps
  & PlaylistsAttachDeps
  & PlaylistsRetryCycleDeps
  & PlaylistsSharedImportDeps
  & PlaylistsSharedSyncDeps;

/**
 * Shared playlists: one list every user can read and play, changed by its owner and by
 * administrators. Each entry is a track with a download job: a done job linked to the library track
 * when the track is owned, otherwise a real download job of type `shared` whose track joins the list
 * once it is in the library. A playlist imported from a URL can follow that source (`sync`).
 */

export const SHARED = 'shared';
export const SHARED_SYNC_QUEUE = 'shared-playlist-sync';
export const SHARED_SYNC_TASK = 'shared-playlist-sync-check';

export type AddTrackInput = { trackId: number } | { artistName: string; trackName: string; albumName?: string | null; durationMs?: number | null; recordingMbid?: string | null };

export type { NewEntry, SharedSettings } from './sharedTypes.js';

function refOf(row: SharedPlaylistRow): PlaylistRef {
  return {
    kind: 'shared',
    id: row.id,
    restNumber: restNumberOf('shared', row.seq),
    name: row.name,
    comment: row.description,
    ownerUserId: row.owner_user_id,
    owner: row.owner ?? '',
    public: true,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    songCount: row.song_count,
    durationMs: row.duration_ms,
    firstTrackId: row.first_track_id,
  };
}

const canEditRow = (row: { owner_user_id: number | null }, viewer: PlaylistViewer) => viewer.role === 'admin' || (row.owner_user_id !== null && row.owner_user_id === viewer.id);

export class SharedPlaylists implements SharedHost {
  readonly repo;

  constructor(private readonly ctx: Deps) {
    this.repo = sharedPlaylistsRepository(ctx.db);
  }

  // --- reading ------------------------------------------------------------------------------------

  present(row: SharedPlaylistRow, viewer: PlaylistViewer | null, withTracks = false) {
    const entries = withTracks ? this.repo.entries(row.seq) : [];
    return {
      id: row.id,
      kind: 'shared' as const,
      name: row.name,
      description: row.description,
      ownerUserId: row.owner_user_id,
      owner: row.owner,
      sourceUrl: row.source_url,
      sourceFormat: row.source_format,
      syncEnabled: row.sync_enabled === 1,
      syncIntervalHours: row.sync_interval_hours,
      keepRemovedTracks: row.keep_removed_tracks === 1,
      lastSyncedAt: row.last_synced_at !== null ? new Date(row.last_synced_at).toISOString() : null,
      lastSyncError: row.last_sync_error,
      retryCyclePaused: isRetryPaused(this.ctx, 'shared', row.id),
      trackCount: row.track_count,
      availableCount: row.song_count,
      missingCount: row.track_count - row.song_count,
      durationMs: row.duration_ms,
      canEdit: viewer ? canEditRow(row, viewer) : false,
      artwork: this.ctx.playlistArtwork.info(refOf(row)),
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
      ...(withTracks && { tracks: entries.map(presentEntry) }),
    };
  }

  list(viewer: PlaylistViewer) {
    return this.repo.all().map((r) => this.present(r, viewer));
  }

  /** The playlist or 404 (every user may read every shared playlist). */
  row(id: string): SharedPlaylistRow {
    const row = this.repo.byId(id);
    if (!row) throw new NotFoundError('Shared playlist not found', `No shared playlist ${id}`);
    return row;
  }

  detail(id: string, viewer: PlaylistViewer) {
    return this.present(this.row(id), viewer, true);
  }

  /** The playlist if the caller may change it: 404 when missing, 403 for someone else's. */
  editable(id: string, principal: Principal): SharedPlaylistRow {
    const row = this.row(id);
    if (!canEditRow(row, viewerOf(principal))) throw new ForbiddenError('Only the owner of this shared playlist or an administrator can change it');
    return row;
  }

  /** Tells the registry (and so /ws and the artwork) that the list changed. */
  announce(seq: number): void {
    const row = this.repo.bySeq(seq);
    if (row) this.ctx.playlists.changed(refOf(row));
  }

  // --- creating -------------------------------------------------------------------------------------

  /** Creates the playlist with its tracks (sharedImport.ts). */
  create(principal: Principal, settings: SharedSettings & { name: string }, tracks: NewEntry[] = [], source?: { url: string | null; format: PlaylistFormat | null }) {
    return createShared(this.ctx, this, principal, settings, tracks, source);
  }

  /** Import: a document or a URL (sharedImport.ts). */
  import(principal: Principal, input: SharedSettings & { content?: unknown; url?: string; format?: PlaylistFormat }) {
    return importShared(this.ctx, this, principal, input);
  }

  /**
   * One entry with its job: an owned track gets a done job linked to it (so every entry has a job,
   * as the track routes address them), a missing one a download job of this playlist.
   */
  addEntry(
    seq: number,
    id: string,
    ownerId: number | null,
    entry: NewEntry,
    fromSource: boolean,
    now: number,
    position?: number,
    priority?: number,
  ): { entryId: number; job: DownloadJobRow } {
    const { trackId: known, position: _position, ...rest } = entry;
    let t: PlaylistEntry = rest;
    const owned = known ?? requests.ownedTrackId(this.ctx.db, { mbid: t.recordingMbid, title: t.trackName, artistName: t.artistName });
    const svc = this.ctx.downloads;
    const fields = {
      userId: ownerId,
      playlistType: SHARED,
      playlistId: id,
      artistName: t.artistName,
      trackName: t.trackName,
      albumName: t.albumName,
      recordingMbid: t.recordingMbid,
      durationMs: t.durationMs,
    };
    let job: DownloadJobRow;
    if (owned !== undefined) {
      // What the library knows fills what the list left out (album, duration).
      const known = playlistTracks.durationAndAlbum(this.ctx.db, owned);
      t = { ...t, albumName: t.albumName ?? known?.album ?? null, durationMs: t.durationMs ?? (known?.duration_ms || null) };
      fields.albumName = t.albumName;
      fields.durationMs = t.durationMs;
      job = downloads.insert(this.ctx.db, fields, now);
      let file: string | null = null;
      try {
        file = this.ctx.library.playableFile(owned).path;
      } catch {
        // A Lidarr track whose file is not reachable here: the link to the track is enough.
      }
      job =
        svc.transition(job.id, { status: 'done', progress: 100, reusedTrackId: owned, finalPath: file, streamFormat: file ? path.extname(file).slice(1).toLowerCase() || null : null, completedAt: now }, ['pending']) ?? job;
    } else {
      job = svc.create(fields, priority !== undefined ? { priority } : undefined);
    }
    const entryId = this.repo.addEntry(seq, { ...t, trackId: owned ?? null, jobId: job.id, fromSource }, now, position);
    return { entryId, job };
  }

  // --- changing -------------------------------------------------------------------------------------

  update(principal: Principal, id: string, s: SharedSettings) {
    const row = this.editable(id, principal);
    const changes: Record<string, string | number | null> = {};
    if (s.name !== undefined) changes.name = checkName(this.repo, s.name, row.id);
    if (s.description !== undefined) changes.description = s.description.trim().slice(0, 2000);
    const sourceUrl = s.sourceUrl !== undefined ? s.sourceUrl : row.source_url;
    const syncEnabled = s.syncEnabled ?? row.sync_enabled === 1;
    checkSettings({ syncEnabled }, sourceUrl);
    if (s.sourceUrl !== undefined) changes.source_url = s.sourceUrl;
    if (s.syncEnabled !== undefined) changes.sync_enabled = s.syncEnabled ? 1 : 0;
    if (s.syncIntervalHours !== undefined) changes.sync_interval_hours = s.syncIntervalHours;
    if (s.keepRemovedTracks !== undefined) changes.keep_removed_tracks = s.keepRemovedTracks ? 1 : 0;
    this.repo.update(row.seq, changes, this.ctx.clock.now());
    this.announce(row.seq);
    return this.present(this.repo.bySeq(row.seq)!, viewerOf(principal), true);
  }

  /** Deletes the list; its jobs stay (files are never removed here, whoever else uses them). */
  delete(principal: Principal, id: string): { success: true; playlistId: string } {
    const row = this.editable(id, principal);
    const open = downloads.list(this.ctx.db, { playlistType: SHARED, playlistId: row.id, status: ['pending'], limit: 10_000, offset: 0 });
    this.ctx.db.transaction(() => {
      this.repo.remove(row.seq);
      // Nobody wants these tracks any more: pending downloads of this playlist do not start.
      for (const j of open) if (this.ctx.downloads.transition(j.id, { status: 'cancelled', error: 'Playlist deleted' }, ['pending']) && j.queueJobId !== null) this.ctx.jobs.cancel(j.queueJobId);
    })();
    this.ctx.playlists.deleted(refOf(row));
    return { success: true, playlistId: row.id };
  }

  addTrack(principal: Principal, id: string, input: AddTrackInput) {
    const row = this.editable(id, principal);
    return this.addTo(row, row.owner_user_id ?? (isUserAccount(principal) ? principal.userId : null), input);
  }

  /**
   * A playlist import (server/domain/imports) adds the tracks it matched later on, in the owner's
   * name: the same entry and job as `addTrack`, at the track's place in the source (`position`)
   * and with the import's download priority.
   */
  addImported(id: string, input: AddTrackInput, opts: { position?: number; priority?: number } = {}) {
    const row = this.row(id);
    return this.addTo(row, row.owner_user_id, input, opts);
  }

  private addTo(row: SharedPlaylistRow, ownerId: number | null, input: AddTrackInput, opts: { position?: number; priority?: number } = {}) {
    let entry: NewEntry;
    if ('trackId' in input) {
      const track = playlistTracks.entryFields(this.ctx.db, input.trackId);
      if (!track) throw new NotFoundError('Track not found', `No library track ${input.trackId}`);
      entry = { artistName: track.artist_name, trackName: track.title, albumName: track.album, durationMs: track.duration_ms || null, recordingMbid: track.mbid, trackId: input.trackId };
    } else {
      const artistName = input.artistName.trim();
      const trackName = input.trackName.trim();
      if (!artistName || !trackName) throw new ValidationError('artistName and trackName are required');
      entry = { artistName, trackName, albumName: input.albumName?.trim() || null, durationMs: input.durationMs ?? null, recordingMbid: input.recordingMbid ?? null };
    }
    const now = this.ctx.clock.now();
    const added = this.ctx.db.transaction(() => {
      const r = this.addEntry(row.seq, row.id, ownerId, entry, false, now, opts.position, opts.priority);
      this.repo.touch(row.seq, now);
      return r;
    })();
    this.announce(row.seq);
    const e = this.repo.entryOfJob(row.seq, added.job.id)!;
    return { success: true as const, queued: e.available !== 1, track: presentEntry(e) };
  }

  /** The entry with this job; an entry whose job was cleared from the job list answers to its entryId. */
  private entryOf(row: SharedPlaylistRow, jobId: number): SharedEntryRow {
    const e = this.repo.entryOfJob(row.seq, jobId) ?? this.repo.joblessEntry(row.seq, jobId);
    if (!e) throw new NotFoundError('Track not found', `Job ${jobId} is not a track of this shared playlist`);
    return e;
  }

  /** Removes a track from the list; a download still waiting to start is cancelled, files stay. */
  removeTrack(principal: Principal, id: string, jobId: number) {
    const row = this.editable(id, principal);
    const e = this.entryOf(row, jobId);
    this.ctx.db.transaction(() => {
      this.repo.removeEntry(e.id);
      this.repo.touch(row.seq, this.ctx.clock.now());
      if (e.job_status === 'pending' && e.job_id !== null) {
        const j = this.ctx.downloads.transition(e.job_id, { status: 'cancelled', error: 'Removed from the playlist' }, ['pending']);
        if (j?.queueJobId) this.ctx.jobs.cancel(j.queueJobId);
      }
    })();
    this.announce(row.seq);
    return { success: true as const, playlistId: row.id, jobId: String(jobId) };
  }

  researchTrack(principal: Principal, id: string, jobId: number) {
    const row = this.editable(id, principal);
    const e = this.entryOf(row, jobId);
    if (e.job_id === null) return { success: true as const, queued: this.requeue(row, e) ? 1 : 0 };
    return researchJob(this.ctx, principal, jobId);
  }

  /** A missing entry whose job was cleared from the job list gets a new download job. */
  private requeue(row: SharedPlaylistRow, e: SharedEntryRow): boolean {
    if (e.available === 1 || e.job_id !== null) return false;
    const job = this.ctx.downloads.create({
      userId: row.owner_user_id,
      playlistType: SHARED,
      playlistId: row.id,
      artistName: e.artist_name,
      trackName: e.track_name,
      albumName: e.album_name,
      recordingMbid: e.recording_mbid,
      durationMs: e.duration_ms,
    });
    this.repo.setJob(e.id, job.id);
    return true;
  }

  researchMissing(principal: Principal, id: string) {
    const row = this.editable(id, principal);
    let queued = 0;
    for (const e of this.repo.entries(row.seq)) {
      if (e.job_id === null) {
        if (this.requeue(row, e)) queued++;
        continue;
      }
      if (e.job_id === null || (e.job_status !== 'failed' && e.job_status !== 'cancelled')) continue;
      const job = this.ctx.downloads.get(e.job_id);
      if (job && restart(this.ctx, job)) queued++;
    }
    return { success: true as const, playlistId: row.id, queued };
  }

  // --- sync ----------------------------------------------------------------------------------------

  /** Reads the import source again (sharedSync.ts). */
  sync(id: string, principal?: Principal): Promise<SyncResult> {
    return syncFromSource(this.ctx, this, id, principal);
  }

  // --- export ---------------------------------------------------------------------------------------

  exportAs(id: string, format: PlaylistFormat): { contentType: string; fileName: string; body: string } {
    const row = this.row(id);
    const entries = this.repo.entries(row.seq);
    const locations = new Map<number, string>();
    const fileOf = playlistTracks.exportFileLookup(this.ctx.db);
    const tracks: ExportTrack[] = entries.map((e) => {
      let location: string | null = null;
      if (format === 'm3u' && e.track_id !== null && e.available === 1) {
        const f = fileOf(e.track_id);
        // A path inside the library folder, never the server's absolute layout.
        if (f) location = f.root ? path.relative(f.root, f.path).split(path.sep).join('/') : path.basename(f.path);
        if (location) locations.set(e.id, location);
      }
      return { artistName: e.artist_name, trackName: e.track_name, albumName: e.album_name, durationMs: e.duration_ms, recordingMbid: e.recording_mbid, location };
    });
    const base = row.name.replace(/[^\p{L}\p{N} ._-]+/gu, '').trim() || 'playlist';
    if (format === 'm3u') return { contentType: 'audio/x-mpegurl; charset=utf-8', fileName: `${base}.m3u8`, body: toM3u(row, tracks) };
    if (format === 'jspf')
      return { contentType: 'application/jspf+json', fileName: `${base}.jspf`, body: JSON.stringify(toJspf({ name: row.name, description: row.description, owner: row.owner, createdAt: row.created_at }, tracks), null, 2) };
    return { contentType: 'application/json', fileName: `${base}.json`, body: JSON.stringify(toOwnExport({ name: row.name, description: row.description, createdAt: row.created_at }, tracks, this.ctx.clock.now()), null, 2) };
  }

  // --- registry -------------------------------------------------------------------------------------

  provider(): PlaylistProvider {
    const KIND_BASE = 2 ** 48;
    return {
      kind: 'shared',
      visibleTo: () => this.repo.all().map(refOf),
      find: (id) => {
        if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
        const row = this.repo.byId(id);
        return row && refOf(row);
      },
      findByRestNumber: (n) => {
        if (n < KIND_BASE || (n - KIND_BASE) % 2 !== 1) return undefined;
        const row = this.repo.bySeq(Math.floor((n - KIND_BASE) / 2));
        return row && refOf(row);
      },
      canSee: () => true,
      canEdit: (ref, viewer) => viewer.role === 'admin' || (ref.ownerUserId !== null && ref.ownerUserId === viewer.id),
      trackIds: (id) => {
        const row = this.repo.byId(id);
        return row ? this.repo.trackIds(row.seq) : [];
      },
    };
  }

  /** A finished job of this kind: its entry now names the library track. */
  attach(job: DownloadJobRow, trackId: number): false | (() => void) {
    const rows = this.repo.entriesOfJob(job.id);
    if (rows.length === 0) return false;
    for (const r of rows) this.repo.setTrack(r.id, trackId);
    const seqs = [...new Set(rows.map((r) => r.playlist_seq))];
    const now = this.ctx.clock.now();
    for (const s of seqs) this.repo.touch(s, now);
    return () => seqs.forEach((s) => this.announce(s));
  }
}


/** Short summaries for `GET /api/playlists/status` (`sharedPlaylists`). */
export function sharedPlaylistSummaries(ctx: Deps, viewer: PlaylistViewer) {
  return ctx.sharedPlaylists.list(viewer);
}

/**
 * Start-up: the provider joins the registry, finished jobs join their lists, and due syncs run on
 * the job queue (checked every 15 minutes; a failed sync is recorded and retried at the next due time).
 */
export function startSharedPlaylists(ctx: Deps): void {
  const shared = ctx.sharedPlaylists;
  ctx.playlists.register(shared.provider());
  attachFinishedJobs(ctx, SHARED, (job, trackId) => shared.attach(job, trackId));
  ctx.jobs.register<{ playlistId: string }>(SHARED_SYNC_QUEUE, {
    concurrency: 1,
    maxAttempts: 1,
    handler: async (job) => {
      try {
        const r = await shared.sync(job.payload.playlistId);
        ctx.log.info('shared playlist synced', { playlistId: r.playlistId, added: r.added, removed: r.removed, kept: r.kept });
      } catch (err) {
        if (err instanceof NotFoundError) return;
        ctx.log.warn('shared playlist sync failed', { playlistId: job.payload.playlistId, error: err instanceof Error ? err.message : String(err) });
      }
    },
  });
  ctx.scheduler.define({
    name: SHARED_SYNC_TASK,
    every: 15 * 60_000,
    runOnFirstStart: true,
    handler: () => enqueueDueSyncs(ctx),
  });
}

/** Queues a sync of every shared playlist whose interval has passed; returns how many. */
export function enqueueDueSyncs(ctx: Deps): number {
  let n = 0;
  for (const id of ctx.sharedPlaylists.repo.dueForSync(ctx.clock.now())) {
    if (ctx.jobs.enqueue(SHARED_SYNC_QUEUE, { playlistId: id }, { dedupeKey: `shared-sync:${id}`, name: `sync shared playlist ${id}` }).created) n++;
  }
  return n;
}
