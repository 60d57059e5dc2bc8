/**
 * The composition root: each area of the server declared once, with its routes, what it starts, its
 * block of the health answer and the features it adds. server.ts starts them in this order and hands
 * their routes to http/app.ts, so nothing below imports upward.
 */
import type express from 'express';
import type { AppContext, HealthContributor } from './context.js';
import { artistEnrichmentRoutes } from './api/artists/enrichment.js';
import { artistRoutes } from './api/artists/routes.js';
import { oidcRoutes, ssoRouter } from './api/auth/oidc.js';
import { authRoutes } from './api/auth/routes.js';
import { connectRoutes } from './api/connect/routes.js';
import { filesystemRoutes } from './api/filesystem/routes.js';
import { healthRoutes } from './api/health/routes.js';
import { imageRoutes } from './api/images/routes.js';
import { identifyRoutes } from './api/library/identify.js';
import { libraryRoutes } from './api/library/routes.js';
import { playEventRoutes } from './api/play-events/routes.js';
import { startIdentify } from './domain/library/identify.js';
import { startLibrary } from './domain/library/service.js';
import { lidarrHealth } from './domain/lidarr/service.js';
import { metadataHealth } from './domain/metadata/service.js';
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

/**
 * One area of the server. Starting happens in the order of `areas` (each start registers its own
 * stop with ctx.onClose); routes of different areas never answer the same request
 * (test/architecture/areas.test.ts), so their order across areas does not matter.
 */
export interface Area {
  /** What the area serves (api.md's section names where there is one). */
  name: string;
  /** Its /api routes, in matching order. */
  routes?: ((ctx: AppContext) => RouteDefinition[])[];
  /** Routers outside /api (mounted after every /api route). */
  routers?: { mount: string; router: (ctx: AppContext) => express.Router }[];
  /** What it starts once the context exists (queues, tasks, watchers, listeners), in order. */
  start?: ((ctx: AppContext) => void | Promise<void>)[];
  /** Its block of the detailed `GET /api/health` answer. */
  health?: (ctx: AppContext) => HealthContributor;
  /** Capability names it adds to `api.features` (decisions §10). */
  features?: string[];
}

export const areas: Area[] = [
  // Areas without background work; their place in the list does not matter.
  { name: 'service and health', routes: [healthRoutes, storageHealthRoutes] },
  { name: 'authentication', routes: [authRoutes, oidcRoutes, connectRoutes], routers: [{ mount: '/sso', router: ssoRouter }] },
  { name: 'users', routes: [usersRoutes, restKeyRoutes] },
  { name: 'settings', routes: [settingsRoutes, taskRoutes, onboardingRoutes, filesystemRoutes] },
  { name: 'client-compatibility API', routers: [{ mount: '/rest', router: createRestRouter }] },
  { name: 'shares', routers: [{ mount: '/share', router: shareRouter }] },
  // Areas with background work, in start order: the library first, every other area may read it.
  {
    name: 'library',
    routes: [libraryRoutes, identifyRoutes, playEventRoutes, imageRoutes, recentReleaseRoutes],
    start: [startLibrary, startReplayGain, startIdentify],
    health: (ctx) => () => ctx.library.health(),
  },
  {
    name: 'lidarr',
    routes: [lidarrSettingsRoutes, lidarrLibraryRoutes, aurralLibraryRoutes, webhookRoutes],
    start: [startLidarr],
    health: (ctx) => () => lidarrHealth(ctx),
    features: ['activity', 'trackDownloads'],
  },
  {
    name: 'artists and release groups',
    routes: [artistRoutes, artistEnrichmentRoutes],
    start: [startMetadata, startEnrichment],
    health: (ctx) => () => metadataHealth(ctx),
  },
  { name: 'search', routes: [searchRoutes], start: [startSearch], features: ['linkSearch'] },
  {
    name: 'downloads',
    routes: [slskdSettingsRoutes, usenetSettingsRoutes, downloadClientRoutes, downloadJobRoutes, playlistWorkerRoutes],
    start: [startDownloads, startDownloadControl],
    features: ['review', 'downloadCancel'],
  },
  { name: 'notifications', routes: [notificationRoutes], start: [startNotifications] },
  {
    name: 'discovery',
    routes: [discoverRoutes, nearbyShowsRoutes],
    start: [startDiscovery],
    health: (ctx) => (principal) => ({ discovery: ctx.discovery.health(principal.userId) }),
    features: ['discover'],
  },
  { name: 'flows', routes: [flowRoutes], start: [startFlows], features: ['flows'] },
  { name: 'news', routes: [newsRoutes], start: [startNews] },
  { name: 'inbox', routes: [inboxRoutes], start: [startInbox] },
  { name: 'scrobbling', routes: [scrobblingRoutes], start: [startScrobbling] },
  { name: 'playlists', routes: [sharedPlaylistRoutes, staticPlaylistRoutes, playlistArtworkRoutes], start: [startPlaylists, startPlaylistArtwork] },
  { name: 'plex', routes: [plexRoutes], start: [startPlexSync] },
  { name: 'playback', routes: [playbackRoutes], start: [startPlayback] },
  { name: 'playlist imports', routes: [importRoutes], start: [startImports] },
  // Last: waiting album requests start once every area that registers a download source has started.
  { name: 'requests', routes: [requestsRoutes], start: [startAlbumDownloads] },
];

/** Every /api route, area by area. */
export function apiRoutes(ctx: AppContext): RouteDefinition[] {
  return areas.flatMap((area) => (area.routes ?? []).flatMap((routes) => routes(ctx)));
}

/** The routers outside /api (the Subsonic API under /rest, public share pages under /share, OIDC under /sso). */
export const routers = areas.flatMap((area) =>
  (area.routers ?? []).map(({ mount, router }) => (ctx: AppContext) => ({ mount, router: router(ctx) })),
);

/** Starts every area in order, then adds its health block and features (the answers read them per request). */
export async function startAreas(ctx: AppContext): Promise<void> {
  for (const area of areas) {
    for (const start of area.start ?? []) await start(ctx);
    if (area.health) ctx.health.push(area.health(ctx));
    for (const feature of area.features ?? []) ctx.features.add(feature);
  }
}
