import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

const imageSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    image: z.string(),
    thumbnails: z.record(z.string(), z.string()).optional().default({}),
    types: z.array(z.string()).optional().default([]),
    front: z.boolean().optional().default(false),
    back: z.boolean().optional().default(false),
    approved: z.boolean().optional(),
  })
  .loose();
const coverSchema = z.object({ images: z.array(imageSchema), release: z.string().optional() }).loose();
export type CoverImages = z.infer<typeof coverSchema>;

export interface CoverArtOptions {
  baseUrl: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
}

/** The Cover Art Archive: the image list of a release or release group (404: no art). */
export class CoverArtClient {
  private readonly api: JsonApi;

  constructor(options: CoverArtOptions) {
    this.api = new JsonApi({
      service: 'coverart',
      label: 'Cover Art Archive',
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 100,
      timeoutMs: options.timeoutMs ?? 8000,
      retries: 1,
      retryBaseMs: 500,
    });
  }

  releaseGroup(mbid: string, signal?: AbortSignal): Promise<CoverImages> {
    return this.api.get({ path: `/release-group/${encodeURIComponent(mbid)}`, schema: coverSchema, signal });
  }

  release(mbid: string, signal?: AbortSignal): Promise<CoverImages> {
    return this.api.get({ path: `/release/${encodeURIComponent(mbid)}`, schema: coverSchema, signal });
  }
}
