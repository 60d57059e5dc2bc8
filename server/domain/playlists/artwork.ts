import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type Metadata, type OverlayOptions, type Sharp } from 'sharp';
import type { AppContext } from '../../context.js';
import { playlistArtworkRepository, type PlaylistArtworkRow } from '../../db/playlistArtwork.js';
import { SubsonicLibrary } from '../../db/subsonicLibrary.js';
import { CACHE_KEY, ImageCache } from '../../library/imageCache.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { playlistsOf, type PlaylistRef, type PlaylistViewer } from './registry.js';

/**
 * Playlist artwork for every kind of playlist (static, flow, shared): an editor uploads a picture
 * (decoded and re-encoded, so only real images are kept) or has one generated — a mosaic of the
 * playlist's album covers with its name, or a gradient with the name when it has none. A generated
 * picture is redrawn (debounced) when the playlist's tracks or name change; any picture goes when
 * the playlist is deleted. Files are JPEG (every Subsonic player decodes it) under
 * `<data dir>/playlist-artwork/`, named by their content hash; the rows are in `playlist_artwork`.
 */

/** Uploads larger than this are refused (413). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Stored pictures are at most this many pixels on a side. */
export const MAX_SIDE = 1000;
/** Pixel count above which an upload is refused before decoding (a small file can claim a huge canvas). */
const MAX_INPUT_PIXELS = 50_000_000;
const MOSAIC_SIDE = 600;
/** Bump when the drawing changes, so generated pictures are redrawn on the next change. */
const DRAW_VERSION = 1;
const DEFAULT_DEBOUNCE_MS = 3000;
const DECODABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

export interface ArtworkInfo {
  playlistId: string;
  kind: PlaylistRef['kind'];
  source: PlaylistArtworkRow['source'];
  etag: string;
  width: number;
  height: number;
  bytes: number;
  mime: string;
  updatedAt: number;
  /** A URL that changes with the picture, so browsers may cache it for good. */
  url: string;
}

export function artworkUrl(playlistId: string, etag: string): string {
  return `/api/playlists/artwork/${encodeURIComponent(playlistId)}?v=${etag}`;
}

function infoOf(row: PlaylistArtworkRow): ArtworkInfo {
  return {
    playlistId: row.playlist_id,
    kind: row.playlist_kind,
    source: row.source,
    etag: row.etag,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    mime: row.mime,
    updatedAt: row.updated_at,
    url: artworkUrl(row.playlist_id, row.etag),
  };
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** Word-wrapped lines of at most `width` characters, at most `max` lines (the last one shortened with …). */
export function wrapName(name: string, width: number, max: number): string[] {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (let word of words) {
    while ([...word].length > width) {
      if (line) {
        lines.push(line);
        line = '';
      }
      const chars = [...word];
      lines.push(chars.slice(0, width).join(''));
      word = chars.slice(width).join('');
    }
    if (!line) line = word;
    else if ([...line].length + 1 + [...word].length <= width) line += ' ' + word;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  if (lines.length > max) {
    const kept = lines.slice(0, max);
    const last = [...kept[max - 1]!];
    kept[max - 1] = (last.length >= width ? last.slice(0, width - 1).join('') : last.join('')) + '…';
    return kept;
  }
  return lines;
}

function hueOf(text: string, salt: string): number {
  return Math.round((createHash('md5').update(salt + text).digest()[0]! / 256) * 360);
}

/** The name drawn over the mosaic: a dark band at the bottom, white text, left-aligned. */
function nameOverlaySvg(name: string, side: number): string {
  const lines = wrapName(name, 22, 2);
  const size = Math.round(side / 13);
  const lineHeight = Math.round(size * 1.2);
  const band = lines.length * lineHeight + Math.round(size * 1.4);
  const top = side - band;
  const text = lines
    .map((l, i) => `<text x="${Math.round(side * 0.06)}" y="${top + Math.round(size * 1.5) + i * lineHeight}">${xml(l)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
<defs><linearGradient id="shade" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="0.45" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0.8"/></linearGradient></defs>
<rect x="0" y="${top - Math.round(size * 0.8)}" width="${side}" height="${band + Math.round(size * 0.8)}" fill="url(#shade)"/>
<g font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-weight="bold" font-size="${size}" fill="#fff">${text}</g>
</svg>`;
}

/** A playlist without covers: a diagonal gradient in colours derived from the name, the name centred. */
function gradientSvg(name: string, side: number): string {
  const a = hueOf(name, 'a');
  const b = (a + 40 + (hueOf(name, 'b') % 100)) % 360;
  const lines = wrapName(name, 14, 4);
  const size = Math.round(side / 10);
  const lineHeight = Math.round(size * 1.2);
  const first = side / 2 - ((lines.length - 1) * lineHeight) / 2 + size * 0.35;
  const text = lines.map((l, i) => `<text x="${side / 2}" y="${Math.round(first + i * lineHeight)}">${xml(l)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${a},65%,45%)"/><stop offset="1" stop-color="hsl(${b},70%,22%)"/></linearGradient></defs>
<rect width="${side}" height="${side}" fill="url(#bg)"/>
<g font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-weight="bold" font-size="${size}" fill="#fff" text-anchor="middle">${text}</g>
</svg>`;
}

/** Decodes an upload (refusing anything that is not a picture) and re-encodes it as a square JPEG. */
export async function normalizeUpload(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  if (bytes.length === 0) throw new ValidationError('The upload is empty: send an image (JPEG, PNG, WebP, GIF, AVIF or TIFF)', 'INVALID_IMAGE');
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw new ValidationError('The upload is not an image Tonearm can read (JPEG, PNG, WebP, GIF, AVIF or TIFF)', 'INVALID_IMAGE');
  }
  if (!meta.format || !DECODABLE.has(meta.format) || !meta.width || !meta.height)
    throw new ValidationError('The upload is not an image Tonearm can read (JPEG, PNG, WebP, GIF, AVIF or TIFF)', 'INVALID_IMAGE');
  if (meta.width * meta.height > MAX_INPUT_PIXELS)
    throw new ValidationError(`The image is too large: at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels`, 'INVALID_IMAGE');
  const side = Math.min(MAX_SIDE, meta.width, meta.height);
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize(side, side, { fit: 'cover', position: 'attention' })
      .flatten({ background: '#000000' })
      .jpeg({ quality: 86, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch {
    throw new ValidationError('The image could not be decoded: the file is damaged or incomplete', 'INVALID_IMAGE');
  }
}

/** The mosaic (or gradient) for a name and a list of cover files. */
export async function drawArtwork(name: string, coverFiles: string[]): Promise<Buffer> {
  const side = MOSAIC_SIDE;
  const tiles: Buffer[] = [];
  const grid = coverFiles.length >= 9 ? 3 : coverFiles.length >= 4 ? 2 : 1;
  const tile = Math.floor(side / grid);
  for (const file of coverFiles) {
    if (tiles.length === grid * grid) break;
    try {
      tiles.push(await sharp(file, { limitInputPixels: MAX_INPUT_PIXELS }).resize(tile, tile, { fit: 'cover' }).flatten({ background: '#000' }).png().toBuffer());
    } catch {
      // an unreadable cover is left out
    }
  }
  // Covers that failed to decode can leave too few for the grid: use the largest grid they fill.
  const n = tiles.length >= 9 ? 3 : tiles.length >= 4 ? 2 : tiles.length >= 1 ? 1 : 0;
  let base: Sharp;
  if (n === 0) {
    base = sharp(Buffer.from(gradientSvg(name, side)));
  } else {
    const t = Math.floor(side / n);
    const layers: OverlayOptions[] = [];
    for (let i = 0; i < n * n; i++) {
      const input = n === grid ? tiles[i]! : await sharp(tiles[i]!).resize(t, t, { fit: 'cover' }).png().toBuffer();
      layers.push({ input, left: (i % n) * t, top: Math.floor(i / n) * t });
    }
    layers.push({ input: Buffer.from(nameOverlaySvg(name, side)), left: 0, top: 0 });
    base = sharp({ create: { width: side, height: side, channels: 3, background: '#111111' } }).composite(layers);
  }
  return base.flatten({ background: '#000000' }).jpeg({ quality: 86, mozjpeg: true }).toBuffer();
}

/** Parses an If-None-Match header against our strong validator. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const v = part.trim().replace(/^W\//, '');
    return v === '*' || v === `"${etag}"` || v === etag;
  });
}

export class PlaylistArtwork {
  readonly dir: string;
  private readonly repo;
  private readonly library;
  private readonly images;
  private readonly pending = new Map<string, { ref: PlaylistRef; timer: NodeJS.Timeout }>();
  private readonly running = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;
  debounceMs: number;

  constructor(
    private readonly ctx: AppContext,
    options: { debounceMs?: number } = {},
  ) {
    this.dir = path.join(ctx.config.dataDir, 'playlist-artwork');
    this.repo = playlistArtworkRepository(ctx.db);
    this.library = new SubsonicLibrary(ctx.db);
    this.images = new ImageCache(path.join(ctx.config.dataDir, 'images'));
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  }

  private get registry() {
    return playlistsOf(this.ctx);
  }

  /**
   * Startup housekeeping: rows of static playlists deleted without an event (with their owner's
   * account), and files no row names (a crash between writing a file and its row, temp files).
   */
  sweep(): void {
    for (const file of this.repo.dropOrphanedStatic()) this.unlinkIfUnused(file);
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    const used = this.repo.files();
    for (const name of names) if (!used.has(name)) fs.rmSync(path.join(this.dir, name), { force: true });
  }

  /** Listens to playlist changes: deleted playlists lose their picture; generated ones are redrawn. */
  start(): void {
    if (this.unsubscribe) return;
    try {
      this.sweep();
    } catch (err) {
      this.ctx.log.warn('playlist artwork sweep failed', { err: String(err) });
    }
    this.unsubscribe = this.registry.onChange((change) => {
      const key = `${change.ref.kind}:${change.ref.id}`;
      if (change.type === 'deleted') {
        const p = this.pending.get(key);
        if (p) clearTimeout(p.timer);
        this.pending.delete(key);
        this.drop(change.ref);
        return;
      }
      const row = this.repo.get(change.ref.kind, change.ref.id);
      if (row?.source !== 'generated') return;
      const earlier = this.pending.get(key);
      if (earlier) clearTimeout(earlier.timer);
      const timer = setTimeout(() => this.runPending(key), this.debounceMs);
      timer.unref();
      this.pending.set(key, { ref: change.ref, timer });
    });
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    await Promise.allSettled([...this.running]);
  }

  /** Runs every waiting redraw now and waits for all of them (tests, shutdown). */
  async settle(): Promise<void> {
    for (const [key, p] of [...this.pending]) {
      clearTimeout(p.timer);
      this.runPending(key);
    }
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Redraws waiting for their debounce. */
  get waiting(): number {
    return this.pending.size;
  }

  private runPending(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    const job = this.regenerate(p.ref.id)
      .catch((err) => this.ctx.log.warn('playlist artwork redraw failed', { playlist: p.ref.id, err: String(err) }))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  /** Redraws a generated picture if what it shows changed (the playlist may be gone or uploaded since). */
  private async regenerate(id: string): Promise<void> {
    const ref = this.registry.find(id);
    if (!ref) return;
    const row = this.repo.get(ref.kind, ref.id);
    if (row?.source !== 'generated') return;
    await this.draw(ref, row);
  }

  /** A playlist the viewer may see, else 404 (whether it exists or not). */
  visible(id: string, viewer: PlaylistViewer): PlaylistRef {
    const ref = this.registry.findFor(id, viewer);
    if (!ref) throw new NotFoundError('Playlist not found');
    return ref;
  }

  /** A playlist the viewer may change: 404 when they cannot see it, 403 when they can only read it. */
  editable(id: string, viewer: PlaylistViewer): PlaylistRef {
    const ref = this.visible(id, viewer);
    if (!this.registry.canEdit(ref, viewer)) throw new ForbiddenError("Only the playlist's owner can change its artwork");
    return ref;
  }

  /** The stored picture of a playlist, if any (no permission check). */
  of(ref: PlaylistRef): { info: ArtworkInfo; file: string } | undefined {
    const row = this.repo.get(ref.kind, ref.id);
    if (!row) return undefined;
    const file = path.join(this.dir, row.file);
    if (!fs.existsSync(file)) return undefined;
    return { info: infoOf(row), file };
  }

  info(ref: PlaylistRef): ArtworkInfo | null {
    const row = this.repo.get(ref.kind, ref.id);
    return row ? infoOf(row) : null;
  }

  /** The picture for a viewer, or 404 "Artwork not found". */
  read(id: string, viewer: PlaylistViewer): { info: ArtworkInfo; file: string } {
    const found = this.of(this.visible(id, viewer));
    if (!found) throw new NotFoundError('Artwork not found', 'This playlist has no artwork; upload one or generate it');
    return found;
  }

  async upload(id: string, viewer: PlaylistViewer, bytes: Buffer): Promise<ArtworkInfo> {
    const ref = this.editable(id, viewer);
    const image = await normalizeUpload(bytes);
    // The playlist may have been deleted while the image was decoded.
    const still = this.registry.find(ref.id);
    if (!still) throw new NotFoundError('Playlist not found');
    return this.store(ref, image.data, image.width, image.height, 'uploaded', null);
  }

  async generate(id: string, viewer: PlaylistViewer): Promise<ArtworkInfo> {
    const ref = this.editable(id, viewer);
    return this.draw(ref, undefined, true);
  }

  /** Removes the picture; false when there was none. */
  remove(id: string, viewer: PlaylistViewer): boolean {
    const ref = this.editable(id, viewer);
    return this.drop(ref);
  }

  /** Cover files of the playlist's distinct albums, in playlist order (at most 9). */
  coverFiles(ref: PlaylistRef): string[] {
    const keys: string[] = [];
    const ids = this.registry.trackIds(ref);
    for (let i = 0; i < ids.length && keys.length < 9; i += 200) {
      for (const song of this.library.songs(ids.slice(i, i + 200))) {
        const key = song.album_image ?? song.file_image;
        if (key && CACHE_KEY.test(key) && !keys.includes(key) && fs.existsSync(this.images.fileOf(key))) keys.push(key);
        if (keys.length === 9) break;
      }
    }
    return keys.map((k) => this.images.fileOf(k));
  }

  private async draw(ref: PlaylistRef, row = this.repo.get(ref.kind, ref.id), force = false): Promise<ArtworkInfo> {
    const covers = this.coverFiles(ref);
    const signature = createHash('sha256')
      .update(JSON.stringify({ v: DRAW_VERSION, name: ref.name, covers: covers.map((c) => path.basename(c)) }))
      .digest('hex')
      .slice(0, 32);
    if (!force && row && row.source === 'generated' && row.signature === signature && fs.existsSync(path.join(this.dir, row.file))) return infoOf(row);
    const data = await drawArtwork(ref.name, covers);
    if (!this.registry.find(ref.id)) throw new NotFoundError('Playlist not found');
    // An upload that landed while this one was drawn wins over a background redraw.
    const now = this.repo.get(ref.kind, ref.id);
    if (!force && now?.source === 'uploaded') return infoOf(now);
    return this.store(ref, data, MOSAIC_SIDE, MOSAIC_SIDE, 'generated', signature);
  }

  private async store(ref: PlaylistRef, data: Buffer, width: number, height: number, source: 'uploaded' | 'generated', signature: string | null): Promise<ArtworkInfo> {
    const etag = createHash('sha256').update(data).digest('hex').slice(0, 32);
    const name = `${etag}.jpg`;
    const file = path.join(this.dir, name);
    if (!fs.existsSync(file)) {
      await fs.promises.mkdir(this.dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, file);
    }
    const previous = this.repo.get(ref.kind, ref.id);
    const row: PlaylistArtworkRow = {
      playlist_kind: ref.kind,
      playlist_id: ref.id,
      source,
      file: name,
      mime: 'image/jpeg',
      width,
      height,
      bytes: data.length,
      etag,
      signature,
      // Last-Modified has one-second resolution: keep it moving forward when the picture changes.
      updated_at: Math.max(this.ctx.clock.now(), previous && previous.etag !== etag ? previous.updated_at + 1000 : 0),
    };
    this.repo.put(row);
    if (previous && previous.file !== name) this.unlinkIfUnused(previous.file);
    return infoOf(row);
  }

  private drop(ref: Pick<PlaylistRef, 'kind' | 'id'>): boolean {
    const row = this.repo.get(ref.kind, ref.id);
    if (!row) return false;
    this.repo.remove(ref.kind, ref.id);
    this.unlinkIfUnused(row.file);
    return true;
  }

  private unlinkIfUnused(name: string): void {
    if (this.repo.fileInUse(name)) return;
    fs.rmSync(path.join(this.dir, name), { force: true });
  }
}

const services = new WeakMap<AppContext, PlaylistArtwork>();

/** The playlist artwork service of a running server. */
export function artworkOf(ctx: AppContext): PlaylistArtwork {
  let s = services.get(ctx);
  if (!s) {
    s = new PlaylistArtwork(ctx);
    services.set(ctx, s);
  }
  return s;
}

/** Service start (areas.ts): follow playlist changes from the first request on. */
export function startPlaylistArtwork(ctx: AppContext): void {
  const s = artworkOf(ctx);
  s.start();
  ctx.onClose(() => s.close());
}

/** Fits a stored picture inside size×size for a smaller request (`?size=`); the original at 0. */
export async function sizedArtwork(file: string, size: number): Promise<Buffer> {
  const bytes = await fs.promises.readFile(file);
  if (size <= 0) return bytes;
  return sharp(bytes).resize(size, size, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 86 }).toBuffer();
}
