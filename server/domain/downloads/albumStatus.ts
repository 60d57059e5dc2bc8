import type { Db } from '../../db/connection.js';
import { downloads, type DownloadJobRow, type DownloadStatus } from '../../db/downloads.js';
import type { DownloadAlbumRow } from '../../db/downloadAlbums.js';
import { requests } from '../../db/requests.js';

/**
 * A self-managed album's status (decisions §5): per-track counts over the album's release, the
 * album status name, progress, and the recovery code and message when action is needed. Reads the
 * database only; the track list is handed in (albums.ts supplies it from the request or the cache).
 */

export type AlbumStatusName = 'complete' | 'downloading' | 'queued' | 'blocked' | 'cancelled' | 'failed' | 'partial' | 'missing';
export type RecoveryCode = 'download_source_missing' | 'review_required' | 'source_failed';

export interface AlbumCounts {
  total: number;
  complete: number;
  downloading: number;
  queued: number;
  blocked: number;
  failed: number;
  cancelled: number;
  missing: number;
}

export interface AlbumStatus {
  id: string;
  albumId: number;
  albumMbid: string;
  releaseMbid: string | null;
  artistMbid: string | null;
  artistName: string;
  title: string;
  monitored: boolean;
  managedBy: 'aurral';
  status: AlbumStatusName;
  /** Percent of the album on disk, running transfers included. */
  progress: number;
  counts: AlbumCounts;
  recovery: { code: RecoveryCode; message: string } | null;
  /** A human line for lists (mirrors recovery when there is one). */
  message: string | null;
  updatedAt: string;
}

/** One track of the album's release. */
export interface AlbumTrack {
  recordingMbid: string;
  title: string;
  artistName: string;
  trackNumber: number;
  discNumber: number;
  durationMs: number | null;
}

/** What to set up when no download source exists (recovery message here, NOT_CONFIGURED detail in albums.ts). */
export const SOURCES_TO_SET_UP =
  'No download source is set up: set up slskd, Usenet (Prowlarr with SABnzbd or NZBGet) or yt-dlp in Settings → Downloads';
/** Job statuses still in flight. */
export const OPEN: DownloadStatus[] = ['pending', 'downloading', 'blocked'];

const iso = (ms: number) => new Date(ms).toISOString();

/** The newest job of the album per recording. */
export function latestJobs(db: Db, albumId: number): Map<string, DownloadJobRow> {
  const rows = downloads.list(db, { albumId, limit: 10_000, offset: 0 });
  const map = new Map<string, DownloadJobRow>();
  for (const r of rows) {
    const key = r.recordingMbid ?? `${r.discNumber ?? 1}/${r.trackNumber ?? 0}/${r.trackName}`;
    if (!map.has(key)) map.set(key, r); // newest first
  }
  return map;
}

/**
 * decisions §5: each track of the release is complete (owned, or its job done), downloading,
 * queued (pending), blocked, failed, cancelled or missing (nothing wanted it yet); a track without a
 * job of this album but with an open job elsewhere (a single-track request) counts as that job.
 */
export function albumStatusOf(db: Db, album: DownloadAlbumRow, tracks: AlbumTrack[] | null): AlbumStatus {
  const byTrack = latestJobs(db, album.id);
  const counts: AlbumCounts = { total: 0, complete: 0, downloading: 0, queued: 0, blocked: 0, failed: 0, cancelled: 0, missing: 0 };
  let running = 0;
  const add = (job: DownloadJobRow | undefined, owned: () => boolean) => {
    counts.total++;
    if (job?.status === 'done') return void counts.complete++;
    if (job && OPEN.includes(job.status)) {
      if (job.status === 'downloading') {
        counts.downloading++;
        running += Math.max(0, Math.min(100, job.progress));
      } else if (job.status === 'pending') counts.queued++;
      else counts.blocked++;
      return;
    }
    if (owned()) return void counts.complete++;
    if (job?.status === 'failed') return void counts.failed++;
    if (job?.status === 'cancelled') return void counts.cancelled++;
    counts.missing++;
  };
  if (tracks) {
    for (const t of tracks) {
      let job = byTrack.get(t.recordingMbid);
      if (!job || !OPEN.includes(job.status)) {
        const elsewhere = downloads.findOpen(db, { recordingMbid: t.recordingMbid, artistName: t.artistName, trackName: t.title });
        if (elsewhere && job?.status !== 'done') job = elsewhere;
      }
      add(job, () => requests.ownedTrackId(db, { mbid: t.recordingMbid, title: t.title, artistName: t.artistName }) !== undefined);
    }
  } else {
    // The track list is not cached: the album's jobs are all that is known.
    for (const job of byTrack.values()) add(job, () => false);
  }
  const waiting = album.waitingForSource === 1 && album.monitored === 1;
  const settled = counts.downloading + counts.queued + counts.blocked === 0;
  let status: AlbumStatusName;
  if (counts.total > 0 && counts.complete === counts.total) status = 'complete';
  else if (counts.downloading > 0) status = 'downloading';
  else if (counts.queued > 0) status = 'queued';
  else if (counts.blocked > 0 || waiting) status = 'blocked';
  else if (counts.complete > 0) status = 'partial';
  else if (counts.failed > 0) status = 'failed';
  else if (counts.cancelled > 0 || album.monitored === 0) status = 'cancelled';
  else status = 'missing';

  let recovery: AlbumStatus['recovery'] = null;
  if (status !== 'complete') {
    if (waiting) recovery = { code: 'download_source_missing', message: `${SOURCES_TO_SET_UP}; the album is saved and starts once one is` };
    else if (counts.blocked > 0)
      recovery = { code: 'review_required', message: `${counts.blocked} track${counts.blocked === 1 ? '' : 's'} held for review: approve or deny them` };
    else if (counts.failed > 0 && settled)
      recovery = { code: 'source_failed', message: `${counts.failed} track${counts.failed === 1 ? '' : 's'} could not be downloaded from any source: request the album again to retry` };
  }
  const progress = counts.total === 0 ? 0 : Math.round(((counts.complete * 100 + running) / counts.total) * 10) / 10;
  return {
    id: `aurral:${album.id}`,
    albumId: album.id,
    albumMbid: album.albumMbid,
    releaseMbid: album.releaseMbid,
    artistMbid: album.artistMbid,
    artistName: album.artistName,
    title: album.albumName,
    monitored: album.monitored === 1,
    managedBy: 'aurral',
    status,
    progress,
    counts,
    recovery,
    message: recovery?.message ?? null,
    updatedAt: iso(album.updatedAt),
  };
}
