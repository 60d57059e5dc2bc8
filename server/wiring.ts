/**
 * Builds the services of a running server onto its context, each once and on first use, in the
 * order their callers need them. This is the one place that knows how each service is made; a
 * service itself names only the fields it uses.
 */
import type { AppContext, Services } from './context.js';
import { OidcService } from './domain/auth/oidc.js';
import { DiscoveryService } from './domain/discovery/service.js';
import { NearbyShows } from './domain/discovery/nearbyShows.js';
import { DiscoveryProviders } from './domain/discovery/providers.js';
import { AlbumDownloads } from './domain/downloads/albums.js';
import { LengthLookup } from './domain/downloads/expectedLength.js';
import { TrackPipeline } from './domain/downloads/pipeline.js';
import { DownloadService } from './domain/downloads/service.js';
import { createYtdlpRuns } from './domain/downloads/sources/ytdlp.js';
import { FlowService } from './domain/flows/service.js';
import { InboxService } from './domain/inbox/service.js';
import { createReplayGainAnalyser } from './domain/library/replayGain.js';
import { LibraryService } from './domain/library/service.js';
import { createLidarrServices } from './domain/lidarr/service.js';
import { ListeningService } from './domain/listening/service.js';
import { AcoustIdService } from './domain/metadata/acoustid.js';
import { EnrichmentService } from './domain/metadata/enrichment.js';
import { RemoteImages } from './domain/metadata/remoteImages.js';
import { MetadataService } from './domain/metadata/service.js';
import { NewsService } from './domain/news/service.js';
import { createNotificationOutbox } from './domain/notifications/service.js';
import { PlaybackService } from './domain/playback/service.js';
import { PlaylistArtwork } from './domain/playlists/artwork.js';
import { createAttachState } from './domain/playlists/attach.js';
import { createPlaylistRegistry } from './domain/playlists/registry.js';
import { SharedPlaylists } from './domain/playlists/sharedPlaylists.js';
import { createScrobbleOutbox } from './domain/scrobbling/service.js';
import { SearchService } from './domain/search/service.js';
import { createShares } from './domain/shares/service.js';
import { SlskdConnection } from './domain/slskd/connection.js';

type Makers = { [K in keyof Services]: (ctx: AppContext) => Services[K] };

const makers: Makers = {
  library: (ctx) => new LibraryService(ctx),
  replayGain: (ctx) => createReplayGainAnalyser(ctx),
  lidarr: (ctx) => createLidarrServices(ctx),
  metadata: (ctx) => new MetadataService(ctx),
  acoustId: (ctx) => new AcoustIdService(ctx),
  enrichment: (ctx) => new EnrichmentService(ctx),
  remoteImages: (ctx) => new RemoteImages(ctx),
  search: (ctx) => new SearchService(ctx),
  searchCallers: () => new Map(),
  spotifyLinkClient: () => ({}),
  downloads: (ctx) => new DownloadService(ctx),
  trackPipeline: (ctx) => new TrackPipeline(ctx),
  albumDownloads: (ctx) => new AlbumDownloads(ctx),
  expectedLengths: (ctx) => new LengthLookup(ctx),
  ytdlpRuns: (ctx) => createYtdlpRuns(ctx),
  slskd: (ctx) => new SlskdConnection(ctx),
  notificationOutbox: (ctx) => createNotificationOutbox(ctx),
  discovery: (ctx) => new DiscoveryService(ctx),
  discoveryProviders: (ctx) => new DiscoveryProviders(ctx),
  nearbyShows: (ctx) => new NearbyShows(ctx),
  flows: (ctx) => new FlowService(ctx),
  news: (ctx) => new NewsService(ctx),
  inbox: (ctx) => new InboxService(ctx),
  listening: (ctx) => new ListeningService(ctx),
  scrobbleOutbox: (ctx) => createScrobbleOutbox(ctx),
  spotifyRenewals: () => new Map(),
  playlists: (ctx) => createPlaylistRegistry(ctx),
  sharedPlaylists: (ctx) => new SharedPlaylists(ctx),
  staticPlacers: () => [],
  attach: (ctx) => createAttachState(ctx),
  playlistArtwork: (ctx) => new PlaylistArtwork(ctx),
  plexLinkListeners: () => new Set(),
  plexSyncListeners: () => new Set(),
  playback: (ctx) => new PlaybackService(ctx),
  shares: (ctx) => createShares(ctx),
  oidc: (ctx) => new OidcService(ctx),
};

/** Completes `base` into the server's context: each service is made the first time it is asked for. */
export function wire(base: Omit<AppContext, keyof Services>): AppContext {
  const ctx = base as AppContext;
  for (const name of Object.keys(makers) as (keyof Services)[]) {
    let made = false;
    let value: unknown;
    Object.defineProperty(ctx, name, {
      enumerable: false,
      get() {
        if (!made) {
          value = makers[name](ctx);
          made = true;
        }
        return value;
      },
    });
  }
  return ctx;
}
