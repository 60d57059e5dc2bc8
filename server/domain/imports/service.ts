import type { DownloadJobRow } from '../../db/downloads.js';
import { playlistsRepository } from '../../db/playlists.js';
import { playlistImports, type ImportItemRow, type ImportRow, type ImportSource } from '../../db/playlistImports.js';
import type { Job } from '../../jobs/queue.js';
import type { Principal } from '../auth/principal.js';
import { ValidationError } from '../errors.js';
import { placeStaticTracks, type Deps as PlaylistsStaticDownloadsDeps } from '../playlists/staticDownloads.js';
import { StaticPlaylists } from '../playlists/staticPlaylists.js';
import { LocalMatcher, UpstreamMatcher, type SourceTrack, type UpstreamMatch, type Deps as ImportsMatchingDeps } from './matching.js';
import { checkImportQueue, type Deps as ImportsQuotaDeps } from './quota.js';
import { openPlaylist, type Deps as ImportsSourcesDeps } from './sources.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { PlaylistRegistry } from '../playlists/registry.js';
import type { SharedPlaylists } from '../playlists/sharedPlaylists.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log'>
  & {
    downloads: DownloadService;
    playlists: PlaylistRegistry;
    sharedPlaylists: SharedPlaylists;
  }
  & ImportsMatchingDeps
  & ImportsQuotaDeps
  & ImportsSourcesDeps
  & PlaylistsStaticDownloadsDeps;

/** The queue that looks up an import's tracks on MusicBrainz and makes their download jobs. */
export const IMPORT_QUEUE = 'playlist-import';
/** Per preview: MusicBrainz lookups stop after this long; the rest are reported as not checked. */
export const PREVIEW_MATCH_BUDGET_MS = 15_000;
/** Each list of a preview holds at most this many tracks (the counts are always complete). */
export const PREVIEW_LIST_LIMIT = 100;
/** Tracks looked up per step of the import job. */
const IMPORT_CHUNK = 100;
/** Steps per run of the job; a longer import goes on in a follow-up job (short claims, fair to other queues). */
const CHUNKS_PER_RUN = 10;
/** Downloads of an import wait behind single requests. */
const IMPORT_JOB_PRIORITY = 5;

/**
 * Where an import goes: a static playlist of the importing user, or a shared playlist the importing
 * user owns (its missing tracks become that playlist's download-backed entries).
 */
export type ImportTarget = 'static' | 'shared';

export interface PreviewTrack {
  position: number;
  title: string;
  artist: string;
  album: string | null;
  trackId?: string;
  recordingMbid?: string;
}

export interface ImportPreview {
  source: ImportSource;
  playlist: { id: string; name: string };
  total: number;
  counts: { owned: number; download: number; unmatched: number; unchecked: number };
  owned: PreviewTrack[];
  download: PreviewTrack[];
  unmatched: PreviewTrack[];
  unchecked: PreviewTrack[];
  listLimit: number;
  /** MusicBrainz matching: switched on, and whether the time budget ran out (then `unchecked` > 0). */
  matching: { available: boolean; budgetExhausted: boolean; lookups: number };
  /** A download source is set up (else the jobs wait for one). */
  canDownload: boolean;
}

const artistOf = (t: SourceTrack) => t.artists.join(', ');
/** A source that names the recording (ListenBrainz) needs no search. */
const knownMatch = (t: SourceTrack): UpstreamMatch | null =>
  t.recordingMbid
    ? { recordingMbid: t.recordingMbid, title: t.title, artist: t.artists[0] ?? '', artistMbid: null, album: t.album, albumMbid: null, releaseMbid: null, durationMs: t.durationMs }
    : null;

/**
 * Preview: the playlist's tracks page by page as the source sends them; each page is matched
 * against the library at once, and the rest go to MusicBrainz in batches while the next pages
 * arrive, within PREVIEW_MATCH_BUDGET_MS. Only counts and the first PREVIEW_LIST_LIMIT tracks of
 * each list are kept, so a 10,000-track playlist never sits in memory whole.
 */
export async function previewImport(ctx: Deps, userId: number, source: ImportSource, playlistId: string, signal?: AbortSignal): Promise<ImportPreview> {
  const opened = await openPlaylist(ctx, userId, source, playlistId, signal);
  const local = new LocalMatcher(ctx.db);
  const upstream = new UpstreamMatcher(ctx, { deadline: Date.now() + PREVIEW_MATCH_BUDGET_MS, ...(signal && { signal }) });
  const preview: ImportPreview = {
    source,
    playlist: { id: opened.id, name: opened.name },
    total: 0,
    counts: { owned: 0, download: 0, unmatched: 0, unchecked: 0 },
    owned: [],
    download: [],
    unmatched: [],
    unchecked: [],
    listLimit: PREVIEW_LIST_LIMIT,
    matching: { available: upstream.available, budgetExhausted: false, lookups: 0 },
    canDownload: ctx.downloads.sources().length > 0,
  };
  const put = (list: 'owned' | 'download' | 'unmatched' | 'unchecked', entry: PreviewTrack) => {
    const key = list;
    preview.counts[key]++;
    if (preview[key].length < PREVIEW_LIST_LIMIT) preview[key].push(entry);
  };
  const entry = (position: number, t: SourceTrack): PreviewTrack => ({ position, title: t.title, artist: artistOf(t), album: t.album });

  // Upstream matching runs beside the page fetching: one batch at a time, in source order.
  let queue: { position: number; track: SourceTrack }[] = [];
  let running: Promise<void> = Promise.resolve();
  const settle = (batch: { position: number; track: SourceTrack }[]) =>
    (running = running.then(async () => {
      const results = await upstream.match(batch.map((b) => b.track));
      batch.forEach((b, i) => {
        const m = results[i];
        if (m === undefined) put('unchecked', entry(b.position, b.track));
        else if (m === null) put('unmatched', entry(b.position, b.track));
        else {
          const owned = local.trackId({ title: m.title, artists: [m.artist], recordingMbid: m.recordingMbid });
          if (owned !== null) put('owned', { ...entry(b.position, b.track), trackId: String(owned) });
          else put('download', { ...entry(b.position, b.track), recordingMbid: m.recordingMbid });
        }
      });
    }));

  let position = 0;
  for await (const page of opened.pages) {
    for (const t of page) {
      const at = position++;
      const owned = local.trackId(t);
      if (owned !== null) put('owned', { ...entry(at, t), trackId: String(owned) });
      else if (knownMatch(t)) put('download', { ...entry(at, t), recordingMbid: t.recordingMbid! });
      else queue.push({ position: at, track: t });
    }
    if (queue.length >= 100) {
      settle(queue);
      queue = [];
    }
  }
  if (queue.length > 0) settle(queue);
  await running;
  preview.total = position;
  preview.matching.lookups = upstream.calls;
  preview.matching.budgetExhausted = preview.counts.unchecked > 0;
  for (const list of ['owned', 'download', 'unmatched', 'unchecked'] as const) preview[list].sort((a, b) => a.position - b.position);
  return preview;
}

export interface ImportResult {
  importId: string;
  source: ImportSource;
  sourceId: string;
  name: string;
  target: { type: ImportTarget; id: string };
  status: ImportRow['status'];
  total: number;
  counts: ReturnType<typeof playlistImports.counts>;
}

function resultOf(ctx: Deps, row: ImportRow): ImportResult {
  const counts = playlistImports.counts(ctx.db, row.id);
  return {
    importId: String(row.id),
    source: row.source,
    sourceId: row.sourceRef,
    name: row.name,
    target: { type: row.targetType as ImportTarget, id: row.targetId },
    status: row.status,
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    counts,
  };
}

/**
 * Import: reads the playlist, matches it against the library, creates the static or shared playlist
 * with the owned tracks in source order, stores every other track as pending, and queues the job that
 * looks them up and makes their download jobs. Answers once the playlist exists.
 */
export async function importPlaylist(
  ctx: Deps,
  userId: number,
  source: ImportSource,
  playlistId: string,
  options: { target: ImportTarget; name?: string; signal?: AbortSignal; principal?: Principal },
): Promise<ImportResult> {
  if (options.target === 'shared' && options.principal?.userId !== userId) throw new ValidationError('A shared playlist import needs the importing user');
  const opened = await openPlaylist(ctx, userId, source, playlistId, options.signal);
  const local = new LocalMatcher(ctx.db);
  const items: ImportItemRow[] = [];
  const ownedIds: number[] = [];
  let position = 0;
  for await (const page of opened.pages)
    for (const t of page) {
      const trackId = local.trackId(t);
      if (trackId !== null) ownedIds.push(trackId);
      items.push({
        importId: 0,
        position: position++,
        artist: artistOf(t),
        title: t.title,
        album: t.album,
        durationMs: t.durationMs,
        isrc: t.isrc,
        recordingMbid: t.recordingMbid,
        state: trackId !== null ? 'owned' : 'pending',
        trackId,
        jobId: null,
      });
    }
  const name = (options.name?.trim() || opened.name).slice(0, 200);
  // Tracks not in the library may each become a download job: within the import queue limit.
  checkImportQueue(ctx, userId, items.filter((i) => i.state === 'pending').length);
  const playlists = new StaticPlaylists(playlistsRepository(ctx.db), ctx.clock);
  const comment = `Imported from ${SOURCE_LABEL[source]}`;
  const row = ctx.db.transaction(() => {
    const targetId =
      options.target === 'shared'
        ? // The shared playlist's own creation: owned tracks at their source positions (the rest join there later).
          ctx.sharedPlaylists.create(
            options.principal!,
            { name, description: comment },
            items
              .filter((i) => i.trackId !== null)
              .map((i) => ({ artistName: i.artist, trackName: i.title, albumName: i.album, durationMs: i.durationMs, recordingMbid: i.recordingMbid, trackId: i.trackId, position: i.position })),
          ).id
        : String(playlists.create(userId, name, ownedIds, { comment }));
    const created = playlistImports.create(
      ctx.db,
      { userId, source, sourceRef: opened.id, name, targetType: options.target, targetId, status: items.some((i) => i.state === 'pending') ? 'matching' : 'done' },
      ctx.clock.now(),
    );
    const insert = playlistImports.itemInserter(ctx.db);
    for (const item of items) insert({ ...item, importId: created.id });
    return created;
  })();
  if (row.status === 'matching') ctx.jobs.enqueue(IMPORT_QUEUE, { importId: row.id }, { dedupeKey: `import:${row.id}`, name: `import ${name}` });
  ctx.log.info('playlist imported', { importId: row.id, source, tracks: items.length, owned: ownedIds.length });
  return resultOf(ctx, row);
}

const SOURCE_LABEL: Record<ImportSource, string> = { spotify: 'Spotify', listenbrainz: 'ListenBrainz', lastfm: 'Last.fm' };

/** The import job: pending tracks, a chunk at a time, become download jobs, owned tracks or unmatched. */
async function runImport(ctx: Deps, job: Job<{ importId: number }>): Promise<void> {
  const row = playlistImports.get(ctx.db, job.payload.importId);
  if (!row || row.status !== 'matching') return;
  const local = new LocalMatcher(ctx.db);
  const upstream = new UpstreamMatcher(ctx, { signal: job.signal });
  const repo = playlistsRepository(ctx.db);
  for (let step = 0; ; step++) {
    const pending = playlistImports.pendingItems(ctx.db, row.id, IMPORT_CHUNK);
    if (pending.length === 0) break;
    if (step === CHUNKS_PER_RUN) {
      ctx.jobs.enqueue(IMPORT_QUEUE, { importId: row.id }, { dedupeKey: `import:${row.id}:from:${pending[0]!.position}`, name: `import ${row.name}` });
      return;
    }
    const tracks: SourceTrack[] = pending.map((i) => ({ title: i.title, artists: i.artist.split(', '), album: i.album, durationMs: i.durationMs, isrc: i.isrc, recordingMbid: i.recordingMbid }));
    const known = tracks.map(knownMatch);
    const looked = await upstream.match(tracks.filter((_, i) => !known[i]));
    let k = 0;
    const matches = known.map((m) => m ?? looked[k++]);
    if (row.targetType === 'shared') {
      if (!addToShared(ctx, row, pending, matches)) return;
      continue;
    }
    ctx.db.transaction(() => {
      pending.forEach((item, i) => {
        const m = matches[i];
        if (!m) return void playlistImports.setItem(ctx.db, row.id, item.position, { state: 'unmatched' });
        const owned = local.trackId({ title: m.title, artists: [m.artist], recordingMbid: m.recordingMbid });
        if (owned !== null) {
          placeTrack(ctx, repo, row, item.position, owned);
          return void playlistImports.setItem(ctx.db, row.id, item.position, { state: 'added', trackId: owned, recordingMbid: m.recordingMbid });
        }
        const created = ctx.downloads.create(
          {
            userId: row.userId,
            playlistType: row.targetType,
            playlistId: row.targetId,
            artistName: m.artist || item.artist,
            trackName: m.title || item.title,
            albumName: m.album,
            artistMbid: m.artistMbid,
            albumMbid: m.albumMbid,
            releaseMbid: m.releaseMbid,
            recordingMbid: m.recordingMbid,
            durationMs: m.durationMs,
          },
          { priority: IMPORT_JOB_PRIORITY },
        );
        playlistImports.setItem(ctx.db, row.id, item.position, { state: 'queued', jobId: created.id, recordingMbid: m.recordingMbid });
      });
    })();
  }
  refreshStatus(ctx, row.id);
}

/**
 * A chunk of a shared-playlist import: every matched track goes in through the shared playlist's own
 * adding (an owned track as it is, a missing one with its download job, which joins the entry when
 * done), at its source position. False when the playlist is gone (the import then ends as failed).
 */
function addToShared(ctx: Deps, row: ImportRow, pending: ImportItemRow[], matches: (UpstreamMatch | null | undefined)[]): boolean {
  const shared = ctx.sharedPlaylists;
  const local = new LocalMatcher(ctx.db);
  if (!shared.repo.byId(row.targetId)) {
    ctx.db.transaction(() => {
      for (const item of playlistImports.pendingItems(ctx.db, row.id, 1_000_000)) playlistImports.setItem(ctx.db, row.id, item.position, { state: 'failed' });
      playlistImports.setStatus(ctx.db, row.id, 'failed', 'The shared playlist was deleted', ctx.clock.now());
    })();
    return false;
  }
  pending.forEach((item, i) => {
    const m = matches[i];
    if (!m) return void playlistImports.setItem(ctx.db, row.id, item.position, { state: 'unmatched' });
    const owned = local.trackId({ title: m.title, artists: [m.artist], recordingMbid: m.recordingMbid });
    ctx.db.transaction(() => {
      const added = shared.addImported(
        row.targetId,
        owned !== null
          ? { trackId: owned }
          : { artistName: m.artist || item.artist, trackName: m.title || item.title, albumName: m.album, durationMs: m.durationMs, recordingMbid: m.recordingMbid },
        { position: item.position, priority: IMPORT_JOB_PRIORITY },
      );
      const trackId = added.track.trackId !== null ? Number(added.track.trackId) : null;
      playlistImports.setItem(ctx.db, row.id, item.position, {
        state: trackId !== null ? 'added' : 'queued',
        trackId,
        jobId: added.track.jobId !== null ? Number(added.track.jobId) : null,
        recordingMbid: m.recordingMbid,
      });
    })();
  });
  return true;
}

/**
 * A shared playlist changed: queued tracks of its imports whose entry now has its library track
 * (the shared playlist's joining did that) count as added.
 */
function noteSharedJoins(ctx: Deps, playlistId: string): void {
  const rows = playlistImports.unfinished(ctx.db).filter((r) => r.targetType === 'shared' && r.targetId === playlistId);
  if (rows.length === 0) return;
  const shared = ctx.sharedPlaylists;
  const playlist = shared.repo.byId(playlistId);
  if (!playlist) return;
  for (const row of rows) {
    for (const item of playlistImports.queuedItems(ctx.db, row.id)) {
      const entry = item.jobId !== null ? shared.repo.entryOfJob(playlist.seq, item.jobId) : undefined;
      if (entry && entry.available === 1 && entry.track_id !== null) playlistImports.setItem(ctx.db, row.id, item.position, { state: 'added', trackId: entry.track_id, jobId: item.jobId, recordingMbid: item.recordingMbid });
    }
    refreshStatus(ctx, row.id);
  }
}

/** Puts a track into the import's playlist where its source position says (after the earlier tracks present). */
function placeTrack(ctx: Deps, repo: ReturnType<typeof playlistsRepository>, row: ImportRow, position: number, trackId: number): void {
  if (row.targetType !== 'static') return;
  const playlistId = Number(row.targetId);
  if (!repo.byId(playlistId)) return;
  repo.insertTrack(playlistId, playlistImports.placedBefore(ctx.db, row.id, position, playlistId), trackId, ctx.clock.now());
}

function refreshStatus(ctx: Deps, importId: number): void {
  const row = playlistImports.get(ctx.db, importId);
  if (!row) return;
  const c = playlistImports.counts(ctx.db, importId);
  const status = c.pending > 0 ? 'matching' : c.queued > 0 ? 'downloading' : 'done';
  if (status !== row.status) playlistImports.setStatus(ctx.db, importId, status, null, ctx.clock.now());
}

/**
 * A finished download of an import joins its static playlist at its place in the source's order
 * (the playlists' joining runs this once per job, after the download and again after scans).
 */
function placeImportedTrack(ctx: Deps, job: DownloadJobRow, trackId: number): boolean {
  const item = playlistImports.itemByJob(ctx.db, job.id);
  if (!item) return false;
  const row = playlistImports.get(ctx.db, item.importId);
  if (!row || row.targetType !== 'static' || row.targetId !== job.playlistId) return false;
  playlistImports.setItem(ctx.db, row.id, item.position, { state: 'added', trackId });
  placeTrack(ctx, playlistsRepository(ctx.db), row, item.position, trackId);
  refreshStatus(ctx, row.id);
  return true;
}

/** Registers the import queue and the hooks that let finished downloads join their playlists. */
export function startImports(ctx: Deps): void {
  ctx.jobs.register<{ importId: number }>(IMPORT_QUEUE, {
    concurrency: 1,
    maxAttempts: 10,
    backoff: { baseMs: 30_000, maxMs: 30 * 60_000 },
    visibilityTimeoutMs: 30 * 60_000,
    handler: (job) => runImport(ctx, job),
  });
  ctx.downloads.onEvent((e) => {
    if (e.type !== 'job_updated' || e.job.status === e.previousStatus) return;
    const item = playlistImports.itemByJob(ctx.db, e.job.id);
    if (!item) return;
    if ((e.job.status === 'failed' || e.job.status === 'cancelled') && item.state === 'queued') {
      playlistImports.setItem(ctx.db, item.importId, item.position, { state: 'failed' });
      refreshStatus(ctx, item.importId);
    } else if (e.job.status === 'pending' && item.state === 'failed') {
      // Retried or denied back to pending: it may still join.
      playlistImports.setItem(ctx.db, item.importId, item.position, { state: 'queued' });
      refreshStatus(ctx, item.importId);
    }
  });
  placeStaticTracks(ctx, (job, trackId) => placeImportedTrack(ctx, job, trackId));
  ctx.playlists.onChange((change) => {
    if (change.type === 'changed' && change.ref.kind === 'shared') noteSharedJoins(ctx, change.ref.id);
  });
  // After a restart: imports cut short go on (downloads filed meanwhile join through the playlists' sweep).
  for (const row of playlistImports.unfinished(ctx.db))
    if (row.status === 'matching') ctx.jobs.enqueue(IMPORT_QUEUE, { importId: row.id }, { dedupeKey: `import:${row.id}`, name: `import ${row.name}` });
}

/** Imports as activity items (api.md's activity object, kind `playlist_import`), newest first. */
export function importActivity(ctx: Deps, limit = 200) {
  return playlistImports.recent(ctx.db, limit).map((row) => {
    const counts = playlistImports.counts(ctx.db, row.id);
    return {
      id: `import:${row.id}`,
      status: row.status === 'failed' ? ('failed' as const) : row.status === 'done' ? ('available' as const) : ('processing' as const),
      statusLabel: row.status === 'matching' ? 'Matching tracks' : row.status === 'downloading' ? 'Downloading missing tracks' : row.status === 'done' ? 'Imported' : 'Failed',
      title: row.name,
      kind: 'playlist_import' as const,
      artistName: null,
      trackName: null,
      mbid: `import:${row.id}`,
      artistMbid: null,
      albumMbid: null,
      albumId: null,
      artistId: null,
      managedBy: 'aurral' as const,
      source: row.source,
      playlistType: row.targetType,
      playlistId: row.targetId,
      counts,
      requestedAt: new Date(row.createdAt).toISOString(),
      updatedAt: new Date(row.updatedAt).toISOString(),
    };
  });
}
