import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import type { PrivateTargets } from '../guardedFetch.js';
import { PlexTransport, type PlexProduct } from './transport.js';
import { asList, optionalText, plexFlag, plexKey, plexNumber } from './values.js';

/**
 * A Plex Media Server (an address the user runs, its token in a header): identity, library
 * sections, a music section's tracks with their file paths (paged with X-Plex-Container-Start/Size),
 * and native audio playlists keyed by ratingKey, whose items are removed by playlistItemID.
 */
export interface PlexServerOptions {
  baseUrl: string;
  token: string | null;
  product: PlexProduct;
  timeoutMs?: number;
  allowPrivateTargets?: PrivateTargets;
}

/** Plex's type of a music library section. */
export const MUSIC_SECTION_TYPE = 'artist';
/** Plex's metadata type number of a track (`/all?type=10`). */
const TRACK_TYPE = 10;
/** Tracks per page when reading a whole section. */
export const TRACK_PAGE_SIZE = 200;
/** Items per playlist URI: a few hundred ratingKeys keep the request line well under server limits. */
const URI_CHUNK = 200;

export interface PlexIdentity {
  machineIdentifier: string;
  version: string | null;
  claimed: boolean;
}

export interface PlexSection {
  key: string;
  type: string;
  title: string;
  agent: string | null;
  scanner: string | null;
  language: string | null;
  uuid: string | null;
  refreshing: boolean;
  updatedAt: number | null;
  scannedAt: number | null;
  locations: { id: string | null; path: string }[];
}

export interface PlexTrack {
  ratingKey: string;
  title: string;
  /** grandparentTitle (the track's artist may be in originalTitle). */
  artist: string | null;
  album: string | null;
  originalTitle: string | null;
  index: number | null;
  durationMs: number | null;
  /** Every file of the track as the server sees it (Media[].Part[].file). */
  files: string[];
}

export interface PlexTracksPage {
  tracks: PlexTrack[];
  offset: number;
  totalSize: number;
}

export interface PlexPlaylist {
  ratingKey: string;
  title: string;
  summary: string | null;
  smart: boolean;
  playlistType: string | null;
  leafCount: number;
  durationMs: number | null;
  addedAt: number | null;
  updatedAt: number | null;
}

export interface PlexPlaylistItem {
  ratingKey: string;
  /** What DELETE /playlists/{rk}/items/{id} takes; one track may be in a playlist twice. */
  playlistItemID: string;
  title: string | null;
}

const identitySchema = z.object({ machineIdentifier: z.string().min(1), version: optionalText, claimed: plexFlag.default(false) });

const sectionSchema = z.object({
  key: plexKey,
  type: z.string(),
  title: z.string(),
  agent: optionalText,
  scanner: optionalText,
  language: optionalText,
  uuid: optionalText,
  refreshing: plexFlag.default(false),
  updatedAt: plexNumber.nullish(),
  scannedAt: plexNumber.nullish(),
});
const locationSchema = z.object({ id: optionalText, path: z.string() });

const trackSchema = z.object({
  ratingKey: plexKey,
  title: z.union([z.string(), z.number()]).transform(String),
  grandparentTitle: optionalText,
  parentTitle: optionalText,
  originalTitle: optionalText,
  index: plexNumber.nullish(),
  duration: plexNumber.nullish(),
});
const partSchema = z.object({ file: z.string().optional() });

const playlistSchema = z.object({
  ratingKey: plexKey,
  title: z.union([z.string(), z.number()]).transform(String),
  summary: optionalText,
  smart: plexFlag.default(false),
  playlistType: optionalText,
  leafCount: plexNumber.default(0),
  duration: plexNumber.nullish(),
  addedAt: plexNumber.nullish(),
  updatedAt: plexNumber.nullish(),
});
const itemSchema = z.object({ ratingKey: plexKey, playlistItemID: plexKey, title: optionalText });

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new IntegrationError('plex', 'bad_response', `Plex Media Server answered ${what} with an unexpected shape (${issue.path.join('.')}: ${issue.message})`);
}

/** The MediaContainer of an answer (JSON `{MediaContainer:{…}}` or the same element in XML). */
function container(body: unknown, what: string): Record<string, unknown> {
  const mc = obj(body).MediaContainer;
  if (!mc || typeof mc !== 'object') throw new IntegrationError('plex', 'wrong_url', `Plex Media Server answered ${what} without a MediaContainer: is this address a Plex server?`);
  return mc as Record<string, unknown>;
}

/** `server://<machine>/com.plexapp.plugins.library/library/metadata/<rk1>,<rk2>`: how playlists name library items. */
export function libraryUri(machineIdentifier: string, ratingKeys: readonly string[]): string {
  return `server://${machineIdentifier}/com.plexapp.plugins.library/library/metadata/${ratingKeys.join(',')}`;
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

export class PlexServerClient {
  private readonly http: PlexTransport;

  constructor(readonly options: PlexServerOptions) {
    this.http = new PlexTransport({
      service: 'plex',
      label: 'Plex Media Server',
      baseUrl: options.baseUrl,
      product: options.product,
      token: options.token,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      allowPrivateTargets: options.allowPrivateTargets ?? 'lan',
    });
  }

  /** The server's machine identifier and version (answers without a token too). */
  async identity(): Promise<PlexIdentity> {
    const mc = container(await this.http.call({ path: '/identity' }), '/identity');
    return parse(identitySchema, mc, '/identity');
  }

  async sections(): Promise<PlexSection[]> {
    const mc = container(await this.http.call({ path: '/library/sections' }), '/library/sections');
    return asList(mc.Directory).map((d, i) => {
      const s = parse(sectionSchema, d, `section ${i + 1}`);
      const locations = asList(obj(d).Location).map((l) => parse(locationSchema, l, `a location of ${s.title}`));
      return { ...s, updatedAt: s.updatedAt ?? null, scannedAt: s.scannedAt ?? null, locations };
    });
  }

  async musicSections(): Promise<PlexSection[]> {
    return (await this.sections()).filter((s) => s.type === MUSIC_SECTION_TYPE);
  }

  /** Starts a scan of one section. */
  async refreshSection(sectionKey: string): Promise<void> {
    await this.http.call({ path: `/library/sections/${encodeURIComponent(sectionKey)}/refresh` });
  }

  /** One page of a section's tracks with their file paths. */
  async tracksPage(sectionKey: string, start: number, size = TRACK_PAGE_SIZE): Promise<PlexTracksPage> {
    const body = await this.http.call({
      path: `/library/sections/${encodeURIComponent(sectionKey)}/all`,
      query: { type: TRACK_TYPE, 'X-Plex-Container-Start': start, 'X-Plex-Container-Size': size },
    });
    const mc = container(body, 'a page of tracks');
    const tracks = asList(mc.Metadata ?? mc.Track).map((m, i) => {
      const t = parse(trackSchema, m, `track ${start + i + 1}`);
      const files = asList(obj(m).Media)
        .flatMap((media) => asList(obj(media).Part))
        .map((p) => parse(partSchema, p, `a file of ${t.title}`).file)
        .filter((f): f is string => typeof f === 'string' && f !== '');
      return { ratingKey: t.ratingKey, title: t.title, artist: t.grandparentTitle, album: t.parentTitle, originalTitle: t.originalTitle, index: t.index ?? null, durationMs: t.duration ?? null, files };
    });
    const offset = Number(mc.offset ?? start);
    const totalSize = Number(mc.totalSize ?? mc.size ?? tracks.length);
    return { tracks, offset: Number.isFinite(offset) ? offset : start, totalSize: Number.isFinite(totalSize) ? totalSize : tracks.length };
  }

  /** Every track of a section, page after page until `totalSize` (each page handed to `onPage` as it arrives). */
  async eachTrackPage(sectionKey: string, onPage: (page: PlexTracksPage) => void | Promise<void>, size = TRACK_PAGE_SIZE, signal?: AbortSignal): Promise<number> {
    let start = 0;
    let seen = 0;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const page = await this.tracksPage(sectionKey, start, size);
      await onPage(page);
      seen += page.tracks.length;
      start += page.tracks.length;
      if (page.tracks.length === 0 || start >= page.totalSize) return seen;
    }
  }

  async playlists(): Promise<PlexPlaylist[]> {
    const mc = container(await this.http.call({ path: '/playlists', query: { playlistType: 'audio' } }), '/playlists');
    return asList(mc.Metadata ?? mc.Playlist).map((m, i) => toPlaylist(parse(playlistSchema, m, `playlist ${i + 1}`)));
  }

  /** Creates an audio playlist holding `ratingKeys` in order (at least one: Plex makes playlists from items). */
  async createPlaylist(args: { machineIdentifier: string; title: string; ratingKeys: readonly string[]; summary?: string }): Promise<PlexPlaylist> {
    if (args.ratingKeys.length === 0) throw new IntegrationError('plex', 'bad_request', 'A Plex playlist is created with at least one track');
    const [first, ...rest] = chunks(args.ratingKeys, URI_CHUNK);
    const body = await this.http.call({
      method: 'POST',
      path: '/playlists',
      query: { type: 'audio', title: args.title, smart: 0, uri: libraryUri(args.machineIdentifier, first!) },
    });
    const created = asList(container(body, 'a new playlist').Metadata)[0];
    const playlist = toPlaylist(parse(playlistSchema, created, 'a new playlist'));
    for (const chunk of rest) await this.addPlaylistItems(playlist.ratingKey, args.machineIdentifier, chunk);
    if (args.summary) await this.updatePlaylist(playlist.ratingKey, { summary: args.summary });
    return playlist;
  }

  /** The items in playlist order, with the playlistItemID each removal needs. */
  async playlistItems(ratingKey: string): Promise<PlexPlaylistItem[]> {
    const items: PlexPlaylistItem[] = [];
    for (let start = 0; ; ) {
      const body = await this.http.call({
        path: `/playlists/${encodeURIComponent(ratingKey)}/items`,
        query: { 'X-Plex-Container-Start': start, 'X-Plex-Container-Size': 500 },
      });
      const mc = container(body, 'playlist items');
      const page = asList(mc.Metadata ?? mc.Track).map((m, i) => parse(itemSchema, m, `playlist item ${start + i + 1}`));
      items.push(...page.map((p) => ({ ratingKey: p.ratingKey, playlistItemID: p.playlistItemID, title: p.title })));
      start += page.length;
      const total = Number(mc.totalSize ?? mc.leafCount ?? mc.size ?? start);
      if (page.length === 0 || !Number.isFinite(total) || start >= total) return items;
    }
  }

  /** Appends tracks to a playlist (in order). */
  async addPlaylistItems(ratingKey: string, machineIdentifier: string, ratingKeys: readonly string[]): Promise<void> {
    for (const chunk of chunks(ratingKeys, URI_CHUNK)) {
      await this.http.call({ method: 'PUT', path: `/playlists/${encodeURIComponent(ratingKey)}/items`, query: { uri: libraryUri(machineIdentifier, chunk) } });
    }
  }

  async removePlaylistItem(ratingKey: string, playlistItemID: string): Promise<void> {
    await this.http.call({ method: 'DELETE', path: `/playlists/${encodeURIComponent(ratingKey)}/items/${encodeURIComponent(playlistItemID)}` });
  }

  async updatePlaylist(ratingKey: string, changes: { title?: string; summary?: string }): Promise<void> {
    await this.http.call({ method: 'PUT', path: `/playlists/${encodeURIComponent(ratingKey)}`, query: { title: changes.title, summary: changes.summary } });
  }

  async deletePlaylist(ratingKey: string): Promise<void> {
    await this.http.call({ method: 'DELETE', path: `/playlists/${encodeURIComponent(ratingKey)}` });
  }
}

function toPlaylist(p: z.infer<typeof playlistSchema>): PlexPlaylist {
  return {
    ratingKey: p.ratingKey,
    title: p.title,
    summary: p.summary,
    smart: p.smart,
    playlistType: p.playlistType,
    leafCount: p.leafCount,
    durationMs: p.duration ?? null,
    addedAt: p.addedAt ?? null,
    updatedAt: p.updatedAt ?? null,
  };
}
