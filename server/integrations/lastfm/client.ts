import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/** Last.fm sends numbers as strings ("123", "0.87"); a missing or empty one is 0. */
const num = z.preprocess((v) => (v === '' || v === null || v === undefined ? 0 : v), z.coerce.number().catch(0));
/** A list of one entry arrives as that entry, an empty one as nothing (or ""). */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]), z.array(item));
/** Missing MBIDs are "". */
const mbid = z.string().nullish().transform((v) => v || null);
const images = list(z.object({ '#text': z.string().default(''), size: z.string().default('') }).loose());
export type LastFmImage = { url: string; size: string };
const toImages = (list: { '#text': string; size: string }[]): LastFmImage[] => list.filter((i) => i['#text']).map((i) => ({ url: i['#text'], size: i.size }));

const tagSchema = z.object({ name: z.string(), count: num.optional(), url: z.string().optional() }).loose();

const artistInfoSchema = z.object({
  artist: z
    .object({
      name: z.string(),
      mbid,
      url: z.string().default(''),
      image: images.transform(toImages),
      stats: z.object({ listeners: num, playcount: num }).loose().optional(),
      tags: z.preprocess((v) => (v === '' ? undefined : v), z.object({ tag: list(tagSchema) }).loose().optional()),
      bio: z.object({ summary: z.string().default(''), content: z.string().default(''), published: z.string().optional() }).loose().optional(),
    })
    .loose(),
});
export type LastFmArtistInfo = z.infer<typeof artistInfoSchema>['artist'];

const topTagsSchema = z.object({ toptags: z.object({ tag: list(tagSchema) }).loose() });

const similarSchema = z.object({
  similarartists: z
    .object({
      artist: list(z.object({ name: z.string(), mbid, match: num, url: z.string().default(''), image: images.transform(toImages) }).loose()),
    })
    .loose(),
});
export type LastFmSimilarArtist = z.infer<typeof similarSchema>['similarartists']['artist'][number];

const pageAttr = z.object({ page: num, perPage: num, totalPages: num, total: num }).loose();
const topTracksSchema = z.object({
  toptracks: z
    .object({
      track: list(z.object({ name: z.string(), mbid, playcount: num, listeners: num, url: z.string().default(''), '@attr': z.object({ rank: num }).loose().optional() }).loose()),
      '@attr': pageAttr.optional(),
    })
    .loose(),
});
export type LastFmTopTrack = z.infer<typeof topTracksSchema>['toptracks']['track'][number];

const albumInfoSchema = z.object({
  album: z
    .object({
      name: z.string(),
      artist: z.string().default(''),
      mbid,
      url: z.string().default(''),
      image: images.transform(toImages),
      listeners: num.optional(),
      playcount: num.optional(),
      tags: z.preprocess((v) => (v === '' ? undefined : v), z.object({ tag: list(tagSchema) }).loose().optional()),
      tracks: z.preprocess(
        (v) => (v === '' ? undefined : v),
        z.object({ track: list(z.object({ name: z.string(), duration: num.optional(), url: z.string().default('') }).loose()) }).loose().optional(),
      ),
      /** Absent when nobody has written about the album. */
      wiki: z.object({ summary: z.string().default(''), content: z.string().default(''), published: z.string().optional() }).loose().optional(),
    })
    .loose(),
});
export type LastFmAlbumInfo = z.infer<typeof albumInfoSchema>['album'];
/** One page of a paged Last.fm list; the page numbers arrive as strings and are normalised. */
export interface LastFmPage<T> {
  items: T[];
  page: number;
  perPage: number;
  totalPages: number;
  total: number;
}
type PageAttr = z.infer<typeof pageAttr>;
const toPage = <T>(items: T[], attr: PageAttr | undefined, page: number, perPage: number): LastFmPage<T> => ({
  items,
  page: attr?.page || page,
  perPage: attr?.perPage || perPage,
  totalPages: attr?.totalPages ?? (items.length ? 1 : 0),
  total: attr?.total ?? items.length,
});

const rank = z.object({ rank: num }).loose().optional();
/** An artist in a chart or ranking: tag.getTopArtists, chart.getTopArtists, user.getTopArtists. */
const rankedArtist = z
  .object({
    name: z.string(),
    mbid,
    url: z.string().default(''),
    playcount: num.optional(),
    listeners: num.optional(),
    image: images.transform(toImages),
    '@attr': rank,
  })
  .loose()
  .transform(({ '@attr': attr, ...a }) => ({ ...a, rank: attr?.rank ?? null }));
export type LastFmRankedArtist = z.output<typeof rankedArtist>;

const tagTopArtistsSchema = z.object({ topartists: z.object({ artist: list(rankedArtist), '@attr': pageAttr.optional() }).loose() });
const chartTopArtistsSchema = z.object({ artists: z.object({ artist: list(rankedArtist), '@attr': pageAttr.optional() }).loose() });
const userTopArtistsSchema = tagTopArtistsSchema;

const chartTrack = z
  .object({
    name: z.string(),
    mbid,
    url: z.string().default(''),
    duration: num.optional(),
    playcount: num,
    listeners: num,
    artist: z.object({ name: z.string(), mbid, url: z.string().default('') }).loose(),
    image: images.transform(toImages),
  })
  .loose();
export type LastFmChartTrack = z.output<typeof chartTrack>;
const chartTopTracksSchema = z.object({ tracks: z.object({ track: list(chartTrack), '@attr': pageAttr.optional() }).loose() });

/** A tag with how many people use it (`reach`) and how often (`count` / `taggings`). */
const globalTag = z
  .object({ name: z.string(), url: z.string().default(''), count: num.optional(), reach: num.optional(), taggings: num.optional() })
  .loose()
  .transform((t) => ({ name: t.name, url: t.url, reach: t.reach ?? 0, count: t.count ?? t.taggings ?? 0 }));
export type LastFmGlobalTag = z.output<typeof globalTag>;
const tagTopTagsSchema = z.object({
  toptags: z.object({ tag: list(globalTag), '@attr': z.object({ offset: num, num_res: num, total: num }).loose().optional() }).loose(),
});
const chartTopTagsSchema = z.object({ tags: z.object({ tag: list(globalTag), '@attr': pageAttr.optional() }).loose() });

/** user.getTopArtists periods. */
export const LASTFM_PERIODS = ['overall', '7day', '1month', '3month', '6month', '12month'] as const;
export type LastFmPeriod = (typeof LASTFM_PERIODS)[number];

/** Last.fm's error codes as the HTTP status they amount to (the body says `{error, message}`). */
const errorStatus: Record<number, number> = {
  2: 400, 3: 400, 4: 401, 6: 404, 7: 400, 8: 502, 9: 401, 10: 401, 11: 503, 13: 401, 14: 401, 15: 401, 16: 503, 26: 403, 29: 429,
};
const errorWords: Record<number, string> = {
  13: 'invalid method signature: check the API secret', 14: 'unauthorized token', 15: 'token expired',
  4: 'authentication failed', 6: 'not found', 8: 'operation failed', 9: 'invalid session key', 10: 'invalid API key', 11: 'service offline',
  16: 'temporary error', 26: 'suspended API key', 29: 'rate limit exceeded',
};

export function lastFmBodyError(body: unknown): { status: number; message: string } | null {
  const raw = (body as { error?: unknown } | null)?.error;
  if (raw === undefined || raw === null || typeof raw === 'object') return null;
  const code = Number(raw);
  if (!Number.isFinite(code)) return null;
  return { status: errorStatus[code] ?? 400, message: `error ${code}${errorWords[code] ? ` (${errorWords[code]})` : ''}` };
}

export interface LastFmOptions {
  /** API root, e.g. `https://ws.audioscrobbler.com/2.0`. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** Last.fm asks for at most about 5 requests/s; 200 ms spacing. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

/** Who a lookup is about: the MusicBrainz id when Last.fm knows it, the name otherwise (or both). */
export interface LastFmArtistRef {
  name: string;
  mbid?: string | null;
}

/** Last.fm's read methods about artists (JSON, API key in the query; numbers and lists normalised). */
export class LastFmClient {
  private readonly api: JsonApi;

  constructor(private readonly options: LastFmOptions) {
    this.api = new JsonApi({
      service: 'lastfm',
      label: 'Last.fm',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 200,
      timeoutMs: options.timeoutMs ?? 15_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 300,
      bodyError: lastFmBodyError,
    });
  }

  private get<T>(method: string, query: Record<string, unknown>, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    // The API root ends in /2.0/; the method goes in the query.
    return this.api.get({ path: '/', query: { method, ...query, api_key: this.options.apiKey, format: 'json' }, schema, signal });
  }

  private static who(ref: LastFmArtistRef) {
    return { artist: ref.name, ...(ref.mbid && { mbid: ref.mbid }), autocorrect: 1 };
  }

  async artistInfo(ref: LastFmArtistRef, signal?: AbortSignal): Promise<LastFmArtistInfo> {
    return (await this.get('artist.getInfo', LastFmClient.who(ref), artistInfoSchema, signal)).artist;
  }

  async topTags(ref: LastFmArtistRef, signal?: AbortSignal) {
    return (await this.get('artist.getTopTags', LastFmClient.who(ref), topTagsSchema, signal)).toptags.tag;
  }

  async similar(ref: LastFmArtistRef, limit: number, signal?: AbortSignal): Promise<LastFmSimilarArtist[]> {
    return (await this.get('artist.getSimilar', { ...LastFmClient.who(ref), limit }, similarSchema, signal)).similarartists.artist;
  }

  /** An album by its artist's name and its title (Last.fm's album MBIDs are release ids, not release groups). */
  async albumInfo(ref: { artist: string; album: string }, signal?: AbortSignal): Promise<LastFmAlbumInfo> {
    return (await this.get('album.getInfo', { artist: ref.artist, album: ref.album, autocorrect: 1 }, albumInfoSchema, signal)).album;
  }

  /** One page of the artist's top tracks. */
  async topTracks(ref: LastFmArtistRef, limit: number, page = 1, signal?: AbortSignal) {
    const answer = (await this.get('artist.getTopTracks', { ...LastFmClient.who(ref), limit, page }, topTracksSchema, signal)).toptracks;
    return { tracks: answer.track, page: answer['@attr']?.page ?? page, totalPages: answer['@attr']?.totalPages ?? 1, total: answer['@attr']?.total ?? answer.track.length };
  }

  /** The artists most tagged with `tag` (tag.getTopArtists), one page; an unknown tag is an empty page. */
  async tagTopArtists(tag: string, limit = 50, page = 1, signal?: AbortSignal): Promise<LastFmPage<LastFmRankedArtist>> {
    const answer = (await this.get('tag.getTopArtists', { tag, limit, page }, tagTopArtistsSchema, signal)).topartists;
    return toPage(answer.artist, answer['@attr'], page, limit);
  }

  /** The global artist chart (chart.getTopArtists), one page. */
  async chartTopArtists(limit = 50, page = 1, signal?: AbortSignal): Promise<LastFmPage<LastFmRankedArtist>> {
    const answer = (await this.get('chart.getTopArtists', { limit, page }, chartTopArtistsSchema, signal)).artists;
    return toPage(answer.artist, answer['@attr'], page, limit);
  }

  /** The global track chart (chart.getTopTracks), one page. */
  async chartTopTracks(limit = 50, page = 1, signal?: AbortSignal): Promise<LastFmPage<LastFmChartTrack>> {
    const answer = (await this.get('chart.getTopTracks', { limit, page }, chartTopTracksSchema, signal)).tracks;
    return toPage(answer.track, answer['@attr'], page, limit);
  }

  /** A user's most played artists over `period` (user.getTopArtists), one page; an unknown user is not_found. */
  async userTopArtists(user: string, period: LastFmPeriod = 'overall', limit = 50, page = 1, signal?: AbortSignal): Promise<LastFmPage<LastFmRankedArtist>> {
    const answer = (await this.get('user.getTopArtists', { user, period, limit, page }, userTopArtistsSchema, signal)).topartists;
    return toPage(answer.artist, answer['@attr'], page, limit);
  }

  /** The most used tags on Last.fm (tag.getTopTags), by how many people use them. */
  async tagTopTags(signal?: AbortSignal): Promise<LastFmGlobalTag[]> {
    return (await this.get('tag.getTopTags', {}, tagTopTagsSchema, signal)).toptags.tag;
  }

  /** The tag chart (chart.getTopTags), one page. */
  async chartTopTags(limit = 50, page = 1, signal?: AbortSignal): Promise<LastFmPage<LastFmGlobalTag>> {
    const answer = (await this.get('chart.getTopTags', { limit, page }, chartTopTagsSchema, signal)).tags;
    return toPage(answer.tag, answer['@attr'], page, limit);
  }
}
