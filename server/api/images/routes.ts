import fs from 'node:fs';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { CACHE_KEY } from '../../library/imageCache.js';
import { resizedImage } from '../../library/resizedArtwork.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const sizeSchema = z.coerce.number().int().min(16).max(2048).optional();

/** api.md §4.16: the native artwork cache. */
export function imageRoutes(ctx: AppContext): RouteDefinition[] {
  const library = ctx.library;
  const remote = ctx.remoteImages;
  /** Library artwork by content key, or a remote picture the server registered under this key. */
  async function find(key: string) {
    if (!CACHE_KEY.test(key)) return null;
    const local = library.image(key);
    return local ? { ...local, contentKey: key } : remote.resolve(key);
  }

  async function serve(res: import('express').Response, req: import('express').Request, key: string, size?: number) {
    const image = await find(key);
    if (!image) throw new NotFoundError('Image not found');
    let file = image.file;
    let mime: string = image.mime;
    let variant = '';
    if (size !== undefined) {
      ({ file, mime } = await resizedImage(library.images, image.contentKey, size));
      variant = `-${size}.${mime === 'image/png' ? 'png' : 'jpg'}`;
    }
    const etag = `"${key}${variant}"`;
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('ETag', etag);
    res.setHeader('Content-Type', mime);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return undefined;
    }
    const bytes = await fs.promises.readFile(file);
    res.setHeader('Content-Length', String(bytes.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : bytes);
    return undefined;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/api/image-proxy/:cacheKey',
      summary: 'A cached library image; optional size returns a resized copy',
      tag: 'images',
      access: 'public',
      openBeforeOnboarding: true,
      params: z.object({ cacheKey: z.string().max(64) }),
      query: z.object({ size: sizeSchema }),
      response: 'binary',
      handler: ({ req, res, params, query }) => serve(res, req, params.cacheKey, query.size),
    }),
    defineRoute({
      method: 'get',
      path: '/api/image-proxy',
      summary: "Resolve a legacy proxied image URL; only the cache's own URLs are served",
      tag: 'images',
      access: 'public',
      openBeforeOnboarding: true,
      query: z.object({ url: z.string().min(1).max(2048), size: sizeSchema }),
      response: 'binary',
      handler: ({ req, res, query }) => {
        let pathname: string;
        try {
          pathname = new URL(query.url, 'http://local.invalid').pathname;
        } catch {
          throw new ValidationError('Unsupported image URL');
        }
        const m = /^\/api\/image-proxy\/([a-f0-9]{32})$/.exec(pathname);
        const own = m && (query.url.startsWith('/') || new URL(query.url).host === req.headers.host);
        if (!m || !own) throw new ValidationError('Unsupported image URL', 'UNSUPPORTED_IMAGE_URL');
        return serve(res, req, m[1]!, query.size);
      },
    }),
  ];
}
