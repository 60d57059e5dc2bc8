import { createHash } from 'node:crypto';
import { recordImage } from '../../db/libraryImages.js';
import { remoteImagesRepository } from '../../db/remoteImages.js';
import { IntegrationError } from '../../integrations/errors.js';
import { guardedRequest } from '../../integrations/guardedFetch.js';
import { imageMimeOf } from '../../library/imageCache.js';
import { allowedPrivateTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import type { Kernel } from '../../kernel.js';
import type { LibraryService } from '../library/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'appVersion' | 'clock' | 'config' | 'db'>
  & {
    library: LibraryService;
  }
  & NetworkPrivateTargetsDeps;

const MAX_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 15_000;
/** A picture that could not be fetched is tried again after this long. */
const RETRY_FAILED_MS = 3600_000;

/**
 * Remote pictures (covers, artist photos) behind `/api/image-proxy/:cacheKey`: the server hands out
 * a key only for URLs it produced itself (no open proxy), fetches each picture once into the native
 * cache and serves it, resized copies included, like library artwork.
 */
export class RemoteImages {
  private readonly repo;
  private readonly inFlight = new Map<string, Promise<{ file: string; mime: string; contentKey: string }>>();

  constructor(private readonly ctx: Deps) {
    this.repo = remoteImagesRepository(ctx.db);
  }

  /** The proxy URL of a remote picture (registered on first use); `retry` forgets an earlier failed fetch. */
  proxyUrl(url: string | null, options: { retry?: boolean } = {}): string | null {
    if (!url || !/^https?:\/\//i.test(url)) return null;
    const key = createHash('sha256').update(`remote:${url}`).digest('hex').slice(0, 32);
    this.repo.register(key, url, this.ctx.clock.now());
    if (options.retry) this.repo.retry(key);
    return `/api/image-proxy/${key}`;
  }

  /** The cached file of a registered key, fetching it the first time; null for keys never handed out. */
  async resolve(key: string): Promise<{ file: string; mime: string; contentKey: string } | null> {
    const row = this.repo.get(key);
    if (!row) return null;
    const library = this.ctx.library;
    if (row.image_key) {
      const image = library.image(row.image_key);
      if (image) return { ...image, contentKey: row.image_key };
    }
    if (row.failed_at !== null && this.ctx.clock.now() - row.failed_at < RETRY_FAILED_MS)
      throw new IntegrationError('images', 'unreachable', `The picture could not be fetched: ${row.failure}`);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.download(key, row.url).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async download(key: string, url: string) {
    const library = this.ctx.library;
    try {
      // Pictures of the configured metadata services may sit on the LAN (a local mirror); any other
      // host must be public unless the allow-list names it.
      const upstreamHosts = [this.ctx.config.upstreams.musicbrainz, this.ctx.config.upstreams.coverart, this.ctx.config.upstreams.deezer, this.ctx.config.upstreams.lastfm].map((u) => new URL(u).host);
      const res = await guardedRequest({
        url,
        headers: { 'User-Agent': `Tonearm/${this.ctx.appVersion}`, Accept: 'image/*' },
        allowPrivateTargets: upstreamHosts.includes(new URL(url).host) ? 'lan' : allowedPrivateTargets(this.ctx),
        // Archives answer with a redirect to the storage host.
        redirects: 'any',
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_BYTES,
      });
      if (res.status < 200 || res.status >= 300) {
        res.abort();
        throw new Error(`HTTP ${res.status}`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk);
      const bytes = new Uint8Array(Buffer.concat(chunks));
      const mime = imageMimeOf(bytes, '');
      if (!mime) throw new Error('not a picture');
      const contentKey = library.images.store(bytes);
      recordImage(this.ctx.db, { cache_key: contentKey, mime, bytes: bytes.length, origin: url.slice(0, 500) }, this.ctx.clock.now());
      this.repo.fetched(key, contentKey);
      return { file: library.images.fileOf(contentKey), mime, contentKey };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.repo.failed(key, reason, this.ctx.clock.now());
      throw new IntegrationError('images', 'unreachable', `The picture could not be fetched: ${reason}`);
    }
  }
}

