import { downloads, type DownloadJobRow, type DownloadStatus } from '../../db/downloads.js';
import { downloadAlbums, type DownloadAlbumRow } from '../../db/downloadAlbums.js';
import { requests } from '../../db/requests.js';
import type { MbRelease, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { NotConfiguredError, NotFoundError, ValidationError } from '../errors.js';
import { releaseTracks, representativeRelease } from '../metadata/present.js';
import { albumStatusOf, latestJobs, OPEN, SOURCES_TO_SET_UP, type AlbumStatus, type AlbumTrack } from './albumStatus.js';
import { cancelJob, type Deps as DownloadsCancelDeps } from './cancel.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';
import type { SettingsStore } from '../settings/store.js';
import type { DownloadService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log' | 'onClose'>
  & {
    settings: SettingsStore;
    albumDownloads: AlbumDownloads;
    downloads: DownloadService;
    metadata: MetadataService;
  }
  & DownloadsCancelDeps;

/**
 * Self-managed albums (managedBy `aurral`): an album request becomes one track job per track of the
 * release the metadata layer presents for the release group (its earliest official release). Owned
 * tracks count as complete and get no job. Without any usable download source the request is saved
 * (`waiting_for_source`) and its jobs are created once a source appears (settings change, start-up).
 * Cancelling keeps finished tracks; requesting again retries failed and cancelled ones.
 */

export interface AurralAlbumInput {
  albumMbid: string;
  albumName?: string;
  artistMbid?: string;
  artistName?: string;
}

export interface AurralTrackInput {
  artistName: string;
  trackName: string;
  trackMbid?: string;
  albumMbid?: string;
  albumName?: string;
  artistMbid?: string;
}

const ARTIST_ALBUMS_QUEUE = 'aurral-album-request';

const creditName = (credits: MbReleaseGroup['artist-credit']) => credits.map((c) => c.name + (c.joinphrase ?? '')).join('');
const userIdOf = (p: Principal | null) => (p && isUserAccount(p) ? p.userId : null);
const iso = (ms: number) => new Date(ms).toISOString();

export class AlbumDownloads {
  private started = false;
  private resuming: Promise<number> | null = null;

  constructor(private readonly ctx: Deps) {}

  private get metadata() {
    return this.ctx.metadata;
  }

  private get jobs() {
    return this.ctx.downloads;
  }

  hasSource(): boolean {
    return this.jobs.sources().length > 0;
  }

  /**
   * Background part: albums saved without a source get their jobs when one appears (checked once
   * the other services have registered their sources, and on every settings change), and the queue
   * that requests an artist's albums one by one.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.ctx.jobs.register<{ albumMbid: string; artistMbid: string | null; artistName: string | null; userId: number | null }>(ARTIST_ALBUMS_QUEUE, {
      concurrency: 1,
      maxAttempts: 5,
      backoff: { baseMs: 30_000, maxMs: 3600_000 },
      handler: async ({ payload }) => {
        await this.request(payload.userId, {
          albumMbid: payload.albumMbid,
          artistMbid: payload.artistMbid ?? undefined,
          artistName: payload.artistName ?? undefined,
        });
      },
    });
    const off = this.ctx.settings.onChange(() => void this.resumeWaiting());
    const timer = setTimeout(() => void this.resumeWaiting(), 0);
    timer.unref?.();
    this.ctx.onClose(() => {
      off();
      clearTimeout(timer);
    });
  }

  /** Creates the jobs of every album saved while no source existed, once one does; returns how many albums. */
  resumeWaiting(): Promise<number> {
    if (this.resuming) return this.resuming;
    this.resuming = (async () => {
      if (!this.hasSource()) return 0;
      let n = 0;
      for (const album of downloadAlbums.waitingForSource(this.ctx.db)) {
        try {
          const tracks = await this.tracksOf(album);
          this.createJobs(album, tracks, album.userId);
          downloadAlbums.update(this.ctx.db, album.id, { waitingForSource: false }, this.ctx.clock.now());
          n++;
        } catch (err) {
          this.ctx.log.warn('waiting album could not be queued', { albumId: album.id, error: err instanceof Error ? err.message : String(err) });
        }
      }
      return n;
    })().finally(() => {
      this.resuming = null;
    });
    return this.resuming;
  }

  // --- requests ------------------------------------------------------------------------------

  /** The release group, the release whose track list is used, and that track list. */
  private async resolve(albumMbid: string): Promise<{ group: MbReleaseGroup; release: MbRelease; tracks: AlbumTrack[] }> {
    requireMbid(albumMbid, 'albumMbid');
    const group = await this.metadata.releaseGroup(albumMbid);
    const releaseId = representativeRelease(group);
    if (!releaseId) throw new NotFoundError('Release not found', 'The release group has no releases to take a track list from');
    const release = await this.metadata.release(releaseId);
    return { group, release, tracks: toTracks(release) };
  }

  private async tracksOf(album: DownloadAlbumRow): Promise<AlbumTrack[]> {
    if (album.releaseMbid) return toTracks(await this.metadata.release(album.releaseMbid));
    return (await this.resolve(album.albumMbid)).tracks;
  }

  /** The track list from the metadata cache only (status answers never wait on MusicBrainz). */
  private cachedTracks(album: DownloadAlbumRow): AlbumTrack[] | null {
    if (!album.releaseMbid) return null;
    const release = this.metadata.peek('release', album.releaseMbid) as MbRelease | null | undefined;
    return release ? toTracks(release) : null;
  }

  /**
   * Requests an album: saves it and creates a job per track that is neither owned nor already being
   * fetched; failed and cancelled jobs of the album are retried. Without a source it is saved to
   * wait for one.
   */
  async request(user: Principal | number | null, input: AurralAlbumInput) {
    const userId = typeof user === 'number' || user === null ? user : userIdOf(user);
    const { group, release, tracks } = await this.resolve(input.albumMbid);
    const artistCredit = group['artist-credit'];
    const existing = downloadAlbums.byMbid(this.ctx.db, group.id);
    const source = this.hasSource();
    const album = downloadAlbums.upsert(
      this.ctx.db,
      {
        albumMbid: group.id,
        releaseMbid: release.id,
        artistMbid: artistCredit[0]?.artist.id ?? input.artistMbid ?? null,
        artistName: creditName(artistCredit) || input.artistName || 'Unknown artist',
        albumName: group.title || input.albumName || group.id,
        userId,
        waitingForSource: !source,
      },
      this.ctx.clock.now(),
    );
    const created = source ? this.createJobs(album, tracks, userId ?? album.userId) : [];
    const status = this.statusOf(downloadAlbums.get(this.ctx.db, album.id)!, tracks);
    return {
      success: true as const,
      createdArtist: false,
      createdAlbum: !existing,
      queued: created.length > 0,
      artist: {
        id: null,
        mbid: album.artistMbid ?? '',
        artistName: album.artistName,
        monitored: true,
        managedBy: 'aurral' as const,
      },
      album: {
        id: album.id,
        canonicalId: `aurral:${album.id}`,
        mbid: album.albumMbid,
        releaseMbid: album.releaseMbid,
        title: album.albumName,
        monitored: true,
        trackCount: tracks.length,
        managedBy: 'aurral' as const,
      },
      status: status.status,
      managedBy: 'aurral' as const,
      albumStatus: status,
      jobIds: created.map((j) => String(j.id)),
      requestId: `aurral:${album.id}`,
    };
  }

  /** Jobs for the tracks still wanted; returns the jobs created or retried. */
  private createJobs(album: DownloadAlbumRow, tracks: AlbumTrack[], userId: number | null): DownloadJobRow[] {
    const db = this.ctx.db;
    const jobs = this.jobs;
    const byTrack = latestJobs(this.ctx.db, album.id);
    const group = this.metadata.peek('release-group', album.albumMbid) as MbReleaseGroup | null | undefined;
    const year = Number.parseInt(group?.['first-release-date']?.slice(0, 4) ?? '', 10) || null;
    const out: DownloadJobRow[] = [];
    for (const t of tracks) {
      const job = byTrack.get(t.recordingMbid);
      if (job && (job.status === 'done' || OPEN.includes(job.status))) continue;
      if (requests.ownedTrackId(db, { mbid: t.recordingMbid, title: t.title, artistName: t.artistName }) !== undefined) continue;
      if (job) {
        // Failed or cancelled: the same job searches again (its denied sources stay denied).
        const reset = jobs.transition(
          job.id,
          { status: 'pending', phase: null, error: null, blockReason: null, progress: 0, downloadSource: null, sourceState: null, completedAt: null },
          ['failed', 'cancelled'],
        );
        if (reset) out.push(jobs.schedule(reset) ?? reset);
        continue;
      }
      if (downloads.findOpen(db, { recordingMbid: t.recordingMbid, artistName: t.artistName, trackName: t.title })) continue;
      out.push(
        jobs.create({
          userId,
          playlistType: 'library',
          albumId: album.id,
          artistName: t.artistName,
          trackName: t.title,
          albumName: album.albumName,
          artistMbid: album.artistMbid,
          albumMbid: album.albumMbid,
          releaseMbid: album.releaseMbid,
          recordingMbid: t.recordingMbid,
          trackNumber: t.trackNumber,
          discNumber: t.discNumber,
          durationMs: t.durationMs,
          // The track list is the release's on MusicBrainz (or the Lidarr-format provider's copy of it).
          durationSource: 'musicbrainz:release',
          year,
        }),
      );
    }
    return out;
  }

  // --- status --------------------------------------------------------------------------------

  album(id: number): DownloadAlbumRow {
    const album = downloadAlbums.get(this.ctx.db, id);
    if (!album) throw new NotFoundError('Album not found', `No self-managed album ${id}`);
    return album;
  }

  status(id: number): AlbumStatus {
    return this.statusOf(this.album(id));
  }

  /** Statuses of these albums (unknown ids left out). */
  statuses(ids: number[]): Record<string, AlbumStatus> {
    const out: Record<string, AlbumStatus> = {};
    for (const id of ids) {
      const album = downloadAlbums.get(this.ctx.db, id);
      if (album) out[`aurral:${id}`] = this.statusOf(album);
    }
    return out;
  }

  /** Every self-managed album's status. */
  allStatuses(): Record<string, AlbumStatus> {
    const out: Record<string, AlbumStatus> = {};
    for (const album of downloadAlbums.all(this.ctx.db)) out[`aurral:${album.id}`] = this.statusOf(album);
    return out;
  }

  /** The album's status, from this track list or else the cached one (see albumStatus.ts). */
  statusOf(album: DownloadAlbumRow, knownTracks?: AlbumTrack[]): AlbumStatus {
    return albumStatusOf(this.ctx.db, album, knownTracks ?? this.cachedTracks(album));
  }

  // --- changes -------------------------------------------------------------------------------

  /**
   * Cancels the album's pending and downloading jobs (blocked ones wait for review and finished
   * ones stay) and stops wanting it; running transfers are stopped at their source.
   */
  cancel(id: number): { success: true; cancelled: number; albumStatus: AlbumStatus } {
    const album = this.album(id);
    const cancelled = this.cancelOpen(album.id, ['pending', 'downloading']);
    downloadAlbums.update(this.ctx.db, album.id, { monitored: false, waitingForSource: false }, this.ctx.clock.now());
    return { success: true, cancelled, albumStatus: this.status(album.id) };
  }

  private cancelOpen(albumId: number, from: DownloadStatus[]): number {
    let n = 0;
    for (const job of downloads.list(this.ctx.db, { albumId, status: from, limit: 10_000, offset: 0 })) {
      const done = cancelJob(this.ctx, job, from);
      if (done) n++;
    }
    return n;
  }

  /** `PUT .../aurral/:id {monitored}`: monitoring again requests the album again; unmonitoring stops a waiting request (jobs already queued run on; cancel stops them). */
  async setMonitored(id: number, monitored: boolean, principal: Principal | null): Promise<AlbumStatus> {
    const album = this.album(id);
    if (monitored) {
      await this.request(principal ?? album.userId, { albumMbid: album.albumMbid });
    } else {
      downloadAlbums.update(this.ctx.db, album.id, { monitored: false, waitingForSource: false }, this.ctx.clock.now());
    }
    return this.status(album.id);
  }

  /**
   * Removes the album request: its unfinished jobs are cancelled (transfers stopped, held files
   * removed from staging), then the album and its job rows go. Files in the library stay.
   */
  remove(id: number): number {
    const album = downloadAlbums.get(this.ctx.db, id);
    if (!album) return 0;
    this.cancelOpen(album.id, ['pending', 'downloading', 'blocked']);
    return downloadAlbums.delete(this.ctx.db, album.id);
  }

  byMbid(albumMbid: string): DownloadAlbumRow | undefined {
    return downloadAlbums.byMbid(this.ctx.db, albumMbid);
  }

  // --- single tracks -------------------------------------------------------------------------

  /**
   * api.md's rules for one self-managed track (ownership is checked by the caller): an open job for
   * the same track → alreadyQueued; no source → NOT_CONFIGURED; else a `library` job of its own.
   */
  requestTrack(principal: Principal, input: AurralTrackInput) {
    const open = downloads.findOpen(this.ctx.db, { recordingMbid: input.trackMbid, artistName: input.artistName, trackName: input.trackName });
    if (open) return { httpStatus: 202 as const, body: { success: true as const, queued: true as const, jobId: String(open.id), alreadyQueued: true as const } };
    if (!this.hasSource()) throw new NotConfiguredError('downloads.sources', SOURCES_TO_SET_UP);
    const job = this.jobs.create({
      userId: userIdOf(principal),
      playlistType: 'library',
      artistName: input.artistName,
      trackName: input.trackName,
      albumName: input.albumName ?? null,
      artistMbid: input.artistMbid ?? null,
      albumMbid: input.albumMbid ?? null,
      recordingMbid: input.trackMbid ?? null,
    });
    return { httpStatus: 202 as const, body: { success: true as const, queued: true as const, jobId: String(job.id), managedBy: 'aurral' as const } };
  }

  // --- artists -------------------------------------------------------------------------------

  /**
   * Adds a self-managed artist: records the request and, by monitor mode, requests albums (studio
   * albums: primary type Album without secondary types). `all` and `missing` request every one (a
   * complete album creates no jobs), `latest` the newest, `first` the earliest; `none` and `future`
   * request nothing now (following new releases is not done yet). Albums are requested one by one
   * on a durable queue, so a MusicBrainz outage retries later.
   */
  async addArtist(principal: Principal | null, input: { mbid: string; artistName?: string; monitor?: string; monitored?: boolean }) {
    const mode = input.monitor ?? 'none';
    if (mode === 'existing') throw new ValidationError('Monitor mode "existing" needs Lidarr to manage the artist', 'unsupported_monitor_mode');
    requireMbid(input.mbid, 'mbid');
    const doc = await this.metadata.artist(input.mbid);
    const groups = doc.releaseGroups.filter((g) => g['primary-type'] === 'Album' && (g['secondary-types'] ?? []).length === 0);
    const dated = [...groups].sort((a, b) => (a['first-release-date'] || '9999').localeCompare(b['first-release-date'] || '9999'));
    let chosen: MbReleaseGroup[] = [];
    if (mode === 'all' || mode === 'missing') chosen = dated;
    else if (mode === 'latest') chosen = dated.filter((g) => g['first-release-date']).slice(-1);
    else if (mode === 'first') chosen = dated.slice(0, 1);
    const chosenIds = new Set(chosen.map((g) => g.id));
    const skipped = doc.releaseGroups
      .filter((g) => !chosenIds.has(g.id))
      .map((g) => ({ releaseGroupId: g.id, title: g.title, reason: groups.includes(g) ? `not chosen by monitor mode ${mode}` : 'not a studio album' }));
    const existing = requests.find(this.ctx.db, 'artist', input.mbid);
    const userId = userIdOf(principal);
    requests.upsert(
      this.ctx.db,
      { kind: 'artist', requestKey: input.mbid, artistMbid: input.mbid, artistName: doc.artist.name, title: doc.artist.name, userId, status: 'available' },
      this.ctx.clock.now(),
    );
    for (const g of chosen) {
      this.ctx.jobs.enqueue(
        ARTIST_ALBUMS_QUEUE,
        { albumMbid: g.id, artistMbid: input.mbid, artistName: doc.artist.name, userId },
        { dedupeKey: `aurral-album:${g.id}`, name: `request ${g.title}` },
      );
    }
    return {
      created: !existing,
      artist: {
        id: null,
        mbid: input.mbid,
        artistName: doc.artist.name,
        monitored: input.monitored ?? mode !== 'none',
        managedBy: 'aurral' as const,
        monitoring: { mode, releaseGroupIds: chosen.map((g) => g.id), skipped },
      },
    };
  }

  // --- activity ------------------------------------------------------------------------------

  /** Album requests and single-track jobs as activity items (api.md's activity object). */
  activity() {
    const items = [];
    for (const album of downloadAlbums.all(this.ctx.db)) {
      const s = this.statusOf(album);
      items.push({
        id: `aurral:${album.id}`,
        status: s.status === 'complete' ? ('available' as const) : ['downloading', 'queued', 'blocked'].includes(s.status) ? ('processing' as const) : ('failed' as const),
        title: album.albumName,
        kind: 'album_requested' as const,
        artistName: album.artistName,
        trackName: null,
        mbid: album.albumMbid,
        artistMbid: album.artistMbid,
        albumMbid: album.albumMbid,
        albumId: album.id,
        artistId: null,
        albumStatus: s,
        requestedAt: iso(album.createdAt),
        updatedAt: iso(album.updatedAt),
        managedBy: 'aurral' as const,
        createdAtMs: album.createdAt,
      });
    }
    for (const j of downloads.singleTrackJobs(this.ctx.db, 500)) {
      items.push({
        id: `job:${j.id}`,
        status: j.status === 'done' ? ('available' as const) : j.status === 'failed' || j.status === 'cancelled' ? ('failed' as const) : ('processing' as const),
        title: j.trackName,
        kind: 'track_download' as const,
        artistName: j.artistName,
        trackName: j.trackName,
        mbid: j.recordingMbid ?? `job:${j.id}`,
        artistMbid: j.artistMbid,
        albumMbid: j.albumMbid,
        albumId: null,
        artistId: null,
        jobId: String(j.id),
        jobStatus: j.status,
        requestedAt: iso(j.createdAt),
        updatedAt: iso(j.updatedAt),
        managedBy: 'aurral' as const,
        createdAtMs: j.createdAt,
      });
    }
    return items;
  }
}

function toTracks(release: MbRelease): AlbumTrack[] {
  return releaseTracks(release, new Set()).map((t) => ({
    recordingMbid: t.mbid,
    title: t.title,
    artistName: t.artistName,
    trackNumber: t.trackNumber,
    discNumber: t.discNumber,
    durationMs: t.durationMs,
  }));
}

/** `aurral:<id>` (or a bare id) → the album id; null for anything else. */
export function aurralAlbumId(key: string): number | null {
  const m = /^aurral:(\d+)$/.exec(key.trim());
  return m ? Number(m[1]) : null;
}


export function startAlbumDownloads(ctx: Deps): void {
  ctx.albumDownloads.start();
}

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Self-managed requests look their MBIDs up at MusicBrainz: anything else is refused before that. */
function requireMbid(value: string, field: string): void {
  if (!MBID.test(value)) throw new ValidationError(`${field}: must be a MusicBrainz id (a UUID)`);
}
