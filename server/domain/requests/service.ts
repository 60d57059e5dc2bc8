import { nameKey } from '../../db/libraryText.js';
import { requests, type RequestRow } from '../../db/requests.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { LidarrConnection } from '../lidarr/connection.js';
import type { DownloadStatuses } from '../lidarr/downloadStatuses.js';
import { aurralAlbumId, type AlbumDownloads } from '../downloads/albums.js';
import { importActivity, type Deps as ImportsServiceDeps } from '../imports/service.js';
import type { LidarrLibrary, ManagedByInput } from '../lidarr/library.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'log'> & { albumDownloads: AlbumDownloads } & ImportsServiceDeps;

/** Activity (api.md's activity object): requests made through Lidarr and whether they arrived. */

export type ActivityKind = 'album_requested' | 'artist_added' | 'track_download' | 'playlist_import';

export interface Activity {
  id: string;
  status: 'processing' | 'available' | 'failed';
  title: string;
  kind: ActivityKind;
  artistName: string | null;
  trackName: string | null;
  mbid: string;
  artistMbid: string | null;
  albumMbid: string | null;
  albumId: number | null;
  artistId: number | null;
  requestedAt: string;
  updatedAt: string;
  managedBy: 'lidarr' | 'aurral';
}

const KIND: Record<RequestRow['kind'], ActivityKind> = { album: 'album_requested', artist: 'artist_added', track: 'track_download' };
const CACHE_MS = 10_000;

function toActivity(r: RequestRow): Activity {
  return {
    id: String(r.id),
    status: r.status,
    title: r.kind === 'track' && r.trackName ? r.trackName : r.title,
    kind: KIND[r.kind],
    artistName: r.artistName,
    trackName: r.trackName,
    mbid: r.requestKey,
    artistMbid: r.artistMbid,
    albumMbid: r.albumMbid,
    albumId: r.lidarrAlbumId,
    artistId: r.lidarrArtistId,
    requestedAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
    // A self-managed artist is recorded here without a Lidarr id (Lidarr's always have one).
    managedBy: r.kind === 'artist' && r.lidarrArtistId === null ? 'aurral' : 'lidarr',
  };
}

export interface TrackRequestInput {
  artistName: string;
  trackName: string;
  trackMbid?: string;
  albumMbid?: string;
  albumId?: number;
  albumName?: string;
  artistMbid?: string;
  managedBy?: ManagedByInput;
}

export type TrackRequestResult =
  | { httpStatus: 200; body: { success: true; queued: false; alreadyOwned: true; trackId: number } }
  | {
      httpStatus: 202;
      body: { success: true; queued: true; jobId: string | null; alreadyQueued?: true; alreadyMonitored?: true; albumId?: number; status?: string; managedBy?: 'aurral' };
    };

export class RequestsService {
  private cache: { at: number; items: Activity[] } | null = null;

  constructor(
    private readonly ctx: Deps,
    private readonly connection: LidarrConnection,
    private readonly library: LidarrLibrary,
    private readonly statuses: DownloadStatuses,
  ) {}

  /** Requests, newest first; processing ones are checked against Lidarr unless a recent answer is cached. */
  async list(refresh: boolean): Promise<Activity[]> {
    if (!refresh && this.cache && performance.now() - this.cache.at < CACHE_MS) return this.merge(this.cache.items);
    try {
      await this.reconcile();
    } catch (err) {
      // Lidarr unreachable: the stored statuses are still the best answer.
      this.ctx.log.warn('request statuses not refreshed from Lidarr', { error: err instanceof Error ? err.message : String(err) });
    }
    const items = requests.list(this.ctx.db).map(toActivity);
    this.cache = { at: performance.now(), items };
    return this.merge(items);
  }

  /**
   * Lidarr's requests and the self-managed ones (album requests and single-track jobs, whose status
   * comes from their jobs), newest first. The self-managed part is read fresh on every call.
   */
  private merge(lidarrItems: Activity[]): Activity[] {
    const own = this.ctx.albumDownloads
      .activity()
      .map(({ createdAtMs: _c, ...item }) => item);
    const all = [...lidarrItems, ...own, ...importActivity(this.ctx)];
    return all.sort((a, b) => b.requestedAt.localeCompare(a.requestedAt));
  }

  invalidate(): void {
    this.cache = null;
  }

  /** Processing album and track requests become available once Lidarr has every file, failed when its download failed. */
  async reconcile(): Promise<void> {
    const pending = requests.processing(this.ctx.db).filter((r) => r.lidarrAlbumId !== null);
    if (pending.length === 0 || !this.connection.configured) return;
    const statuses = await this.statuses.forAlbums(pending.map((r) => r.lidarrAlbumId!));
    const now = this.ctx.clock.now();
    const available = pending.filter((r) => statuses[r.lidarrAlbumId!]?.status === 'available').map((r) => r.id);
    const failed = pending.filter((r) => statuses[r.lidarrAlbumId!]?.status === 'failed').map((r) => r.id);
    requests.setStatus(this.ctx.db, available, 'available', now);
    requests.setStatus(this.ctx.db, failed, 'failed', now);
  }

  /** Lidarr imported an album (webhook `Download`). */
  markDownloaded(album: { mbid?: string | null; lidarrAlbumId?: number | null }): number {
    const changed = requests.markAlbumAvailable(this.ctx.db, { albumMbid: album.mbid, lidarrAlbumId: album.lidarrAlbumId }, this.ctx.clock.now());
    this.invalidate();
    return changed;
  }

  deleteArtistRequest(mbid: string): { success: true; removed: number } {
    const removed = requests.deleteArtist(this.ctx.db, mbid);
    if (removed === 0) throw new NotFoundError('Artist request not found', 'No artist request for this MBID');
    this.invalidate();
    return { success: true, removed };
  }

  /**
   * Removes an album request: a Lidarr album id, a release-group MBID (Lidarr's request and a
   * self-managed album of that MBID) or `aurral:<id>`. A self-managed album's unfinished jobs are
   * cancelled; files stay.
   */
  deleteAlbumRequest(key: string): { success: true; removed: number } {
    const albums = this.ctx.albumDownloads;
    const aurralId = aurralAlbumId(key);
    let removed = 0;
    if (aurralId !== null) removed = albums.remove(aurralId);
    else if (/^\d+$/.test(key)) removed = requests.deleteAlbum(this.ctx.db, { lidarrAlbumId: Number(key) });
    else {
      removed = requests.deleteAlbum(this.ctx.db, { albumMbid: key });
      const own = albums.byMbid(key);
      if (own) removed += albums.remove(own.id);
    }
    if (removed === 0) throw new NotFoundError('Album request not found', 'No album request for this album');
    this.invalidate();
    return { success: true, removed };
  }

  /**
   * api.md's rules for one track: owned → alreadyOwned (200); the same track or its album already
   * requested → alreadyQueued with that job id (202); its album already monitored in Lidarr → 202
   * with a null job id; otherwise the album is requested through Lidarr (202 with a job id).
   */
  async requestTrack(principal: Principal, input: TrackRequestInput): Promise<TrackRequestResult> {
    const db = this.ctx.db;
    const owned = requests.ownedTrackId(db, { mbid: input.trackMbid, title: input.trackName, artistName: input.artistName });
    if (owned !== undefined) return { httpStatus: 200, body: { success: true, queued: false, alreadyOwned: true, trackId: owned } };
    if (this.library.resolveManagedBy(input.managedBy, principal) === 'aurral') {
      const result = this.ctx.albumDownloads.requestTrack(principal, input);
      this.invalidate();
      return result;
    }
    const key = input.trackMbid ?? `name:${nameKey(input.artistName)}/${nameKey(input.trackName)}`;
    const existing = requests.find(db, 'track', key);
    if (existing?.status === 'processing') {
      return { httpStatus: 202, body: { success: true, queued: true, jobId: String(existing.id), alreadyQueued: true } };
    }
    if (!input.albumMbid && input.albumId === undefined) {
      // Lidarr fetches whole albums; a track without its album needs a self-managed download (managedBy "aurral").
      throw new ValidationError(
        'Lidarr fetches whole albums: pass albumMbid (or albumId) so it can fetch the track\'s album, or managedBy "aurral" to download the track alone',
      );
    }
    const client = this.library.clientFor(input.managedBy, principal);
    const album = input.albumId !== undefined ? await client.album(input.albumId) : await client.albumByForeignId(input.albumMbid!);
    if (input.albumId !== undefined && !album) throw new NotFoundError('Album not found', 'Album not found in Lidarr');
    if (album) {
      const pending = requests.processingForAlbum(db, album.id);
      if (pending) return { httpStatus: 202, body: { success: true, queued: true, jobId: String(pending.id), alreadyQueued: true } };
      if (album.monitored) return { httpStatus: 202, body: { success: true, queued: true, jobId: null, alreadyMonitored: true, albumId: album.id } };
    }
    const result = await this.library.requestLidarrAlbum(principal, {
      albumMbid: album?.foreignAlbumId ?? input.albumMbid!,
      albumName: input.albumName,
      artistMbid: input.artistMbid,
      artistName: input.artistName,
      triggerSearch: true,
      managedBy: 'lidarr',
    });
    const row = requests.upsert(
      db,
      {
        kind: 'track',
        requestKey: key,
        artistMbid: result.artist.mbid,
        albumMbid: result.album.mbid,
        artistName: result.artist.artistName,
        title: result.album.title,
        trackName: input.trackName,
        lidarrArtistId: result.artist.id,
        lidarrAlbumId: result.album.id,
        userId: isUserAccount(principal) ? principal.userId : null,
        status: result.status === 'available' ? 'available' : 'processing',
      },
      this.ctx.clock.now(),
    );
    this.invalidate();
    return { httpStatus: 202, body: { success: true, queued: true, jobId: String(row.id), albumId: result.album.id, status: result.status } };
  }
}
