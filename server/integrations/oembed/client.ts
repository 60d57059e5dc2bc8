import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/**
 * An oEmbed provider endpoint (YouTube, Tidal): `GET <endpoint>?url=<page>&format=json` answers the
 * page's title and author. Used where a service has no keyless catalogue API. The endpoint is a
 * fixed public host from configuration and the page URL is rebuilt from the parsed id, so a pasted
 * link never chooses which host the server contacts.
 */
export interface OEmbedOptions {
  service: string;
  label: string;
  /** The provider's root, e.g. `https://www.youtube.com`. */
  baseUrl: string;
  /** The endpoint's path under it, e.g. `/oembed` (YouTube) or `/` (Tidal). */
  path: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const oembedSchema = z
  .object({ title: z.string().optional().default(''), author_name: z.string().optional(), author_url: z.string().optional(), type: z.string().optional() })
  .loose();
export type OEmbed = z.infer<typeof oembedSchema>;

export class OEmbedClient {
  private readonly api: JsonApi;
  private readonly path: string;

  constructor(options: OEmbedOptions) {
    this.path = options.path;
    this.api = new JsonApi({
      service: options.service,
      label: options.label,
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 200,
      timeoutMs: options.timeoutMs ?? 5000,
      retries: 1,
      retryBaseMs: 500,
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  /** The oEmbed of a page; a 404 (unknown or private page) is an IntegrationError of kind not_found. */
  get(pageUrl: string, signal?: AbortSignal): Promise<OEmbed> {
    return this.api.get({ path: this.path, query: { url: pageUrl, format: 'json' }, schema: oembedSchema, ...(signal && { signal }) });
  }
}
