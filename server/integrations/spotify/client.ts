import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, parseJson } from '../http.js';
import { JsonApi } from '../jsonApi.js';

export interface SpotifyOptions {
  /** Web API root, e.g. `https://api.spotify.com/v1`. */
  apiUrl: string;
  /** Accounts service root, e.g. `https://accounts.spotify.com` (token at `/api/token`). */
  accountsUrl: string;
  clientId: string;
  clientSecret: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const named = z.object({ id: z.string(), name: z.string() }).loose();
export const spotifyArtistSchema = named;
export const spotifyAlbumSchema = z
  .object({ id: z.string(), name: z.string(), album_type: z.string().optional(), release_date: z.string().optional(), artists: z.array(named) })
  .loose();
export const spotifyTrackSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    artists: z.array(named),
    album: z.object({ id: z.string(), name: z.string(), artists: z.array(named).optional() }).loose().nullable().optional(),
    external_ids: z.object({ isrc: z.string().optional() }).loose().optional(),
  })
  .loose();
const tokenSchema = z.object({ access_token: z.string(), token_type: z.string().optional(), expires_in: z.number() }).loose();

/**
 * Spotify Web API catalogue lookups (artists, albums, tracks) with an app token from the
 * client-credentials flow: fetched on first use, reused until a minute before it expires, and
 * fetched again once when the API answers 401.
 */
export class SpotifyClient {
  private token: { value: string; expiresAt: number; api: JsonApi } | null = null;

  constructor(private readonly options: SpotifyOptions) {}

  artist(id: string, signal?: AbortSignal) {
    return this.get(`/artists/${encodeURIComponent(id)}`, spotifyArtistSchema, signal);
  }
  album(id: string, signal?: AbortSignal) {
    return this.get(`/albums/${encodeURIComponent(id)}`, spotifyAlbumSchema, signal);
  }
  track(id: string, signal?: AbortSignal) {
    return this.get(`/tracks/${encodeURIComponent(id)}`, spotifyTrackSchema, signal);
  }

  private async get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const api = await this.api(signal);
      try {
        return await api.get({ path, schema, ...(signal && { signal }) });
      } catch (err) {
        // A token revoked or expired early: one fresh token, then give up.
        if (attempt === 0 && err instanceof IntegrationError && err.status === 401) {
          this.token = null;
          continue;
        }
        throw err;
      }
    }
  }

  private async api(signal?: AbortSignal): Promise<JsonApi> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.api;
    const o = this.options;
    const answer = await exchange({
      service: 'spotify',
      label: 'Spotify accounts',
      url: joinUrl(o.accountsUrl, '/api/token'),
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        'User-Agent': o.userAgent,
      },
      body: 'grant_type=client_credentials',
      timeoutMs: o.timeoutMs ?? 8000,
      ...(o.fetch && { fetch: o.fetch }),
      ...(signal && { signal }),
    });
    if (answer.status === 400 || answer.status === 401 || answer.status === 403)
      throw new IntegrationError('spotify', 'unauthorized', `Spotify accounts refused the client id and secret (HTTP ${answer.status}); check integrations.spotify`, answer.status);
    if (answer.status === 429) throw new IntegrationError('spotify', 'rate_limited', 'Spotify accounts answered 429 (rate limited)', 429);
    if (answer.status < 200 || answer.status >= 300) throw new IntegrationError('spotify', 'server_error', `Spotify accounts answered ${answer.status}`, answer.status);
    const parsed = tokenSchema.safeParse(parseJson('spotify', answer));
    if (!parsed.success) throw new IntegrationError('spotify', 'bad_response', 'Spotify accounts answered without an access token');
    const value = parsed.data.access_token;
    const api = new JsonApi({
      service: 'spotify',
      label: 'Spotify',
      baseUrl: o.apiUrl,
      userAgent: o.userAgent,
      spacingMs: o.spacingMs ?? 100,
      timeoutMs: o.timeoutMs ?? 8000,
      retries: 2,
      retryBaseMs: 500,
      headers: { Authorization: `Bearer ${value}` },
      ...(o.fetch && { fetch: o.fetch }),
    });
    this.token = { value, expiresAt: Date.now() + Math.max(0, parsed.data.expires_in - 60) * 1000, api };
    return api;
  }
}
