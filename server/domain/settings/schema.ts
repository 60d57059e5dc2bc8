import { z } from 'zod';
import { DOWNLOAD_CLIENT_SETTINGS } from '../downloads/sources/settings.js';
import { connectable, enabled, key, secret, serviceUrl } from './fields.js';
import { normalizeBasePath } from '../../basePath.js';

const lidarr = z
  .object({
    url: serviceUrl,
    apiKey: key,
    enabled,
    qualityProfileId: z.number().int().positive().nullable().default(null),
    metadataProfileId: z.number().int().positive().nullable().default(null),
    rootFolderPath: z.string().default(''),
    searchOnAdd: z.boolean().default(true),
    /** Lidarr sees paths inside its own container/host; map its prefixes to this computer's. */
    pathMappings: z.array(z.object({ from: z.string().min(1), to: z.string().min(1) }).strict()).default([]),
  })
  .strict();

/**
 * Plex: the server chosen among the account's servers and the music library whose files are this
 * library's. The plex.tv account token and the server's token are not settings: they are kept
 * encrypted (062_plex.sql) and never returned.
 */
const plex = z
  .object({
    url: serviceUrl,
    enabled,
    machineIdentifier: z.string().max(128).default(''),
    serverName: z.string().max(256).default(''),
    /** The music library (section key) the sync maps to library tracks by file path. */
    librarySectionId: z.string().max(32).regex(/^\w*$/, { error: 'must be a Plex library key' }).default(''),
    /** Plex sees files at paths of its own host or container; map its prefixes to this computer's. */
    pathMappings: z.array(z.object({ from: z.string().min(1), to: z.string().min(1) }).strict()).max(50).default([]),
  })
  .strict();

const navidrome = z.object({ url: serviceUrl, username: z.string().default(''), password: secret, enabled }).strict();
const gotify = z.object({ url: serviceUrl, token: key, enabled }).strict();
const lastfm = z.object({ apiKey: key, apiSecret: key, enabled }).strict();
/** A Spotify app of the user's own (client-credentials flow) for catalogue lookups such as pasted links. */
const spotify = z.object({ clientId: z.string().max(256).default(''), clientSecret: secret, enabled }).strict();
/** Sign-in with the household's OpenID provider (decisions §3); OIDC_* environment variables win over these. */
const oidc = z
  .object({
    enabled: z.boolean().default(false),
    issuer: serviceUrl,
    clientId: z.string().max(512).default(''),
    clientSecret: secret,
    scopes: z.string().max(512).default('openid profile email'),
    /** Empty: preferred_username, then email, then sub. */
    usernameClaim: z.string().max(128).default(''),
    groupsClaim: z.string().max(128).default('groups'),
    adminGroups: z.array(z.string().min(1).max(256)).max(100).default([]),
    adminUsers: z.array(z.string().min(1).max(256)).max(100).default([]),
    defaultRole: z.enum(['user', 'admin']).default('user'),
    logoutUrl: serviceUrl,
    /** Button text on the login screen ("Sign in with <label>"). */
    label: z.string().max(64).default(''),
    /**
     * A new identity whose provider marks its email verified (`email_verified: true`) signs in to the
     * local account named exactly that address, instead of getting a new account. Off: only a link
     * from Settings → Account binds an identity to an existing account.
     */
    bindVerifiedEmail: z.boolean().default(false),
  })
  .strict();
/** Ticketmaster's Discovery API key (nearby shows). */
const ticketmaster = z
  .object({
    apiKey: key,
    enabled,
    /** Where nearby shows are looked for when the request names no place: `lat,lon`, a ZIP/postcode or a city; empty: the server's approximate location. */
    location: z.string().trim().max(200).default(''),
    /** Miles around the place (Ticketmaster's 5–250). */
    radiusMiles: z.number().int().min(5).max(250).default(50),
  })
  .strict();
/** A news feed URL: public content, fetched through the private-address guard (ALLOW_PRIVATE_TARGETS). */
const feedUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .refine(connectable, { error: 'is a link-local or cloud metadata address, which is never allowed' });
/**
 * Artist news: the built-in publications' feeds (`disabledFeeds` switches single ones off by feed id,
 * the first 12 hex digits of sha1(url)), custom feeds (at most 50), and an optional NewsAPI.org key.
 */
const news = z
  .object({
    apiKey: key,
    enabled,
    feeds: z
      .array(z.object({ url: feedUrl, name: z.string().trim().max(200).default('') }).strict())
      .max(50)
      .refine((list) => new Set(list.map((f) => f.url)).size === list.length, { error: 'lists the same feed twice' })
      .default([]),
    disabledFeeds: z.array(z.string().trim().min(1).max(2048)).max(500).default([]),
    /** NewsAPI requests allowed in any 24 hours, shared by every feature that searches it (the developer plan allows 100). */
    requestBudget: z.number().int().min(0).max(100_000).default(100),
  })
  .strict();
/** AcoustID's application key (free, acoustid.org/new-application): downloads and library files identified by their sound. */
const acoustid = z.object({ apiKey: key, enabled }).strict();
/** MusicBrainz asks every client for a contact in its User-Agent. */
const musicbrainz = z.object({ email: z.union([z.literal(''), z.email()]).default(''), enabled }).strict();
/** A Lidarr-format metadata server (SkyHook shape, e.g. brainzmash) asked before MusicBrainz; empty: TONEARM_METADATA_URL or none. */
const metadata = z.object({ baseUrl: serviceUrl, enabled }).strict();

/** The track pipeline (api.md 4.10 worker settings; reference §3.9). */
export const qualityTiers = ['lossless', 'high', 'medium', 'low'] as const;
export const downloadWorker = z
  .object({
    /** Stopped: no new job starts; running transfers finish. */
    running: z.boolean().default(true),
    concurrency: z.number().int().min(1).max(8).default(3),
    /** `reuse`: a track already in the library is linked instead of downloaded again. */
    existingFileMode: z.enum(['download', 'reuse']).default('reuse'),
    /** A file whose duration differs from the expected one by more than this is held for review. */
    durationToleranceSeconds: z.number().int().min(1).max(600).default(10),
    /** Below this match score (0–1) of artist and title, a downloaded file is held for review. */
    minMatchScore: z.number().min(0).max(1).default(0.7),
    /** Pause before a failed job is searched again by research or the retry cycle. */
    retryPauseMinutes: z.number().int().min(0).max(7 * 24 * 60).default(30),
    /** A blocked job nobody reviewed fails after this long; 0 keeps it until someone does. */
    blockedTimeoutHours: z.number().int().min(0).max(24 * 365).default(7 * 24),
    /** Quality profile: files below the cutoff are candidates for quality upgrades. */
    preferLossless: z.boolean().default(true),
    qualityCutoff: z.enum(qualityTiers).default('high'),
  })
  .strict();

/** What can notify (Gotify, ntfy, Discord, webhooks): a held track, a failed or finished one, an album whose tracks are all in. */
export const notificationEvents = ['job_blocked', 'job_failed', 'job_done', 'album_complete'] as const;
export type NotificationEventType = (typeof notificationEvents)[number];
const eventList = (defaults: NotificationEventType[]) =>
  z
    .array(z.enum(notificationEvents))
    .max(notificationEvents.length)
    .refine((list) => new Set(list).size === list.length, { error: 'lists an event twice' })
    .default(defaults);

/** A webhook's http(s) URL: required, and without credentials in it (they would show in settings and logs). */
const webhookUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine(connectable, { error: 'is a link-local or cloud metadata address, which is never allowed' })
  .refine((u) => !URL.canParse(u) || (new URL(u).username === '' && new URL(u).password === ''), {
    error: 'must not contain a user name or password; send them in an Authorization header',
  });

/** Webhook headers whose values are credentials: masked like other secrets (`Authorization`, `X-Api-Key`, …). */
export const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|key|password|auth/i;

/** Headers the HTTP layer sets itself; a webhook may not override them. */
const reservedHeaders = /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|proxy-.*)$/i;
const webhookHeaders = z
  .record(
    z.string(),
    z
      .string()
      .max(4096)
      .refine((v) => !/[\r\n\0]/.test(v), { error: 'must be a single line' }),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 headers' });
    for (const name of names) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      else if (reservedHeaders.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is set by the server and cannot be changed' });
    }
  })
  .default({});

/** A generic webhook (reference §5 notifications; external-services.md (j)). */
export const webhookSettings = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1–64 letters, digits, - or _' }),
    name: z.string().trim().min(1).max(100),
    url: webhookUrl,
    method: z.enum(['POST', 'PUT']).default('POST'),
    events: eventList(['job_blocked', 'job_failed']),
    headers: webhookHeaders,
    /** Empty: a JSON document with every field. Placeholders (`$trackName`) are JSON-escaped inside a JSON template. */
    bodyTemplate: z.string().max(16 * 1024).default(''),
    enabled,
  })
  .strict();
export type WebhookSettings = z.infer<typeof webhookSettings>;

const gotifyTemplate = z.object({ title: z.string().max(500).optional(), message: z.string().max(8192).optional() }).strict();

/* ---- ntfy and Discord (issue 27 §3; decisions §12): the same events and templates as Gotify ---- */
/** ntfy's topic names: letters, digits, `-` and `_`, at most 64. */
const ntfyTopic = z.union([z.literal(''), z.string().regex(/^[-_A-Za-z0-9]{1,64}$/, { error: 'must be 1–64 letters, digits, - or _' })]).default('');
const ntfy = z.object({ url: serviceUrl, topic: ntfyTopic, token: key, enabled }).strict();
/**
 * A Discord webhook's address carries its token, so the whole URL is a secret (`webhookUrl` is in
 * SECRET_FIELD): sealed at rest and masked when the settings are read.
 */
const discordWebhookUrl = z.union([z.literal(''), webhookUrl]).default('');
const discord = z.object({ webhookUrl: discordWebhookUrl, enabled }).strict();
/** ntfy's priorities: 1 min, 2 low, 3 default, 4 high, 5 urgent. */
const ntfyPriority = z.number().int().min(1).max(5);
/** ntfy tags (emoji short codes such as `warning` show as emojis); comma-free, at most 10 per event. */
const ntfyTags = z
  .array(z.string().trim().min(1).max(64).regex(/^[^,\r\n]+$/, { error: 'must not contain commas or line breaks' }))
  .max(10);
export const ntfyDefaults: Record<NotificationEventType, { priority: number; tags: string[] }> = {
  job_blocked: { priority: 4, tags: ['warning'] },
  job_failed: { priority: 4, tags: ['x'] },
  job_done: { priority: 3, tags: ['musical_note'] },
  album_complete: { priority: 3, tags: ['cd'] },
};
const ntfyNotifications = z
  .object({
    events: eventList(['job_blocked', 'job_failed']),
    /** Per event, ntfy's priority (1–5). */
    priorities: z
      .object({
        job_blocked: ntfyPriority.default(ntfyDefaults.job_blocked.priority),
        job_failed: ntfyPriority.default(ntfyDefaults.job_failed.priority),
        job_done: ntfyPriority.default(ntfyDefaults.job_done.priority),
        album_complete: ntfyPriority.default(ntfyDefaults.album_complete.priority),
      })
      .strict()
      .prefault({}),
    /** Per event, ntfy's tags. */
    tags: z
      .object({
        job_blocked: ntfyTags.default(ntfyDefaults.job_blocked.tags),
        job_failed: ntfyTags.default(ntfyDefaults.job_failed.tags),
        job_done: ntfyTags.default(ntfyDefaults.job_done.tags),
        album_complete: ntfyTags.default(ntfyDefaults.album_complete.tags),
      })
      .strict()
      .prefault({}),
    templates: z.partialRecord(z.enum(notificationEvents), gotifyTemplate).default({}),
  })
  .strict();
const discordNotifications = z
  .object({
    events: eventList(['job_blocked', 'job_failed']),
    /** Per event, the embed's title and description replacing the built-in ones. */
    templates: z.partialRecord(z.enum(notificationEvents), gotifyTemplate).default({}),
  })
  .strict();
/* ---- end of ntfy and Discord ---- */

export const notificationSettings = z
  .object({
    /** The address people open Tonearm at, for links in notifications (`$reviewUrl`); empty: this server's first LAN address. */
    publicUrl: serviceUrl,
    gotify: z
      .object({
        events: eventList(['job_blocked', 'job_failed']),
        priority: z.number().int().min(0).max(10).default(5),
        /** Per event, a title and message replacing the built-in ones; placeholders as for webhooks. */
        templates: z.partialRecord(z.enum(notificationEvents), gotifyTemplate).default({}),
      })
      .strict()
      .prefault({}),
    ntfy: ntfyNotifications.prefault({}),
    discord: discordNotifications.prefault({}),
    webhooks: z
      .array(webhookSettings)
      .max(20)
      .refine((list) => new Set(list.map((w) => w.id)).size === list.length, { error: 'two webhooks have the same id' })
      .default([]),
  })
  .strict();

export const librarySettings = z
  .object({
    musicFolders: z.array(z.string().min(1)).default([]),
    watchEnabled: z.boolean().default(true),
    /**
     * Quiet time after the last file change before a quick scan runs (a folder that keeps
     * changing is scanned anyway, at most max(60 s, 6 × this) after its first change).
     */
    watchDebounceMs: z.number().int().min(1000).max(3600 * 1000).default(10_000),
    /**
     * Write the ReplayGain values the analysis measured into the files' tags (MP3, FLAC, Ogg Vorbis,
     * Opus). Off: the user's files are never rewritten; the values live in the database.
     */
    writeReplayGainTags: z.boolean().default(false),
  })
  .strict();

/**
 * Playback destinations (issue 15 item 4): where playlists are published so people can play them in
 * their usual player. The connection itself lives in `integrations.<name>`; these say what to publish.
 */
const subsonicDestination = z
  .object({
    /** Publishing is opt-in: off until an administrator turns it on. */
    enabled: z.boolean().default(false),
    publishFlows: z.boolean().default(true),
    /** Static and shared playlists. */
    publishPlaylists: z.boolean().default(true),
    /** `auto`: "alice · Night drive" once the server has more than one user (they share the destination account). */
    ownerPrefix: z.enum(['auto', 'always', 'never']).default('auto'),
    /** How long a publish waits for the destination's library scan before matching what it knows. */
    scanTimeoutSeconds: z.number().int().min(0).max(3600).default(120),
  })
  .strict();
/** Plex: published as native audio playlists of the music library chosen in `integrations.plex`. */
const plexDestination = z
  .object({
    enabled: z.boolean().default(false),
    publishFlows: z.boolean().default(true),
    publishPlaylists: z.boolean().default(true),
    ownerPrefix: z.enum(['auto', 'always', 'never']).default('auto'),
  })
  .strict();
/**
 * Jellyfin (issue 27 §4; decisions §12): the connection and what to publish in one block. The API
 * key (an administrator's, made in Jellyfin's Dashboard → API Keys) goes only to the saved address.
 */
const jellyfinDestination = z
  .object({
    url: serviceUrl,
    apiKey: key,
    enabled: z.boolean().default(false),
    /**
     * The Jellyfin user whose playlists they become, unless their Tonearm owner has a Jellyfin user
     * of their own (Settings → Playback); empty: Jellyfin's first administrator.
     */
    userId: z.string().trim().max(64).regex(/^[0-9a-fA-F-]*$/, { error: 'must be a Jellyfin user id' }).default(''),
    publishFlows: z.boolean().default(true),
    publishPlaylists: z.boolean().default(true),
    ownerPrefix: z.enum(['auto', 'always', 'never']).default('auto'),
    /** How long a publish waits for Jellyfin's library scan before matching what it knows. */
    scanTimeoutSeconds: z.number().int().min(0).max(3600).default(120),
  })
  .strict();
export const playbackSettings = z
  .object({ navidrome: subsonicDestination.prefault({}), plex: plexDestination.prefault({}), jellyfin: jellyfinDestination.prefault({}) })
  .strict();

/** Each block with its defaults filled in when it is absent, as `integrations` holds its blocks. */
function prefaulted<T extends Record<string, z.ZodObject>>(blocks: T) {
  return Object.fromEntries(Object.entries(blocks).map(([name, block]) => [name, block.prefault({})])) as { [K in keyof T]: z.ZodPrefault<T[K]> };
}

export const settingsSchema = z
  .object({
    library: librarySettings.prefault({}),
    downloads: z
      .object({
        /** Root of self-managed downloads; empty: `<data folder>/downloads`. */
        folderPath: z.string().default(''),
        worker: downloadWorker.prefault({}),
        /**
         * Download jobs one person may have waiting or running (pending, downloading, blocked) after
         * an import; an import that would pass it is refused with a message. 0: no limit.
         */
        importQueueLimit: z.number().int().min(0).max(1_000_000).default(500),
      })
      .strict()
      .prefault({}),
    security: z
      .object({
        localNetworkBypass: z.object({ enabled: z.boolean().default(false) }).strict().prefault({}),
        /** Origins allowed to call /api from a browser, besides those in CORS_ORIGIN. */
        corsOrigins: z.array(z.url({ error: 'must be an origin like http://host:port' })).default([]),
        /**
         * Private or loopback hosts (names or addresses) that podcast feeds, imports and the service
         * addresses people other than administrators enter (their Koito server) may reach; added to
         * ALLOW_PRIVATE_TARGETS. Link-local and cloud metadata addresses stay refused.
         */
        allowPrivateTargets: z
          .array(
            z
              .string()
              .trim()
              .min(1)
              .max(253)
              .regex(/^(\[[0-9a-f:.]+\]|[0-9a-z.:_-]+)$/i, { error: 'must be a host name or an IP address, without scheme or port' }),
          )
          .max(100)
          .default([]),
      })
      .strict()
      .prefault({}),
    transcoding: z
      .object({
        cacheSizeMb: z.number().int().min(0).max(1_000_000).default(2048),
        maxConcurrent: z.number().int().min(1).max(32).default(2),
      })
      .strict()
      .prefault({}),
    /** How the server is reached; read when it starts (TONEARM_BASE_PATH wins over basePath). */
    network: z
      .object({
        basePath: z
          .string()
          .max(200)
          .refine((v) => normalizeBasePath(v) !== null, 'must be a path like /music (letters, digits, - _ . ~ and / between segments)')
          .transform((v) => normalizeBasePath(v) ?? '')
          .default(''),
      })
      .strict()
      .prefault({}),
    /** Public share links (Subsonic createShare, /share/<id> pages); off until an administrator turns it on. */
    sharing: z.object({ enabled: z.boolean().default(false) }).strict().prefault({}),
    /** The per-user inbox and which kinds of items it collects; an administrator switches them. */
    inbox: z
      .object({
        enabled,
        categories: z
          .object({ releases: enabled, shows: enabled, news: enabled, discoveries: enabled })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    notifications: notificationSettings.prefault({}),
    playback: playbackSettings.prefault({}),
    integrations: z
      .object({
        lidarr: lidarr.prefault({}),
        navidrome: navidrome.prefault({}),
        plex: plex.prefault({}),
        /** The download clients' blocks, each declared beside its source (downloads/sources/<id>.settings.ts). */
        ...prefaulted(DOWNLOAD_CLIENT_SETTINGS),
        gotify: gotify.prefault({}),
        ntfy: ntfy.prefault({}),
        discord: discord.prefault({}),
        lastfm: lastfm.prefault({}),
        musicbrainz: musicbrainz.prefault({}),
        metadata: metadata.prefault({}),
        spotify: spotify.prefault({}),
        oidc: oidc.prefault({}),
        ticketmaster: ticketmaster.prefault({}),
        news: news.prefault({}),
        acoustid: acoustid.prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

/** Field names whose values are secrets: never returned in clear. */
/** `webhookUrl`: Discord's webhook address holds its token. */
export const SECRET_FIELD = /^(apiKey|apiSecret|password|token|clientSecret|webhookUrl)$/;
export const SECRET_MASK = '********';

