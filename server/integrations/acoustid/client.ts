import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/**
 * AcoustID's web service (v2): which recordings a Chromaprint fingerprint belongs to. A lookup is
 * POSTed as a form (fingerprints are a few kB) to `<base>/lookup` with the application key
 * (`client`), the audio's duration in whole seconds and `meta=recordings`. Errors come in the body
 * (`{"status":"error","error":{"code":4,"message":"invalid API key"}}`), sometimes with HTTP 200.
 * AcoustID asks clients for at most 3 requests a second.
 */

const artist = z.object({ id: z.string().optional(), name: z.string() }).loose();
const recording = z
  .object({
    id: z.string(),
    title: z.string().optional(),
    duration: z.number().optional(),
    artists: z.array(artist).optional().default([]),
  })
  .loose();
const result = z.object({ id: z.string(), score: z.number(), recordings: z.array(recording).optional().default([]) }).loose();
const lookupSchema = z.object({ status: z.literal('ok'), results: z.array(result).default([]) }).loose();

export interface AcoustIdRecording {
  id: string;
  title: string | null;
  /** Joined credited artists ("A & B"), null when AcoustID names none. */
  artist: string | null;
  artistIds: string[];
  durationMs: number | null;
}

export interface AcoustIdMatch {
  /** The AcoustID track id. */
  id: string;
  /** 0–1: how well the fingerprint matched. */
  score: number;
  recordings: AcoustIdRecording[];
}

/** AcoustID's error codes as HTTP statuses the shared client understands, with our own words. */
const codes: Record<number, [number, string]> = {
  2: [400, 'a parameter is missing'],
  3: [400, 'the fingerprint is invalid'],
  4: [401, 'the application key is invalid'],
  5: [502, 'an internal error'],
  8: [400, 'the duration is invalid'],
  13: [503, 'the service is unavailable'],
  14: [429, 'too many requests'],
  17: [401, 'the application is unknown'],
};

export function acoustIdBodyError(body: unknown): { status: number; message: string } | null {
  const b = body as { status?: unknown; error?: { code?: unknown } } | null;
  if (!b || b.status !== 'error') return null;
  const code = Number(b.error?.code);
  const [status, words] = codes[code] ?? [400, 'an error'];
  return { status, message: `error ${Number.isFinite(code) ? code : '?'} (${words})` };
}

export interface AcoustIdOptions {
  /** `https://api.acoustid.org/v2`. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** 3 requests/s is AcoustID's rule: 340 ms apart. */
  spacingMs?: number;
  timeoutMs?: number;
  retries?: number;
  retryBaseMs?: number;
}

export class AcoustIdClient {
  private readonly api: JsonApi;

  constructor(private readonly options: AcoustIdOptions) {
    this.api = new JsonApi({
      service: 'acoustid',
      label: 'AcoustID',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 340,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 1000,
      bodyError: acoustIdBodyError,
    });
  }

  /** The AcoustID tracks a fingerprint matches, best first, with their MusicBrainz recordings. */
  async lookup(fingerprint: string, durationSeconds: number, signal?: AbortSignal): Promise<AcoustIdMatch[]> {
    const form = new URLSearchParams({
      client: this.options.apiKey,
      duration: String(Math.max(1, Math.round(durationSeconds))),
      fingerprint,
      meta: 'recordings',
      format: 'json',
    });
    const answer = await this.api.send({ path: '/lookup', body: form.toString(), contentType: 'application/x-www-form-urlencoded', schema: lookupSchema, signal });
    return answer.results
      .map((r) => ({
        id: r.id,
        score: r.score,
        recordings: r.recordings.map((rec) => ({
          id: rec.id,
          title: rec.title ?? null,
          artist: rec.artists.length ? rec.artists.map((a) => a.name).join(' & ') : null,
          artistIds: rec.artists.map((a) => a.id).filter((id): id is string => !!id),
          durationMs: rec.duration !== undefined ? Math.round(rec.duration * 1000) : null,
        })),
      }))
      .sort((a, b) => b.score - a.score);
  }
}
