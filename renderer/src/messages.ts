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

interface ErrorBody {
  error?: string;
  message?: string;
  code?: string;
  details?: { path?: string; message?: string }[];
}

/** What a person reads for an API error body, or null to fall back to the server's own text. */
export function readableError(body: ErrorBody): string | null {
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
