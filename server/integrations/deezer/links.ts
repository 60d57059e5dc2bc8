import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { JsonApi } from '../jsonApi.js';

/**
 * Deezer public API lookups by id, for resolving pasted Deezer links (no key needed). Deezer
 * answers errors with HTTP 200 and `{error:{type, message, code}}`: code 800 ("no data") is a
 * missing resource, code 4 its quota.
 */
export interface DeezerLinksOptions {
  /** API root, e.g. `https://api.deezer.com`. */
  baseUrl: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const deezerError = z.object({ type: z.string().optional(), message: z.string().optional(), code: z.number().optional() }).loose();
const named = z.object({ id: z.number(), name: z.string() }).loose();
const artistShape = named;
const albumShape = z.object({ id: z.number(), title: z.string(), artist: named, upc: z.string().optional(), record_type: z.string().optional() }).loose();
const trackShape = z
  .object({ id: z.number(), title: z.string(), artist: named, album: z.object({ id: z.number(), title: z.string() }).loose().optional(), isrc: z.string().optional() })
  .loose();

const orError = <T extends z.ZodType>(shape: T) => z.union([z.object({ error: deezerError }).loose(), shape]);

export type DeezerLinkArtist = z.infer<typeof artistShape>;
export type DeezerLinkAlbum = z.infer<typeof albumShape>;
export type DeezerLinkTrack = z.infer<typeof trackShape>;

export class DeezerLinksClient {
  private readonly api: JsonApi;

  constructor(options: DeezerLinksOptions) {
    this.api = new JsonApi({
      service: 'deezer',
      label: 'Deezer',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      // Deezer allows about 50 requests per 5 s per address.
      spacingMs: options.spacingMs ?? 110,
      timeoutMs: options.timeoutMs ?? 5000,
      retries: 2,
      retryBaseMs: 500,
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  artist(id: string, signal?: AbortSignal): Promise<DeezerLinkArtist> {
    return this.lookup(`/artist/${encodeURIComponent(id)}`, artistShape, signal);
  }
  album(id: string, signal?: AbortSignal): Promise<DeezerLinkAlbum> {
    return this.lookup(`/album/${encodeURIComponent(id)}`, albumShape, signal);
  }
  track(id: string, signal?: AbortSignal): Promise<DeezerLinkTrack> {
    return this.lookup(`/track/${encodeURIComponent(id)}`, trackShape, signal);
  }

  private async lookup<T extends z.ZodType>(path: string, shape: T, signal?: AbortSignal): Promise<z.infer<T>> {
    const body = (await this.api.get({ path, schema: orError(shape), ...(signal && { signal }) })) as { error?: z.infer<typeof deezerError> } | z.infer<T>;
    if (body && typeof body === 'object' && 'error' in body && body.error) {
      const e = body.error as z.infer<typeof deezerError>;
      if (e.code === 4) throw new IntegrationError('deezer', 'rate_limited', `Deezer quota exceeded for ${path}`);
      if (e.code === 800) throw new IntegrationError('deezer', 'not_found', `Deezer has no ${path}`, 404);
      throw new IntegrationError('deezer', 'bad_response', `Deezer answered ${path} with error ${e.code ?? '?'}: ${e.message ?? ''}`);
    }
    return body as z.infer<T>;
  }
}
