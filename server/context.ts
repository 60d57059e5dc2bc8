import type { Kernel } from './kernel.js';
import type { DeliveryRow } from './db/notifications.js';
import type { ScrobbleLinkRow } from './domain/scrobbling/service.js';
import type { FailedLogins } from './domain/auth/failedLogins.js';
import type { AuthService } from './domain/auth/service.js';
import type { HealthContributor } from './domain/health.js';
import type { InterfaceLister } from './domain/auth/lanBypass.js';
import type { OidcService } from './domain/auth/oidc.js';
import type { DiscoveryService } from './domain/discovery/service.js';
import type { NearbyShows } from './domain/discovery/nearbyShows.js';
import type { DiscoveryProviders } from './domain/discovery/providers.js';
import type { AlbumDownloads } from './domain/downloads/albums.js';
import type { LengthLookup } from './domain/downloads/expectedLength.js';
import type { TrackPipeline } from './domain/downloads/pipeline.js';
import type { DownloadService } from './domain/downloads/service.js';
import type { YtdlpRuns } from './domain/downloads/sources/ytdlp.js';
import type { FlowService } from './domain/flows/service.js';
import type { InboxService } from './domain/inbox/service.js';
import type { ReplayGainAnalyser } from './domain/library/replayGain.js';
import type { LibraryService } from './domain/library/service.js';
import type { LidarrServices } from './domain/lidarr/service.js';
import type { ListeningService } from './domain/listening/service.js';
import type { AcoustIdService } from './domain/metadata/acoustid.js';
import type { EnrichmentService } from './domain/metadata/enrichment.js';
import type { RemoteImages } from './domain/metadata/remoteImages.js';
import type { MetadataService } from './domain/metadata/service.js';
import type { NewsService } from './domain/news/service.js';
import type { PlaybackService } from './domain/playback/service.js';
import type { PlaylistArtwork } from './domain/playlists/artwork.js';
import type { AttachState } from './domain/playlists/attach.js';
import type { PlaylistRegistry } from './domain/playlists/registry.js';
import type { SharedPlaylists } from './domain/playlists/sharedPlaylists.js';
import type { StaticPlacer } from './domain/playlists/staticDownloads.js';
import type { PlexSyncResult } from './domain/plex/sync.js';
import type { SpotifyLinkClient } from './domain/search/links.js';
import type { SearchService } from './domain/search/service.js';
import type { SettingsStore } from './domain/settings/store.js';
import type { Shares } from './domain/shares/service.js';
import type { SlskdConnection } from './domain/slskd/connection.js';
import type { UsersService } from './domain/users/service.js';
import type { JobLinks } from './jobs/links.js';
import type { Hub } from './ws/hub.js';

export { systemClock, type Clock } from './clock.js';
export type { Kernel } from './kernel.js';

export type { HealthContributor } from './domain/health.js';

/**
 * The services of a running server, one of each, built on first use by server/wiring.ts. A service
 * receives what it uses: its constructor or function names the fields it needs (a `Pick` of the
 * kernel and the services it calls), and is handed the assembled context, which has them.
 */
export interface Services {
  library: LibraryService;
  replayGain: ReplayGainAnalyser | undefined;
  lidarr: LidarrServices;
  metadata: MetadataService;
  acoustId: AcoustIdService;
  enrichment: EnrichmentService;
  remoteImages: RemoteImages;
  search: SearchService;
  /** Who is typing in the unified search: a newer request drops their older MusicBrainz searches. */
  searchCallers: Map<string, AbortController>;
  spotifyLinkClient: SpotifyLinkClient;
  downloads: DownloadService;
  trackPipeline: TrackPipeline;
  albumDownloads: AlbumDownloads;
  expectedLengths: LengthLookup;
  ytdlpRuns: YtdlpRuns;
  slskd: SlskdConnection;
  notificationOutbox: JobLinks<DeliveryRow>;
  discovery: DiscoveryService;
  discoveryProviders: DiscoveryProviders;
  nearbyShows: NearbyShows;
  flows: FlowService;
  news: NewsService;
  inbox: InboxService;
  listening: ListeningService;
  scrobbleOutbox: JobLinks<ScrobbleLinkRow>;
  /** One Spotify token renewal at a time per user, whoever asks. */
  spotifyRenewals: Map<number, Promise<string>>;
  playlists: PlaylistRegistry;
  sharedPlaylists: SharedPlaylists;
  staticPlacers: StaticPlacer[];
  attach: AttachState;
  playlistArtwork: PlaylistArtwork;
  plexLinkListeners: Set<(userId: number) => void>;
  plexSyncListeners: Set<(result: PlexSyncResult) => void | Promise<void>>;
  playback: PlaybackService;
  shares: Shares;
  oidc: OidcService;
}

/** The assembled server: the kernel, the account services, the /ws hub and every service. */
export interface AppContext extends Kernel, Services {
  settings: SettingsStore;
  users: UsersService;
  auth: AuthService;
  /** The shared limiter on failed password checks (login, Basic, /rest, password change, OIDC exchange). */
  failedLogins: FailedLogins;
  hub: Hub;
  /** This computer's network interfaces (injectable for tests); undefined means the real ones. */
  interfaces?: InterfaceLister;
  /** Capability names for `api.features`; an area adds its name once its routes work. */
  features: Set<string>;
  health: HealthContributor[];
}
