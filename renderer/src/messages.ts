/**
 * The API's machine words (validation paths, reason codes) said in the UI's words, so a person
 * never reads `security.corsOrigins.0` or `(not_single_user)`.
 */

/** Field names as the screens label them, by the path the server reports. */
const FIELD_LABELS: Record<string, string> = {
  'security.corsOrigins': 'Allowed origins',
  'security.allowPrivateTargets': 'Private hosts',
  'security.localNetworkBypass.enabled': 'LAN auto-login',
  'library.musicFolders': 'Music folders',
  'library.watchEnabled': 'Watch music folders',
  'library.writeReplayGainTags': 'Write ReplayGain tags',
  'library.watchDebounceMs': 'Wait after a file change',
  'downloads.folderPath': 'Downloads folder',
  'downloads.importQueueLimit': 'Import queue limit',
  'integrations.lidarr.url': 'Lidarr address',
  'integrations.lidarr.apiKey': 'Lidarr API key',
  'integrations.navidrome.url': 'Navidrome address',
  'integrations.navidrome.username': 'Navidrome user name',
  'integrations.navidrome.password': 'Navidrome password',
  'integrations.slskd.url': 'slskd address',
  'integrations.slskd.apiKey': 'slskd API key',
  'integrations.slskd.priority': 'slskd priority',
  'integrations.slskd.downloadPath': 'slskd downloads folder',
  'integrations.prowlarr.url': 'Prowlarr address',
  'integrations.prowlarr.apiKey': 'Prowlarr API key',
  'integrations.sabnzbd.url': 'SABnzbd address',
  'integrations.sabnzbd.apiKey': 'SABnzbd API key',
  'integrations.sabnzbd.priority': 'SABnzbd priority',
  'integrations.sabnzbd.completedPath': 'SABnzbd completed folder',
  'integrations.nzbget.url': 'NZBGet address',
  'integrations.nzbget.password': 'NZBGet password',
  'integrations.nzbget.priority': 'NZBGet priority',
  'integrations.nzbget.completedPath': 'NZBGet completed folder',
  'integrations.ytdlp.path': 'yt-dlp program',
  'integrations.ytdlp.priority': 'yt-dlp priority',
  'integrations.ytdlp.searchResults': 'yt-dlp search results',
  'integrations.gotify.url': 'Gotify address',
  'integrations.gotify.token': 'Gotify token',
  'integrations.ntfy.url': 'ntfy server',
  'integrations.ntfy.topic': 'ntfy topic',
  'integrations.ntfy.token': 'ntfy access token',
  'integrations.discord.webhookUrl': 'Discord webhook address',
  'notifications.ntfy.tags': 'ntfy tags',
  'notifications.ntfy.priorities': 'ntfy priority',
  musicFolders: 'Music folders',
  authUser: 'User name',
  authPassword: 'Password',
  username: 'User name',
  password: 'Password',
  currentPassword: 'Current password',
  newPassword: 'New password',
  name: 'Name',
  role: 'Role',
};

/** `security.corsOrigins.0` → `Allowed origins, entry 1`; null when the UI has no word for it. */
export function fieldLabel(path: string): string | null {
  const parts = path.split('.').filter(Boolean);
  if (parts[0] === 'body' || parts[0] === 'query' || parts[0] === 'params') parts.shift();
  const index = parts.findIndex((p) => /^\d+$/.test(p));
  const keys = index === -1 ? parts : parts.slice(0, index);
  const label = FIELD_LABELS[keys.join('.')];
  if (!label) return null;
  return index === -1 ? label : `${label}, entry ${Number(parts[index]) + 1}`;
}

/** Why LAN auto-login is off or refused, by the reason code the server gives (`reason` or error `code`). */
const LAN_REASONS: Record<string, string> = {
  not_onboarded: 'LAN auto-login can be switched on once setup is finished.',
  not_single_user: 'LAN auto-login only works while there is exactly one account. This server has more than one, so it stays off.',
  sole_user_not_admin: 'LAN auto-login only works while the only account is an administrator.',
  not_trusted_network: 'This device is not on the server’s local network, so it is not signed in automatically.',
  disabled: 'LAN auto-login is off.',
  active: 'LAN auto-login is on: devices on the local network open Tonearm without signing in.',
};

export function lanReasonText(reason: string): string | null {
  return LAN_REASONS[reason.toLowerCase()] ?? null;
}

/**
 * Where each integration is set up: its name, the Settings tab and the card (its id, for a link that
 * opens it), and its fields in words, so a message says "Add a Last.fm API key in Settings →
 * Integrations", never `integrations.lastfm.apiKey`.
 */
export const SERVICE_PLACES: Record<string, { name: string; tab: string; tabLabel: string; card: string; fields: Record<string, string> }> = {
  lidarr: { name: 'Lidarr', tab: 'downloads', tabLabel: 'Downloads', card: 'source-lidarr', fields: { url: 'address', apiKey: 'API key' } },
  slskd: { name: 'slskd', tab: 'downloads', tabLabel: 'Downloads', card: 'source-slskd', fields: { url: 'address', apiKey: 'API key' } },
  prowlarr: { name: 'Prowlarr', tab: 'downloads', tabLabel: 'Downloads', card: 'source-usenet', fields: { url: 'address', apiKey: 'API key' } },
  sabnzbd: { name: 'SABnzbd', tab: 'downloads', tabLabel: 'Downloads', card: 'source-usenet', fields: { url: 'address', apiKey: 'API key' } },
  nzbget: { name: 'NZBGet', tab: 'downloads', tabLabel: 'Downloads', card: 'source-usenet', fields: { url: 'address' } },
  ytdlp: { name: 'yt-dlp', tab: 'downloads', tabLabel: 'Downloads', card: 'source-ytdlp', fields: { path: 'program path' } },
  gotify: { name: 'Gotify', tab: 'notifications', tabLabel: 'Notifications', card: 'source-gotify', fields: { url: 'address', token: 'application token' } },
  lastfm: { name: 'Last.fm', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-lastfm', fields: { apiKey: 'API key', apiSecret: 'shared secret' } },
  ticketmaster: { name: 'Ticketmaster', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-ticketmaster', fields: { apiKey: 'API key' } },
  news: { name: 'NewsAPI.org', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-news', fields: { apiKey: 'API key' } },
  metadata: { name: 'metadata server', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-metadata', fields: { baseUrl: 'address' } },
  musicbrainz: { name: 'MusicBrainz', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-metadata', fields: { email: 'contact e-mail' } },
  spotify: { name: 'Spotify', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-spotify', fields: { clientId: 'app (client ID and secret)', clientSecret: 'app (client ID and secret)' } },
  acoustid: { name: 'AcoustID', tab: 'integrations', tabLabel: 'Integrations', card: 'integration-acoustid', fields: { apiKey: 'application key' } },
  navidrome: { name: 'Navidrome', tab: 'playback', tabLabel: 'Playback', card: 'playback-navidrome', fields: { url: 'address', username: 'user name', password: 'password' } },
  plex: { name: 'Plex', tab: 'library', tabLabel: 'Library', card: 'plex', fields: { url: 'server', librarySectionId: 'music library' } },
};

export interface SettingPlace {
  /** "Add a Last.fm API key in Settings → Integrations." */
  text: string;
  /** What is missing, for "Ask an administrator to add …": "a Last.fm API key". */
  what: string;
  /** The Settings page with the card, e.g. `/settings/integrations#integration-lastfm`. */
  href: string;
  /** "Settings → Integrations" */
  place: string;
}

/** The names said with "an" ("an slskd address"). */
const AN = new Set(['slskd', 'NZBGet', 'AcoustID']);

/**
 * Where a setting path (`integrations.lastfm.apiKey`, `integrations.slskd`) is set, in words; null
 * when unknown. Several paths of one service (`integrations.slskd.url`, `integrations.slskd.apiKey`)
 * are said together ("an slskd address and API key").
 */
export function settingPlace(setting: string | string[]): SettingPlace | null {
  const paths = Array.isArray(setting) ? setting : [setting];
  const m = /^integrations\.(\w+)(?:\.(\w+))?/.exec(paths[0] ?? '');
  const service = m ? SERVICE_PLACES[m[1]!] : undefined;
  if (!m || !service) return null;
  const named = paths
    .map((p) => /^integrations\.(\w+)\.(\w+)/.exec(p))
    .filter((x) => x && x[1] === m[1] && service.fields[x[2]!])
    .map((x) => service.fields[x![2]!]!);
  const fields = named.length ? [...new Set(named)] : [...new Set(Object.values(service.fields))].slice(0, 2);
  const subject = `${service.name} ${fields.join(' and ')}`;
  const what = `${AN.has(service.name) ? 'an' : 'a'} ${subject}`;
  const place = `Settings → ${service.tabLabel}${service.tab === 'library' && m[1] === 'plex' ? ' → Plex' : ''}`;
  return { text: `Add ${what} in ${place}.`, what, href: `/settings/${service.tab}#${service.card}`, place };
}

/** The setting paths a message names (`… set integrations.lastfm.apiKey in Settings`), in order. */
export function settingsNamedIn(message: string): string[] {
  return message.match(/\bintegrations\.\w+(?:\.\w+)?/g) ?? [];
}

/**
 * A server message that names setting keys (`Last.fm needs an API key: set integrations.lastfm.apiKey
 * in Settings`) said in words: its first part, then where the setting is made ("Add a Last.fm API key
 * in Settings → Integrations."). Other messages come back unchanged.
 */
export function inWords(message: string): string {
  const named = settingsNamedIn(message);
  if (!named.length) return message;
  const place = settingPlace(named);
  return place ? `${withoutSettingKeys(message)} ${place.text}` : withoutSettingKeys(message);
}

/** The part of a message before the setting keys it names ("Nearby shows need a Ticketmaster API key."). */
export function withoutSettingKeys(message: string): string {
  if (!settingsNamedIn(message).length) return message;
  return `${message.split(/[:(]/)[0]!.trim().replace(/[.\s]+$/, '')}.`;
}

/** A "not configured" answer as where to set it up, or null when the message names no known setting. */
export function notConfiguredPlace(body: unknown): SettingPlace | null {
  const b = (body && typeof body === 'object' ? body : {}) as ErrorBody & { setting?: string };
  if (b.code !== 'NOT_CONFIGURED') return null;
  const named = b.setting ? [b.setting] : [...settingsNamedIn(b.message ?? ''), ...settingsNamedIn(b.error ?? '')];
  return named.length ? settingPlace(named) : null;
}

interface ErrorBody {
  error?: string;
  message?: string;
  code?: string;
  details?: { path?: string; message?: string }[];
}

/**
 * Each permission in words: `label`, its name in Settings → Users; `use`, what it allows, as
 * "Ask an administrator to allow … for your account" ends. No screen shows `accessFlow` itself.
 */
export const PERMISSION_WORDS: Record<string, { label: string; use: string }> = {
  accessSettings: { label: 'Open settings', use: 'settings' },
  accessFlow: { label: 'Flows and review', use: 'flows and downloads' },
  addArtist: { label: 'Add artists', use: 'adding artists' },
  addAlbum: { label: 'Add albums', use: 'adding albums' },
  changeMonitoring: { label: 'Change monitoring', use: 'changing monitoring' },
  deleteArtist: { label: 'Delete artists', use: 'deleting artists' },
  deleteAlbum: { label: 'Delete albums', use: 'deleting albums' },
};

/** "Ask an administrator to allow flows and downloads for your account (Settings → Users, “Flows and review”)." */
export function askFor(permission: string, use?: string): string {
  const words = PERMISSION_WORDS[permission];
  if (!words) return 'Ask an administrator for the permission.';
  return `Ask an administrator to allow ${use ?? words.use} for your account (Settings → Users, “${words.label}”).`;
}

/**
 * A refusal for want of a permission (`Permission required: accessFlow`) or of the administrator role,
 * said as what to ask for and who grants it; null for any other message.
 */
export function permissionText(message: string): string | null {
  const needed = /^Permission required: (\w+)$/.exec(message.trim());
  if (needed) {
    return `Your account may not do this. ${askFor(needed[1]!)}`;
  }
  if (/^Admin access required$/i.test(message.trim())) return 'Only an administrator can do this.';
  return null;
}

/** What a person reads for an API error body, or null to fall back to the server's own text. */
export function readableError(body: ErrorBody): string | null {
  const refused = permissionText(body.message ?? '') ?? permissionText(body.error ?? '');
  if (refused) return refused;
  // The server's own words up to the setting keys (they say what is wrong: "yt-dlp was not found at
  // …"), then where it is set up in words.
  const said = body.message ?? body.error;
  if (said && settingsNamedIn(said).length) return inWords(said);
  const place = notConfiguredPlace(body);
  if (place) return place.text;
  const first = body.details?.[0];
  if (body.code === 'VALIDATION_ERROR' && first?.path !== undefined && first.message) {
    const label = fieldLabel(first.path);
    if (label) return `${label}: ${first.message}`;
  }
  if (body.code) {
    const lan = lanReasonText(body.code);
    if (lan && /lan auto-login/i.test(body.message ?? body.error ?? '')) return lan;
  }
  return null;
}
