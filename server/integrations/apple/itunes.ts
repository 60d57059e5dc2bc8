import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/**
 * The iTunes Search API's lookup (`/lookup?id=`), the keyless public catalogue behind Apple Music
 * links: artist, collection (album) and track ids all resolve through it.
 */
export interface ItunesOptions {
  /** Root, e.g. `https://itunes.apple.com`. */
  baseUrl: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const result = z
  .object({
    wrapperType: z.string(),
    kind: z.string().optional(),
    artistId: z.number().optional(),
    artistName: z.string().optional(),
    collectionId: z.number().optional(),
    collectionName: z.string().optional(),
    trackId: z.number().optional(),
    trackName: z.string().optional(),
  })
  .loose();
const lookupSchema = z.object({ resultCount: z.number(), results: z.array(result) }).loose();
export type ItunesResult = z.infer<typeof result>;

export class ItunesClient {
  private readonly api: JsonApi;

  constructor(options: ItunesOptions) {
    this.api = new JsonApi({
      service: 'itunes',
      label: 'iTunes Search API',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      // Apple asks for about 20 calls a minute.
      spacingMs: options.spacingMs ?? 500,
      timeoutMs: options.timeoutMs ?? 5000,
      retries: 2,
      retryBaseMs: 1000,
      // Apple answers 403 when a client goes over its rate.
      rateLimitStatuses: [403],
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  /** The catalogue entry with this id in a storefront (`us`, `gb`, …); null when it has none. */
  async lookup(id: string, country: string, signal?: AbortSignal): Promise<ItunesResult | null> {
    const answer = await this.api.get({ path: '/lookup', query: { id, country }, schema: lookupSchema, ...(signal && { signal }) });
    return answer.results[0] ?? null;
  }
}
