import { z } from 'zod';
import { isNeverAllowedAddress } from '../../integrations/guardedFetch.js';

/** Literal link-local and metadata addresses are refused when saved; names are checked when connecting. */
const connectable = (url: string) => {
  if (!URL.canParse(url)) return true; // z.url has said so already (zod runs both checks)
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return !/^[\d.]+$|:/.test(host) || !isNeverAllowedAddress(host);
};

/** A URL of a service the user runs; empty string means "not configured". */
const serviceUrl = z
  .union([
    z.literal(''),
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine(connectable, { error: 'is a link-local or cloud metadata address, which is never allowed' }),
  ])
  .default('');
const secret = z.string().max(1024).default('');
/** Every integration block can be switched off without losing its settings (decisions §2). */
const enabled = z.boolean().default(true);
/** Download sources are tried in ascending priority. */
const priority = (value: number) => z.number().int().min(0).max(1000).default(value);

const lidarr = z
  .object({
    url: serviceUrl,
    apiKey: secret,
    enabled,
    qualityProfileId: z.number().int().positive().nullable().default(null),
    metadataProfileId: z.number().int().positive().nullable().default(null),
    rootFolderPath: z.string().default(''),
    searchOnAdd: z.boolean().default(true),
    /** Lidarr sees paths inside its own container/host; map its prefixes to this computer's. */
    pathMappings: z.array(z.object({ from: z.string().min(1), to: z.string().min(1) }).strict()).default([]),
  })
  .strict();

const navidrome = z.object({ url: serviceUrl, username: z.string().default(''), password: secret, enabled }).strict();
const slskd = z
  .object({
    url: serviceUrl,
    apiKey: secret,
    enabled,
    priority: priority(10),
    /** Where this computer sees slskd's downloads folder; empty: the path slskd reports in its options. */
    downloadPath: z.string().max(4096).default(''),
  })
  .strict();
/** Where this computer sees a download client's completed folder, when it differs from the path the client reports. */
const completedPath = z.string().max(4096).default('');
/** Prowlarr: searches the user's Usenet indexers; its results are handed to SABnzbd or NZBGet. */
const prowlarr = z.object({ url: serviceUrl, apiKey: secret, enabled }).strict();
const sabnzbd = z
  .object({ url: serviceUrl, apiKey: secret, enabled, priority: priority(20), category: z.string().max(256).default(''), completedPath })
  .strict();
const nzbget = z
  .object({
    url: serviceUrl,
    username: z.string().max(256).default(''),
    password: secret,
    enabled,
    priority: priority(20),
    category: z.string().max(256).default(''),
    completedPath,
  })
  .strict();
const gotify = z.object({ url: serviceUrl, token: secret, enabled }).strict();
const lastfm = z.object({ apiKey: secret, apiSecret: secret, enabled }).strict();
/** A Spotify app of the user's own (client-credentials flow) for catalogue lookups such as pasted links. */
const spotify = z.object({ clientId: z.string().max(256).default(''), clientSecret: secret, enabled }).strict();
/** MusicBrainz asks every client for a contact in its User-Agent. */
const musicbrainz = z.object({ email: z.union([z.literal(''), z.email()]).default(''), enabled }).strict();

export const librarySettings = z
  .object({
    musicFolders: z.array(z.string().min(1)).default([]),
    watchEnabled: z.boolean().default(true),
    /**
     * Quiet time after the last file change before a quick scan runs (a folder that keeps
     * changing is scanned anyway, at most max(60 s, 6 × this) after its first change).
     */
    watchDebounceMs: z.number().int().min(1000).max(3600 * 1000).default(10_000),
  })
  .strict();

export const settingsSchema = z
  .object({
    library: librarySettings.prefault({}),
    downloads: z.object({ folderPath: z.string().default('') }).strict().prefault({}),
    security: z
      .object({
        localNetworkBypass: z.object({ enabled: z.boolean().default(false) }).strict().prefault({}),
        /** Origins allowed to call /api from a browser, besides those in CORS_ORIGIN. */
        corsOrigins: z.array(z.url({ error: 'must be an origin like http://host:port' })).default([]),
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
    /** Public share links (Subsonic createShare, /share/<id> pages); off until an administrator turns it on. */
    sharing: z.object({ enabled: z.boolean().default(false) }).strict().prefault({}),
    integrations: z
      .object({
        lidarr: lidarr.prefault({}),
        navidrome: navidrome.prefault({}),
        slskd: slskd.prefault({}),
        prowlarr: prowlarr.prefault({}),
        sabnzbd: sabnzbd.prefault({}),
        nzbget: nzbget.prefault({}),
        gotify: gotify.prefault({}),
        lastfm: lastfm.prefault({}),
        musicbrainz: musicbrainz.prefault({}),
        spotify: spotify.prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

/** Field names whose values are secrets: never returned in clear. */
export const SECRET_FIELD = /^(apiKey|apiSecret|password|token|clientSecret)$/;
export const SECRET_MASK = '********';
