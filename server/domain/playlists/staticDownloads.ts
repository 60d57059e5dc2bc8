import type { DownloadJobRow } from '../../db/downloads.js';
import { playlistsRepository } from '../../db/playlists.js';
import { requests } from '../../db/requests.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { attachFinishedJobs, type Deps as PlaylistsAttachDeps } from './attach.js';
import { staticRef, type PlaylistRegistry } from './registry.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db'>
  & {
    downloads: DownloadService;
    playlists: PlaylistRegistry;
    staticPlacers: StaticPlacer[];
  }
  & PlaylistsAttachDeps;

/**
 * Static playlists with download-backed tracks: a track asked for by artist and title that the
 * library does not hold becomes a download job (`playlist_type` `static`, `playlist_id` the
 * playlist's id) and is appended to the playlist once the job is done and the track is scanned.
 * Anything that creates such jobs (Subsonic-free imports, presets) gets the same joining.
 */

export const STATIC = 'static';

export interface WantedTrack {
  artistName: string;
  trackName: string;
  albumName?: string | null;
  recordingMbid?: string | null;
  durationMs?: number | null;
}

/**
 * Adds a track to the user's static playlist: appended now when owned, otherwise a download job
 * whose track joins when done. 404 for a playlist the user cannot see, 403 for someone else's.
 */
export function addStaticTrackByName(
  ctx: Deps,
  userId: number,
  playlistId: number,
  t: WantedTrack,
): { trackId: number; job: null } | { trackId: null; job: DownloadJobRow } {
  const repo = playlistsRepository(ctx.db);
  const row = repo.byId(playlistId);
  if (!row || (row.user_id !== userId && row.public !== 1)) throw new NotFoundError('Playlist not found');
  if (row.user_id !== userId) throw new ForbiddenError('Only the owner can change this playlist');
  const artistName = t.artistName.trim();
  const trackName = t.trackName.trim();
  if (!artistName || !trackName) throw new ValidationError('artistName and trackName are required');
  const owned = requests.ownedTrackId(ctx.db, { mbid: t.recordingMbid ?? null, title: trackName, artistName });
  if (owned !== undefined) {
    repo.update(playlistId, { trackIds: [...repo.trackIds(playlistId), owned] }, ctx.clock.now());
    ctx.playlists.changed(staticRef(repo.byId(playlistId)!));
    return { trackId: owned, job: null };
  }
  const job = ctx.downloads.create({
    userId,
    playlistType: STATIC,
    playlistId: String(playlistId),
    artistName,
    trackName,
    albumName: t.albumName ?? null,
    recordingMbid: t.recordingMbid ?? null,
    durationMs: t.durationMs ?? null,
  });
  return { trackId: null, job };
}

/**
 * Puts a finished job's track where its creator wants it (an import keeps the source's order);
 * returns false when the job is not one of its own, and the track is appended.
 */
export type StaticPlacer = (job: DownloadJobRow, trackId: number) => boolean;

/** Lets a feature that creates static-playlist jobs place their tracks itself (inside the joining transaction). */
export function placeStaticTracks(ctx: Deps, placer: StaticPlacer): void {
  ctx.staticPlacers.push(placer);
}

/** Registers the joining of finished static-playlist jobs (start-up). */
export function startStaticDownloads(ctx: Deps): void {
  const repo = playlistsRepository(ctx.db);
  attachFinishedJobs(ctx, STATIC, (job, trackId) => {
    const id = Number(job.playlistId);
    if (!Number.isSafeInteger(id) || !repo.byId(id)) return false;
    const placed = ctx.staticPlacers.some((place) => place(job, trackId));
    if (!placed) repo.update(id, { trackIds: [...repo.trackIds(id), trackId] }, ctx.clock.now());
    return () => {
      const row = repo.byId(id);
      if (row) ctx.playlists.changed(staticRef(row));
    };
  });
}
