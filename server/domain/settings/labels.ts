/** What each setting is called on screen, so an error message names it in words, not as a path. */
const LABELS: Record<string, string> = {
  'library.musicFolders': 'Music folders',
  'library.watchEnabled': 'Watch music folders',
  'library.watchDebounceMs': 'Wait after a file change',
  'library.writeReplayGainTags': 'Write ReplayGain tags',
  'downloads.folderPath': 'Downloads folder',
  'downloads.worker.concurrency': 'Downloads at the same time',
  'downloads.worker.existingFileMode': 'Tracks already in the library',
  'downloads.worker.durationToleranceSeconds': 'Duration tolerance for review',
  'downloads.worker.minMatchScore': 'Minimum match score for review',
  'downloads.worker.retryPauseMinutes': 'Pause before retrying a failed track',
  'downloads.worker.blockedTimeoutHours': 'Time a held track waits for review',
  'downloads.worker.qualityCutoff': 'Quality cutoff',
  'downloads.worker.preferLossless': 'Prefer lossless',
  'downloads.worker.running': 'Download worker running',
  'downloads.worker': 'Download worker',
  'security.localNetworkBypass.enabled': 'LAN auto-login',
  'security.corsOrigins': 'Allowed origins (CORS)',
  'network.basePath': 'Base path (behind a reverse proxy)',
  'transcoding.cacheSizeMb': 'Transcoding cache size',
  'transcoding.maxConcurrent': 'Transcodes at the same time',
  'integrations.metadata.baseUrl': 'Metadata provider address',
  'integrations.metadata.enabled': 'Use the metadata provider',
  'notifications.publicUrl': 'Address for links in notifications',
  'notifications.gotify.events': 'Gotify notification events',
  'notifications.gotify.priority': 'Gotify message priority',
  'notifications.gotify.templates': 'Gotify message texts',
  'notifications.ntfy.events': 'ntfy notification events',
  'notifications.ntfy.priorities': 'ntfy message priority',
  'notifications.ntfy.tags': 'ntfy tags',
  'notifications.ntfy.templates': 'ntfy message texts',
  'notifications.discord.events': 'Discord notification events',
  'notifications.discord.templates': 'Discord message texts',
  'notifications.webhooks': 'Webhooks',
  'integrations.ticketmaster.apiKey': 'Ticketmaster API key',
  'integrations.ticketmaster.enabled': 'Nearby shows (Ticketmaster)',
  'integrations.ticketmaster.location': 'Nearby shows location',
  'integrations.ticketmaster.radiusMiles': 'Nearby shows radius (miles)',
  'integrations.acoustid.apiKey': 'AcoustID application key',
  'integrations.acoustid.enabled': 'Identify downloads by their sound (AcoustID)',
  'integrations.news.apiKey': 'NewsAPI.org API key',
  'integrations.news.enabled': 'Artist news',
  'integrations.news.feeds': 'Custom news feeds',
  'integrations.news.disabledFeeds': 'Disabled news feeds',
  'integrations.news.requestBudget': 'NewsAPI requests per 24 hours',
  'playback.navidrome.enabled': 'Publish playlists to Navidrome',
  'playback.navidrome.publishFlows': 'Publish flows to Navidrome',
  'playback.navidrome.publishPlaylists': 'Publish static and shared playlists to Navidrome',
  'playback.navidrome.ownerPrefix': "Owner's name before playlist names on Navidrome",
  'playback.navidrome.scanTimeoutSeconds': "Wait for Navidrome's library scan",
  'playback.navidrome': 'Navidrome playback destination',
  'playback.plex.enabled': 'Publish playlists to Plex',
  'playback.plex.publishFlows': 'Publish flows to Plex',
  'playback.plex.publishPlaylists': 'Publish static and shared playlists to Plex',
  'playback.plex.ownerPrefix': "Owner's name before playlist names on Plex",
  'playback.plex': 'Plex playback destination',
  'playback.jellyfin.url': 'Jellyfin address',
  'playback.jellyfin.apiKey': 'Jellyfin API key',
  'playback.jellyfin.enabled': 'Publish playlists to Jellyfin',
  'playback.jellyfin.userId': 'Jellyfin user for playlists',
  'playback.jellyfin.publishFlows': 'Publish flows to Jellyfin',
  'playback.jellyfin.publishPlaylists': 'Publish static and shared playlists to Jellyfin',
  'playback.jellyfin.ownerPrefix': "Owner's name before playlist names on Jellyfin",
  'playback.jellyfin.scanTimeoutSeconds': "Wait for Jellyfin's library scan",
  'playback.jellyfin': 'Jellyfin playback destination',
  playback: 'Playback destinations',
  'inbox.enabled': 'Inbox',
  'inbox.categories.releases': 'Inbox: new and upcoming releases',
  'inbox.categories.shows': 'Inbox: upcoming shows',
  'inbox.categories.news': 'Inbox: artist news digests',
  'inbox.categories.discoveries': 'Inbox: new discoveries',
  'inbox.categories': 'Inbox categories',
};

const SERVICES: Record<string, string> = {
  lidarr: 'Lidarr',
  navidrome: 'Navidrome',
  plex: 'Plex',
  slskd: 'slskd',
  gotify: 'Gotify',
  ntfy: 'ntfy',
  discord: 'Discord',
  lastfm: 'Last.fm',
  prowlarr: 'Prowlarr',
  sabnzbd: 'SABnzbd',
  nzbget: 'NZBGet',
  oidc: 'OpenID sign-in',
  ytdlp: 'yt-dlp',
  metadata: 'Metadata provider',
  musicbrainz: 'MusicBrainz',
  spotify: 'Spotify',
  ticketmaster: 'Ticketmaster',
  news: 'News',
  acoustid: 'AcoustID',
};

const FIELDS: Record<string, string> = {
  url: 'address',
  apiKey: 'API key',
  apiSecret: 'API secret',
  token: 'token',
  topic: 'topic',
  webhookUrl: 'webhook address',
  username: 'user name',
  password: 'password',
  qualityProfileId: 'quality profile',
  metadataProfileId: 'metadata profile',
  rootFolderPath: 'root folder',
  searchOnAdd: 'search on add',
  pathMappings: 'path mappings',
  downloadPath: 'downloads folder on this computer',
  completedPath: 'completed folder on this computer',
  confirmedDownloadPath: 'downloads folder confirmed at the last test',
  confirmedCompletedPath: 'completed folder confirmed at the last test',
  issuer: 'issuer',
  clientId: 'client ID',
  clientSecret: 'client secret',
  usernameClaim: 'user name claim',
  groupsClaim: 'groups claim',
  adminGroups: 'administrator groups',
  adminUsers: 'administrator users',
  defaultRole: 'default role',
  logoutUrl: 'sign-out address',
  bindVerifiedEmail: 'bind by verified email',
  path: 'program path',
  searchResults: 'search results per query',
  audioFormat: 'audio format',
  machineIdentifier: 'server',
  serverName: 'server name',
  librarySectionId: 'music library',
};

/** `someKeyName` → `some key name`. */
const words = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * A settings path in words: `security.corsOrigins.0` → `Allowed origins (CORS), entry 1`,
 * `integrations.lidarr.url` → `Lidarr address`.
 */
export function settingLabel(path: readonly PropertyKey[]): string {
  const keys = path.filter((p): p is string => typeof p === 'string');
  const index = path.find((p): p is number => typeof p === 'number');
  const entry = index === undefined ? '' : `, entry ${index + 1}`;
  if (keys.length === 0) return 'Settings';
  const joined = keys.join('.');
  const known = Object.keys(LABELS).find((k) => joined === k || joined.startsWith(`${k}.`));
  if (known) {
    const rest = keys.slice(known.split('.').length).map(words);
    return `${LABELS[known]}${entry}${rest.length ? ` (${rest.join(' ')})` : ''}`;
  }
  if (keys[0] === 'integrations' && keys[1]) {
    const service = SERVICES[keys[1]] ?? keys[1];
    const field = keys.slice(2).map((k) => FIELDS[k] ?? words(k)).join(' ');
    return `${service}${field ? ` ${field}` : ' settings'}${entry}`;
  }
  const text = keys.map(words).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${entry}`;
}
