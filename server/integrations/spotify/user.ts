import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { JsonApi } from '../jsonApi.js';

/**
 * The Spotify Web API as one user sees it (their profile, playlists and playlist tracks), with
 * that user's access token. Tokens come from a `SpotifyTokenSource`: the current one (renewed
 * ahead of expiry by the source), and once per call a forced renewal after a 401. Pages are
 * followed by their `next` URL, which must stay under the configured API root (the bearer token
 * is never sent elsewhere). 429 waits for Retry-After (JsonApi's retries).
 */
export interface SpotifyTokenSource {
  current(signal?: AbortSignal): Promise<string>;
  /** After a 401: renew now and answer the new token. */
  renewed(signal?: AbortSignal): Promise<string>;
}

export interface SpotifyUserOptions {
  /** e.g. `https://api.spotify.com/v1`. */
  apiUrl: string;
  userAgent: string;
  tokens: SpotifyTokenSource;
  spacingMs?: number;
  timeoutMs?: number;
  /** Further attempts after 429/5xx (Retry-After honoured, capped at 30 s each). */
  retries?: number;
}

const meSchema = z.object({ id: z.string(), display_name: z.string().nullish() }).loose();

const playlistSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    owner: z.object({ id: z.string().optional(), display_name: z.string().nullish() }).loose().nullish(),
    public: z.boolean().nullish(),
    collaborative: z.boolean().nullish(),
    images: z.array(z.object({ url: z.string() }).loose()).nullish(),
    tracks: z.object({ total: z.number() }).loose().nullish(),
    items: z.object({ total: z.number() }).loose().nullish(),
  })
  .loose();
const playlistPageSchema = z.object({ items: z.array(playlistSchema.nullable()), next: z.string().nullish(), total: z.number().optional() }).loose();

const trackSchema = z
  .object({
    name: z.string().nullish(),
    type: z.string().optional(),
    duration_ms: z.number().nullish(),
    artists: z.array(z.object({ name: z.string() }).loose()).nullish(),
    album: z.object({ name: z.string().nullish() }).loose().nullish(),
    external_ids: z.object({ isrc: z.string().nullish() }).loose().nullish(),
  })
  .loose();
const trackPageSchema = z
  .object({
    // `track` (and the newer `item`) is null for a track no longer available.
    items: z.array(z.object({ track: trackSchema.nullish(), item: trackSchema.nullish() }).loose()),
    next: z.string().nullish(),
    total: z.number().optional(),
    offset: z.number().optional(),
  })
  .loose();

export interface SpotifyPlaylist {
  id: string;
  name: string;
  owner: string | null;
  trackCount: number;
  imageUrl: string | null;
}

export interface SpotifyPlaylistTrack {
  title: string;
  artists: string[];
  album: string | null;
  durationMs: number | null;
  isrc: string | null;
}

/** At most this many playlists are listed (20 pages of 50). */
const MAX_PLAYLISTS = 1000;
const TRACK_FIELDS = 'items(track(name,type,duration_ms,external_ids(isrc),artists(name),album(name))),next,total,offset';

export class SpotifyUserClient {
  private api: { token: string; client: JsonApi } | null = null;

  constructor(private readonly options: SpotifyUserOptions) {}

  me(signal?: AbortSignal): Promise<{ id: string; displayName: string | null }> {
    return this.get('/me', meSchema, signal).then((m) => ({ id: m.id, displayName: m.display_name ?? null }));
  }

  /** The user's playlists (own and followed), following `next`. */
  async playlists(signal?: AbortSignal): Promise<SpotifyPlaylist[]> {
    const out: SpotifyPlaylist[] = [];
    let path: string | null = '/me/playlists?limit=50';
    while (path && out.length < MAX_PLAYLISTS) {
      const page: z.infer<typeof playlistPageSchema> = await this.get(path, playlistPageSchema, signal);
      for (const p of page.items) if (p) out.push(toPlaylist(p));
      path = page.next ? this.relative(page.next) : null;
    }
    return out;
  }

  async playlist(id: string, signal?: AbortSignal): Promise<SpotifyPlaylist> {
    return toPlaylist(await this.get(`/playlists/${encodeURIComponent(id)}?fields=id,name,owner(id,display_name),images,tracks(total)`, playlistSchema, signal));
  }

  /** One page of tracks after another (100 each), following `next`; episodes and unavailable tracks are left out. */
  async *tracks(playlistId: string, signal?: AbortSignal): AsyncGenerator<{ tracks: SpotifyPlaylistTrack[]; total: number | null }> {
    let path: string | null = `/playlists/${encodeURIComponent(playlistId)}/tracks?limit=100&fields=${encodeURIComponent(TRACK_FIELDS)}`;
    while (path) {
      const page: z.infer<typeof trackPageSchema> = await this.get(path, trackPageSchema, signal);
      const tracks: SpotifyPlaylistTrack[] = [];
      for (const entry of page.items) {
        const t = entry.track ?? entry.item;
        if (!t || (t.type !== undefined && t.type !== 'track') || !t.name) continue;
        const artists = (t.artists ?? []).map((a) => a.name).filter(Boolean);
        if (artists.length === 0) continue;
        tracks.push({ title: t.name, artists, album: t.album?.name ?? null, durationMs: t.duration_ms ?? null, isrc: t.external_ids?.isrc ?? null });
      }
      yield { tracks, total: page.total ?? null };
      path = page.next ? this.relative(page.next) : null;
    }
  }

  /** A `next` URL as a path under the API root; anything else is refused. */
  private relative(next: string): string {
    const base = new URL(this.options.apiUrl);
    let url: URL;
    try {
      url = new URL(next, base);
    } catch {
      throw new IntegrationError('spotify', 'bad_response', 'Spotify sent a next page address that is not a URL');
    }
    const root = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !url.pathname.startsWith(`${root}/`))
      throw new IntegrationError('spotify', 'bad_response', 'Spotify sent a next page outside its API address; not followed');
    return url.pathname.slice(root.length) + url.search;
  }

  private client(token: string): JsonApi {
    if (this.api?.token === token) return this.api.client;
    const o = this.options;
    const client = new JsonApi({
      service: 'spotify',
      label: 'Spotify',
      baseUrl: o.apiUrl,
      userAgent: o.userAgent,
      spacingMs: o.spacingMs ?? 50,
      timeoutMs: o.timeoutMs ?? 10_000,
      retries: o.retries ?? 3,
      retryBaseMs: 1000,
      headers: { Authorization: `Bearer ${token}` },
    });
    this.api = { token, client };
    return client;
  }

  private async get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    let token = await this.options.tokens.current(signal);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client(token).get({ path, schema, ...(signal && { signal }) });
      } catch (err) {
        // Expired or revoked early: one renewal, then the 401 stands.
        if (attempt === 0 && err instanceof IntegrationError && err.status === 401) {
          token = await this.options.tokens.renewed(signal);
          continue;
        }
        throw err;
      }
    }
  }
}

function toPlaylist(p: z.infer<typeof playlistSchema>): SpotifyPlaylist {
  return {
    id: p.id,
    name: p.name,
    owner: p.owner?.display_name ?? p.owner?.id ?? null,
    trackCount: p.tracks?.total ?? p.items?.total ?? 0,
    imageUrl: p.images?.[0]?.url ?? null,
  };
}
