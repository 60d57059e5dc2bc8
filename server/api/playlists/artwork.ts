import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../domain/auth/principal.js';
import { UnauthorizedError, ValidationError } from '../../domain/errors.js';
import { MAX_UPLOAD_BYTES, etagMatches, type ArtworkInfo } from '../../domain/playlists/artwork.js';
import { sizedArtwork } from '../../domain/playlists/artworkImages.js';
import type { PlaylistViewer } from '../../domain/playlists/registry.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import type { Same } from '../../http/same.js';

/** api.md 4.10: playlist artwork (get, upload, delete, generate) for playlists of every kind. */

const tag = 'playlists';
const params = z.object({ playlistId: z.string().min(1).max(200) });
/** A playlist's picture: what ctx.playlistArtwork.info answers. */
export const artworkInfo = z.object({
  playlistId: z.string(),
  kind: z.enum(['static', 'flow', 'shared']),
  source: z.enum(['uploaded', 'generated']),
  etag: z.string(),
  width: z.number(),
  height: z.number(),
  bytes: z.number(),
  mime: z.string(),
  updatedAt: z.number(),
  url: z.string(),
});

/** Fails to compile when the schema and the domain's ArtworkInfo disagree on a field. */
export const artworkMatchesDomain = true satisfies Same<z.infer<typeof artworkInfo>, ArtworkInfo>;

export const viewerOf = (p: Principal | null): PlaylistViewer => {
  if (!p) throw new UnauthorizedError('Authentication required', 'AUTH_REQUIRED');
  return { id: p.userId, role: p.role };
};

class PayloadTooLarge extends Error {}

/** Reads the raw body up to the cap; past it, the rest is read and dropped so the 413 reaches the client. */
async function readBody(req: Request, cap: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let total = 0;
  let over = Number.isFinite(declared) && declared > cap;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > cap) over = true;
    if (!over) chunks.push(chunk);
    // A client that keeps sending far past the cap is cut off.
    if (total > cap * 8) {
      req.destroy();
      break;
    }
  }
  if (over) throw new PayloadTooLarge();
  return Buffer.concat(chunks);
}

/** The first file part of a multipart/form-data body (a browser form's `<input type=file>`). */
export function multipartFile(body: Buffer, contentType: string): Buffer {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw new ValidationError('multipart/form-data without a boundary', 'INVALID_IMAGE');
  const delimiter = Buffer.from(`--${boundary.trim()}`);
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const headersStart = at + delimiter.length + 2; // CRLF after the delimiter
    if (body.subarray(at + delimiter.length, at + delimiter.length + 2).toString() === '--') break;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    if (headersEnd === -1) break;
    const headers = body.subarray(headersStart, headersEnd).toString('latin1');
    const next = body.indexOf(delimiter, headersEnd + 4);
    if (next === -1) break;
    const content = body.subarray(headersEnd + 4, next - 2); // CRLF before the next delimiter
    if (/filename=|content-type:\s*image\//i.test(headers)) return content;
    at = next;
  }
  throw new ValidationError('The form has no file: send the image as a file field', 'INVALID_IMAGE');
}

/** The uploaded bytes: a raw image body, a multipart form's file, or JSON `{image: "data:image/...;base64,..."}`. */
async function uploadedBytes(req: Request): Promise<Buffer> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const image = (req.body as { image?: unknown } | undefined)?.image;
    const m = typeof image === 'string' ? /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(image) : null;
    if (!m) throw new ValidationError('image: expected a data URL (data:image/...;base64,...)', 'INVALID_IMAGE');
    const bytes = Buffer.from(m[1]!, 'base64');
    if (bytes.length > MAX_UPLOAD_BYTES) throw new PayloadTooLarge();
    return bytes;
  }
  const raw = await readBody(req, MAX_UPLOAD_BYTES + 64 * 1024);
  const bytes = type.startsWith('multipart/form-data') ? multipartFile(raw, String(req.headers['content-type'])) : raw;
  if (bytes.length > MAX_UPLOAD_BYTES) throw new PayloadTooLarge();
  return bytes;
}

function tooLarge(res: Response): undefined {
  res.status(413).json({
    error: 'Payload too large',
    code: 'PAYLOAD_TOO_LARGE',
    message: `The image is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB; choose a smaller picture`,
  });
  return undefined;
}

export function playlistArtworkRoutes(ctx: AppContext): RouteDefinition[] {
  const artwork = ctx.playlistArtwork;
  return [
    defineRoute({
      method: 'get',
      path: '/api/playlists/artwork/:playlistId',
      summary: "A playlist's artwork (JPEG; ETag/Last-Modified, 304 when unchanged; `size` fits it inside size×size)",
      tag,
      access: 'media',
      params,
      query: z.object({ size: z.coerce.number().int().min(0).max(2000).default(0), v: z.string().max(64).optional() }),
      response: 'binary',
      handler: async ({ req, res, params, query, principal }) => {
        const { info, file } = artwork.read(params.playlistId, viewerOf(principal));
        const etag = query.size > 0 && query.size < info.width ? `${info.etag}-${query.size}` : info.etag;
        const lastModified = new Date(Math.floor(info.updatedAt / 1000) * 1000);
        res.setHeader('ETag', `"${etag}"`);
        res.setHeader('Last-Modified', lastModified.toUTCString());
        // A URL with the picture's version never changes; the bare URL is revalidated each time.
        res.setHeader('Cache-Control', query.v === info.etag ? 'private, max-age=31536000, immutable' : 'private, no-cache');
        res.setHeader('Vary', 'Authorization');
        const inm = req.headers['if-none-match'];
        const ims = req.headers['if-modified-since'];
        const fresh = inm !== undefined ? etagMatches(inm, etag) : ims !== undefined && Date.parse(ims) >= lastModified.getTime();
        if (fresh) return void res.status(304).end();
        const bytes = await sizedArtwork(file, etag === info.etag ? 0 : query.size);
        res.setHeader('Content-Type', info.mime);
        res.setHeader('Content-Length', String(bytes.length));
        res.status(200).end(req.method === 'HEAD' ? undefined : bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/playlists/artwork/:playlistId',
      summary: `Upload artwork: the image as the raw body (image/*), a multipart form file, or JSON {image: data URL}; at most ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB, stored as a square JPEG of at most 1000 px`,
      tag,
      access: 'user',
      params,
      response: artworkInfo,
      handler: async ({ req, res, params, principal }) => {
        const viewer = viewerOf(principal);
        // Permission first: a caller who may not change the playlist learns nothing from the body.
        artwork.editable(params.playlistId, viewer);
        let bytes: Buffer;
        try {
          bytes = await uploadedBytes(req);
        } catch (err) {
          if (err instanceof PayloadTooLarge) return tooLarge(res);
          throw err;
        }
        return artwork.upload(params.playlistId, viewer, bytes);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/playlists/artwork/:playlistId',
      summary: "Remove a playlist's artwork (uploaded or generated)",
      tag,
      access: 'user',
      params,
      response: z.object({ success: z.boolean(), removed: z.boolean() }),
      handler: ({ params, principal }) => ({ success: true, removed: artwork.remove(params.playlistId, viewerOf(principal)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/playlists/artwork/:playlistId/generate',
      summary: "Generate artwork: a mosaic of the playlist's album covers with its name (a gradient with the name when it has none); redrawn when the tracks change",
      tag,
      access: 'user',
      params,
      response: artworkInfo,
      handler: ({ params, principal }) => artwork.generate(params.playlistId, viewerOf(principal)),
    }),
  ];
}
