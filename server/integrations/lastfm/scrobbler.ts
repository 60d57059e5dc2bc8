import crypto from 'node:crypto';
import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';
import { lastFmBodyError } from './client.js';

/**
 * Last.fm's signature: every parameter except `format` and `callback`, sorted by name, each name
 * followed by its value with no separators, then the shared secret; MD5 as lowercase hex.
 */
export function lastFmSignature(params: Record<string, string>, secret: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'format' && k !== 'callback')
    .sort()
    .map((k) => k + params[k])
    .join('');
  return crypto.createHash('md5').update(text + secret, 'utf8').digest('hex');
}

/** The address of Last.fm's web authorization page for our API key, coming back to `callback`. */
export function lastFmAuthPageUrl(authUrl: string, apiKey: string, callback: string): string {
  const url = new URL(authUrl);
  url.searchParams.set('api_key', apiKey);
  url.searchParams.set('cb', callback);
  return url.href;
}

/** What a play says to Last.fm (track.scrobble and track.updateNowPlaying). */
export interface LastFmPlay {
  artist: string;
  track: string;
  album?: string | null;
  /** Seconds since the epoch, when the track started (scrobbles only). */
  timestamp?: number;
  durationSeconds?: number | null;
  mbid?: string | null;
}

const sessionSchema = z.object({ session: z.object({ name: z.string(), key: z.string().min(1) }).loose() });
const scrobbleSchema = z.object({
  scrobbles: z
    .object({ '@attr': z.object({ accepted: z.coerce.number(), ignored: z.coerce.number() }).loose() })
    .loose(),
});
const nowPlayingSchema = z.object({ nowplaying: z.object({}).loose() });

export interface LastFmScrobblerOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  /** 0 when an outbox does the retrying. */
  retries?: number;
}

/** Last.fm's signed write methods: auth.getSession, track.updateNowPlaying and track.scrobble (POST, form-encoded). */
export class LastFmScrobbler {
  private readonly api: JsonApi;

  constructor(private readonly options: LastFmScrobblerOptions) {
    this.api = new JsonApi({
      service: 'lastfm',
      label: 'Last.fm',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 200,
      timeoutMs: options.timeoutMs ?? 15_000,
      retries: options.retries ?? 0,
      retryBaseMs: 300,
      bodyError: lastFmBodyError,
    });
  }

  private signed(method: string, params: Record<string, string | number | null | undefined>): Record<string, string> {
    const all: Record<string, string> = { method, api_key: this.options.apiKey };
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') all[k] = String(v);
    all.api_sig = lastFmSignature(all, this.options.apiSecret);
    all.format = 'json';
    return all;
  }

  private post<T>(method: string, params: Record<string, string | number | null | undefined>, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const body = new URLSearchParams(this.signed(method, params)).toString();
    return this.api.send({ path: '/', body, contentType: 'application/x-www-form-urlencoded', schema, ...(signal && { signal }) });
  }

  /** Trades the token Last.fm handed to our callback for the user's session key (which never expires). */
  async getSession(token: string, signal?: AbortSignal): Promise<{ name: string; key: string }> {
    return (await this.post('auth.getSession', { token }, sessionSchema, signal)).session;
  }

  private static fields(play: LastFmPlay) {
    return {
      artist: play.artist,
      track: play.track,
      album: play.album,
      mbid: play.mbid,
      duration: play.durationSeconds ? Math.round(play.durationSeconds) : undefined,
    };
  }

  async updateNowPlaying(sessionKey: string, play: LastFmPlay, signal?: AbortSignal): Promise<void> {
    await this.post('track.updateNowPlaying', { sk: sessionKey, ...LastFmScrobbler.fields(play) }, nowPlayingSchema, signal);
  }

  /** One scrobble; answers whether Last.fm accepted it (an ignored scrobble is not an error to retry). */
  async scrobble(sessionKey: string, play: LastFmPlay & { timestamp: number }, signal?: AbortSignal): Promise<{ accepted: number; ignored: number }> {
    const answer = await this.post('track.scrobble', { sk: sessionKey, timestamp: play.timestamp, ...LastFmScrobbler.fields(play) }, scrobbleSchema, signal);
    return answer.scrobbles['@attr'];
  }
}
