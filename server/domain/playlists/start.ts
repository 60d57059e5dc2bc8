import { startRetryCycle, type Deps as PlaylistsRetryCycleDeps } from './retryCycle.js';
import { startSharedPlaylists, type Deps as PlaylistsSharedPlaylistsDeps } from './sharedPlaylists.js';
import { startStaticDownloads, type Deps as PlaylistsStaticDownloadsDeps } from './staticDownloads.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = PlaylistsRetryCycleDeps & PlaylistsSharedPlaylistsDeps & PlaylistsStaticDownloadsDeps;

/** Start-up of static and shared playlists: registry provider, joining of finished jobs, sync and retry cycle. */
export function startPlaylists(ctx: Deps): void {
  startStaticDownloads(ctx);
  startSharedPlaylists(ctx);
  startRetryCycle(ctx);
}
