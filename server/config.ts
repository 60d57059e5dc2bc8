import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { normalizeBasePath } from './basePath.js';

/** Where a desktop app keeps per-user data on each platform. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Tonearm');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Tonearm');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'tonearm');
}

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Every environment variable the server reads; the README documents each one. */
const envSchema = z.object({
  TONEARM_PORT: port.optional(),
  PORT: port.optional(),
  TONEARM_HOST: z.string().min(1).default('0.0.0.0'),
  TONEARM_DATA_DIR: z.string().min(1).optional(),
  TONEARM_MUSIC_DIRS: z.string().optional(),
  CORS_ORIGIN: csv.optional(),
  SESSION_TTL_HOURS: positiveInt.default(720),
  TRUST_PROXY: z.string().optional(),
  AUTH_PROXY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
    .optional(),
  AUTH_PROXY_TRUSTED_IPS: csv.optional(),
  AUTH_PROXY_LOGOUT_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(15 * 60 * 1000),
  RATE_LIMIT_MAX: positiveInt.default(5000),
  LOGIN_RATE_LIMIT_MAX: positiveInt.default(10),
  ALLOW_PRIVATE_TARGETS: csv.optional(),
  FFMPEG_PATH: z.string().min(1).optional(),
  YTDLP_PATH: z.string().min(1).optional(),
  TONEARM_UI_DIR: z.string().min(1).optional(),
  /** Serve everything under this path prefix (behind a reverse proxy): `/music`. Empty: the root. */
  TONEARM_BASE_PATH: z
    .string()
    .transform((v, c) => {
      const normalized = normalizeBasePath(v);
      if (normalized === null) {
        c.addIssue({ code: 'custom', message: 'must be a path like /music (letters, digits, - _ . ~ and / between segments)' });
        return z.NEVER;
      }
      return normalized;
    })
    .optional(),
  TONEARM_LIBRARY_WATCH: bool.default(true),
  TONEARM_REPLAYGAIN_ANALYSIS: bool.default(true),
  TONEARM_SCAN_ON_START: bool.default(true),
  /** Development and tests: every JSON answer is checked against its route's response schema (a mismatch is a 500). */
  TONEARM_CHECK_RESPONSES: bool.default(false),
  TONEARM_MUSICBRAINZ_URL: z.url({ protocol: /^https?$/ }).default('https://musicbrainz.org/ws/2'),
  TONEARM_COVERART_URL: z.url({ protocol: /^https?$/ }).default('https://coverartarchive.org'),
  TONEARM_DEEZER_URL: z.url({ protocol: /^https?$/ }).default('https://api.deezer.com'),
  TONEARM_SPOTIFY_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.spotify.com/v1'),
  TONEARM_SPOTIFY_ACCOUNTS_URL: z.url({ protocol: /^https?$/ }).default('https://accounts.spotify.com'),
  /** The Spotify token broker (its `/auth` and `/renew`) used when no client id of our own is set. */
  TONEARM_SPOTIFY_BROKER_URL: z.url({ protocol: /^https?$/ }).default('https://spotify.lidarr.audio'),
  TONEARM_SPOTIFY_BROKER_CLIENT_ID: z.string().min(1).max(256).optional(),
  TONEARM_ITUNES_URL: z.url({ protocol: /^https?$/ }).default('https://itunes.apple.com'),
  TONEARM_YOUTUBE_URL: z.url({ protocol: /^https?$/ }).default('https://www.youtube.com'),
  TONEARM_TIDAL_OEMBED_URL: z.url({ protocol: /^https?$/ }).default('https://oembed.tidal.com'),
  TONEARM_BANDCAMP_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Tests and mirrors: the built-in news feeds are read from `<url>/<host><path>` instead of the publishers' sites. */
  TONEARM_NEWS_FEEDS_URL: z.url({ protocol: /^https?$/ }).optional(),
  TONEARM_LASTFM_URL: z.url({ protocol: /^https?$/ }).default('https://ws.audioscrobbler.com/2.0'),
  /** Last.fm's web authorization page (account linking for scrobbling). */
  TONEARM_LASTFM_AUTH_URL: z.url({ protocol: /^https?$/ }).default('https://www.last.fm/api/auth'),
  /** Last.fm's web site (the player's stations for playlist imports). */
  TONEARM_LASTFM_WEB_URL: z.url({ protocol: /^https?$/ }).default('https://www.last.fm'),
  /** Where people reach this server (OIDC redirect URI); empty: the request's own origin. */
  TONEARM_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OIDC_ENABLED: bool.optional(),
  OIDC_ISSUER: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_SCOPES: z.string().min(1).optional(),
  OIDC_USERNAME_CLAIM: z.string().min(1).optional(),
  OIDC_GROUPS_CLAIM: z.string().min(1).optional(),
  OIDC_ADMIN_GROUPS: csv.optional(),
  OIDC_ADMIN_USERS: csv.optional(),
  OIDC_DEFAULT_ROLE: z.enum(['user', 'admin']).optional(),
  OIDC_LOGOUT_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OIDC_ALLOW_HTTP: bool.default(false),
  OIDC_BIND_VERIFIED_EMAIL: bool.optional(),
  /** A Lidarr-format metadata server (SkyHook shape) tried before MusicBrainz; the setting wins when set. */
  TONEARM_METADATA_URL: z.url({ protocol: /^https?$/ }).optional(),
  TONEARM_LISTENBRAINZ_URL: z.url({ protocol: /^https?$/ }).default('https://api.listenbrainz.org'),
  TONEARM_TICKETMASTER_URL: z.url({ protocol: /^https?$/ }).default('https://app.ticketmaster.com/discovery/v2'),
  /** Nominatim (OpenStreetMap's geocoder) for postcodes and place names. */
  TONEARM_GEOCODER_URL: z.url({ protocol: /^https?$/ }).default('https://nominatim.openstreetmap.org'),
  TONEARM_ZIPPOPOTAM_URL: z.url({ protocol: /^https?$/ }).default('https://api.zippopotam.us'),
  TONEARM_IPAPI_URL: z.url({ protocol: /^https?$/ }).default('https://ipapi.co'),
  TONEARM_NEWSAPI_URL: z.url({ protocol: /^https?$/ }).default('https://newsapi.org/v2'),
  /** plex.tv (Plex sign-in with a PIN, the account's servers, Plex Home). */
  TONEARM_ACOUSTID_URL: z.url({ protocol: /^https?$/ }).default('https://api.acoustid.org/v2'),
  TONEARM_PLEXTV_URL: z.url({ protocol: /^https?$/ }).default('https://plex.tv'),
  /** The Plex web app page where a user approves a PIN (`<url>/auth#?clientID=…&code=…`). */
  TONEARM_PLEX_APP_URL: z.url({ protocol: /^https?$/ }).default('https://app.plex.tv'),
  /** Client-side spacing of every public metadata service; for a local mirror or tests. */
  TONEARM_UPSTREAM_SPACING_MS: z.coerce.number().int().min(0).max(60_000).optional(),
});

export type TrustProxy = boolean | number | string;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  musicDirs: string[];
  corsOrigins: string[];
  sessionTtlMs: number;
  trustProxy: TrustProxy;
  authProxy: { header: string; trustedIps: string[] } | null;
  /** Base URLs of the fixed public services (decisions §2), and a spacing override for all of them. */
  upstreams: {
    musicbrainz: string;
    coverart: string;
    deezer: string;
    lastfm: string;
    /** Last.fm's web authorization page (scrobbling account links). */
    lastfmAuth: string;
    /** Lidarr-format metadata provider from the environment (null: none unless the setting names one). */
    metadata: string | null;
    listenbrainz: string;
    ticketmaster: string;
    /** Nominatim. */
    geocoder: string;
    zippopotam: string;
    ipapi: string;
    newsapi: string;
    /** plex.tv and the Plex web app (PIN approval page). */
    plextv: string;
    plexApp: string;
    /** AcoustID's web service root; its lookup is `<base>/lookup`. */
    acoustid: string;
    spotifyApi: string;
    spotifyAccounts: string;
    /** The Spotify token broker (`/auth`, `/renew`) and the client id it serves (null: Lidarr's). */
    spotifyBroker: string;
    spotifyBrokerClientId: string | null;
    /** Last.fm's web site (stations). */
    lastfmWeb: string;
    itunes: string;
    youtube: string;
    tidalOembed: string;
    /** Null: Bandcamp pages are read from bandcamp.com itself. */
    bandcamp: string | null;
    /** Null: the built-in news feeds are read from the publishers' sites. */
    newsFeeds: string | null;
    spacingMs: number | null;
  };
  /** Where the web UI sends a user to sign out of the reverse proxy (null: no such page). */
  proxyLogoutUrl: string | null;
  /** TONEARM_PUBLIC_URL without a trailing slash; null: each request's own origin. */
  publicUrl: string | null;
  /**
   * The path prefix everything is served under (`/music`), or '' for the root. TONEARM_BASE_PATH
   * when set (basePathFromEnv), else the `network.basePath` setting, read when the server starts.
   */
  basePath: string;
  basePathFromEnv: boolean;
  /** OIDC settings given in the environment; each one set here wins over `integrations.oidc`. */
  oidc: OidcEnv;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  rateLimit: { windowMs: number; max: number; loginMax: number };
  allowPrivateTargets: string[];
  ffmpegPath: string | undefined;
  /** yt-dlp when the `integrations.ytdlp.path` setting is empty (else the one on PATH). */
  ytdlpPath: string | undefined;
  uiDir: string | undefined;
  /** Watch music folders and rescan after changes (settings can also turn it off). */
  libraryWatch: boolean;
  /** Measure ReplayGain of files without ReplayGain tags in the background (issue 26 §3). */
  replayGainAnalysis: boolean;
  /** Run a quick library scan (and a Lidarr index when configured) when the server starts. */
  scanOnStart: boolean;
  /** Check each JSON answer against its route's response schema (TONEARM_CHECK_RESPONSES; tests turn it on). */
  checkResponses: boolean;
}

export interface OidcEnv {
  enabled?: boolean;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  scopes?: string;
  usernameClaim?: string;
  groupsClaim?: string;
  adminGroups?: string[];
  adminUsers?: string[];
  defaultRole?: 'user' | 'admin';
  logoutUrl?: string;
  /** An http:// issuer is refused unless this is set (home labs without TLS). */
  allowHttp: boolean;
  bindVerifiedEmail?: boolean;
}

export class ConfigError extends Error {}

function parseTrustProxy(raw: string | undefined): TrustProxy {
  // Off by default: on a home LAN nobody sits in front of us, and trusting X-Forwarded-For
  // would let any client claim to be loopback.
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** Reads and validates the environment; a bad value throws one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`);
  }
  const e = result.data;
  const proxyHeader = e.AUTH_PROXY_HEADER ?? (e.AUTH_PROXY_TRUSTED_IPS ? 'x-forwarded-user' : undefined);
  return {
    port: e.TONEARM_PORT ?? e.PORT ?? 3001,
    host: e.TONEARM_HOST,
    dataDir: path.resolve(e.TONEARM_DATA_DIR ?? defaultDataDir(env)),
    musicDirs: (e.TONEARM_MUSIC_DIRS ?? '')
      .split(path.delimiter)
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => path.resolve(d)),
    corsOrigins: e.CORS_ORIGIN ?? [],
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600 * 1000,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    authProxy: proxyHeader
      ? { header: proxyHeader.toLowerCase(), trustedIps: e.AUTH_PROXY_TRUSTED_IPS ?? [] }
      : null,
    proxyLogoutUrl: e.AUTH_PROXY_LOGOUT_URL ?? null,
    publicUrl: e.TONEARM_PUBLIC_URL ? e.TONEARM_PUBLIC_URL.replace(/\/+$/, '') : null,
    basePath: e.TONEARM_BASE_PATH ?? '',
    basePathFromEnv: e.TONEARM_BASE_PATH !== undefined,
    oidc: Object.fromEntries(
      Object.entries({
        enabled: e.OIDC_ENABLED,
        issuer: e.OIDC_ISSUER,
        clientId: e.OIDC_CLIENT_ID,
        clientSecret: e.OIDC_CLIENT_SECRET,
        scopes: e.OIDC_SCOPES,
        usernameClaim: e.OIDC_USERNAME_CLAIM,
        groupsClaim: e.OIDC_GROUPS_CLAIM,
        adminGroups: e.OIDC_ADMIN_GROUPS,
        adminUsers: e.OIDC_ADMIN_USERS,
        defaultRole: e.OIDC_DEFAULT_ROLE,
        logoutUrl: e.OIDC_LOGOUT_URL,
        allowHttp: e.OIDC_ALLOW_HTTP,
        bindVerifiedEmail: e.OIDC_BIND_VERIFIED_EMAIL,
      }).filter(([, v]) => v !== undefined),
    ) as unknown as OidcEnv,
    upstreams: {
      musicbrainz: e.TONEARM_MUSICBRAINZ_URL,
      coverart: e.TONEARM_COVERART_URL,
      deezer: e.TONEARM_DEEZER_URL,
      spotifyApi: e.TONEARM_SPOTIFY_API_URL,
      spotifyAccounts: e.TONEARM_SPOTIFY_ACCOUNTS_URL,
      spotifyBroker: e.TONEARM_SPOTIFY_BROKER_URL,
      spotifyBrokerClientId: e.TONEARM_SPOTIFY_BROKER_CLIENT_ID ?? null,
      lastfmWeb: e.TONEARM_LASTFM_WEB_URL,
      itunes: e.TONEARM_ITUNES_URL,
      youtube: e.TONEARM_YOUTUBE_URL,
      tidalOembed: e.TONEARM_TIDAL_OEMBED_URL,
      bandcamp: e.TONEARM_BANDCAMP_URL ?? null,
      newsFeeds: e.TONEARM_NEWS_FEEDS_URL ?? null,
      lastfm: e.TONEARM_LASTFM_URL,
      lastfmAuth: e.TONEARM_LASTFM_AUTH_URL,
      metadata: e.TONEARM_METADATA_URL ?? null,
      listenbrainz: e.TONEARM_LISTENBRAINZ_URL,
      ticketmaster: e.TONEARM_TICKETMASTER_URL,
      geocoder: e.TONEARM_GEOCODER_URL,
      zippopotam: e.TONEARM_ZIPPOPOTAM_URL,
      ipapi: e.TONEARM_IPAPI_URL,
      newsapi: e.TONEARM_NEWSAPI_URL,
      plextv: e.TONEARM_PLEXTV_URL,
      plexApp: e.TONEARM_PLEX_APP_URL,
      acoustid: e.TONEARM_ACOUSTID_URL,
      spacingMs: e.TONEARM_UPSTREAM_SPACING_MS ?? null,
    },
    logLevel: e.LOG_LEVEL,
    rateLimit: { windowMs: e.RATE_LIMIT_WINDOW_MS, max: e.RATE_LIMIT_MAX, loginMax: e.LOGIN_RATE_LIMIT_MAX },
    allowPrivateTargets: e.ALLOW_PRIVATE_TARGETS ?? [],
    ffmpegPath: e.FFMPEG_PATH,
    ytdlpPath: e.YTDLP_PATH,
    uiDir: e.TONEARM_UI_DIR,
    libraryWatch: e.TONEARM_LIBRARY_WATCH,
    replayGainAnalysis: e.TONEARM_REPLAYGAIN_ANALYSIS,
    scanOnStart: e.TONEARM_SCAN_ON_START,
    checkResponses: e.TONEARM_CHECK_RESPONSES,
  };
}

