/**
 * The composition root: every area's routes, routers and start functions, assembled at the top of
 * the server (server.ts hands them to http/app.ts), so nothing below imports upward.
 */
import type { AppContext } from './context.js';
import { artistEnrichmentRoutes } from './api/artists/enrichment.js';
import { artistRoutes } from './api/artists/routes.js';
import { oidcRoutes, ssoRouter } from './api/auth/oidc.js';
import { authRoutes } from './api/auth/routes.js';
import { connectRoutes } from './api/connect/routes.js';
import { filesystemRoutes } from './api/filesystem/routes.js';
import { healthRoutes } from './api/health/routes.js';
import { libraryArea, startIdentify, startLibrary } from './api/library/area.js';
import { startReplayGain } from './domain/library/replayGain.js';
import { aurralLibraryRoutes } from './api/library-aurral/routes.js';
import { lidarrLibraryRoutes } from './api/library-lidarr/routes.js';
import { lidarrSettingsRoutes } from './api/lidarr/routes.js';
import { playlistWorkerRoutes } from './api/playlists/worker.js';
import { sharedPlaylistRoutes } from './api/playlists/shared.js';
import { startPlaylists } from './domain/playlists/start.js';
import { plexRoutes } from './api/plex/routes.js';
import { startPlexSync } from './domain/plex/sync.js';
import { playlistArtworkRoutes } from './api/playlists/artwork.js';
import { staticPlaylistRoutes } from './api/playlists/static.js';
import { startPlaylistArtwork } from './domain/playlists/artwork.js';
import { notificationRoutes } from './api/notifications/routes.js';
import { newsRoutes } from './api/news/routes.js';
import { inboxRoutes } from './api/inbox/routes.js';
import { startInbox } from './domain/inbox/service.js';
import { nearbyShowsRoutes } from './api/discover/nearbyShows.js';
import { startNews } from './domain/news/service.js';
import { requestsRoutes } from './api/requests/routes.js';
import { slskdSettingsRoutes } from './api/slskd/routes.js';
import { searchRoutes } from './api/search/routes.js';
import { scrobblingRoutes } from './api/scrobbling/routes.js';
import { playbackRoutes } from './api/playback/routes.js';
import { startPlayback } from './domain/playback/service.js';
import { importRoutes } from './api/imports/routes.js';
import { startImports } from './domain/imports/service.js';
import { webhookRoutes } from './api/webhooks/routes.js';
import { startAlbumDownloads } from './domain/downloads/albums.js';
import { startDownloadControl } from './domain/downloads/control.js';
import { startLidarr } from './domain/lidarr/service.js';
import { startEnrichment } from './domain/metadata/enrichment.js';
import { startMetadata } from './domain/metadata/service.js';
import { startNotifications } from './domain/notifications/service.js';
import { startSearch } from './domain/search/service.js';
import { startScrobbling } from './domain/scrobbling/service.js';
import { onboardingRoutes } from './api/onboarding/routes.js';
import { restKeyRoutes } from './api/rest-keys/routes.js';
import { settingsRoutes } from './api/settings/routes.js';
import { taskRoutes } from './api/settings/tasks.js';
import { storageHealthRoutes } from './api/settings/storage.js';
import { recentReleaseRoutes } from './api/library/releases.js';
import { usenetSettingsRoutes } from './api/usenet/routes.js';
import { downloadClientRoutes } from './api/downloads/clients.js';
import { usersRoutes } from './api/users/routes.js';
import { downloadJobRoutes } from './api/playlists/jobs.js';
import { flowRoutes } from './api/playlists/flows.js';
import { startFlows } from './domain/flows/start.js';
import { startDownloads } from './domain/downloads/start.js';
import { discoverRoutes } from './api/discover/routes.js';
import { startDiscovery } from './domain/discovery/service.js';
import { createRestRouter } from './rest/router.js';
import { shareRouter } from './share/routes.js';
import type { RouteDefinition } from './http/route.js';

/** Every area of /api, in the order of api.md. Each later area adds its factory here. */
const areas: ((ctx: AppContext) => RouteDefinition[])[] = [
  healthRoutes,
  authRoutes,
  oidcRoutes,
  usersRoutes,
  settingsRoutes,
  taskRoutes,
  storageHealthRoutes,
  onboardingRoutes,
  filesystemRoutes,
  libraryArea,
  scrobblingRoutes,
  plexRoutes,
  artistRoutes,
  recentReleaseRoutes,
  searchRoutes,
  discoverRoutes,
  artistEnrichmentRoutes,
  restKeyRoutes,
  connectRoutes,
  lidarrSettingsRoutes,
  slskdSettingsRoutes,
  usenetSettingsRoutes,
  downloadClientRoutes,
  notificationRoutes,
  lidarrLibraryRoutes,
  aurralLibraryRoutes,
  requestsRoutes,
  webhookRoutes,
  downloadJobRoutes,
  playlistWorkerRoutes,
  sharedPlaylistRoutes,
  flowRoutes,
  playlistArtworkRoutes,
  staticPlaylistRoutes,
  importRoutes,
  nearbyShowsRoutes,
  newsRoutes,
  playbackRoutes,
  inboxRoutes,
];

export function apiRoutes(ctx: AppContext): RouteDefinition[] {
  return areas.flatMap((area) => area(ctx));
}

/** Background services started once the context exists (scanner, watchers, pollers); each registers its own stop with ctx.onClose. */
export const services: ((ctx: AppContext) => void | Promise<void>)[] = [
  startLibrary,
  startReplayGain,
  startLidarr,
  startMetadata,
  startIdentify,
  startSearch,
  startEnrichment,
  startDownloads,
  startDownloadControl,
  startNotifications,
  startDiscovery,
  startFlows,
  startNews,
  startInbox,
  startScrobbling,
  startPlaylists,
  startPlexSync,
  startPlayback,
  startPlaylistArtwork,
  startImports,
  // After every service that registers a download source: waiting album requests start here.
  startAlbumDownloads,
];

/** Non-/api routers (the Subsonic API under /rest, public share pages under /share). */
export const routers: ((ctx: AppContext) => { mount: string; router: import('express').Router })[] = [
  (ctx) => ({ mount: '/rest', router: createRestRouter(ctx) }),
  (ctx) => ({ mount: '/share', router: shareRouter(ctx) }),
  (ctx) => ({ mount: '/sso', router: ssoRouter(ctx) }),
];
