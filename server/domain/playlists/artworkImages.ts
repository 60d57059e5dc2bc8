import { createHash } from 'node:crypto';
import fs from 'node:fs';
import sharp, { type Metadata, type OverlayOptions, type Sharp } from 'sharp';
import { ValidationError } from '../errors.js';

/**
 * The pictures of playlist artwork: uploads decoded and re-encoded as square JPEGs, the generated
 * mosaic of album covers with the playlist's name (or a gradient with the name when there are no
 * covers), and smaller copies for `?size=`. Storage, permissions and redraws are in artwork.ts.
 */

/** Stored pictures are at most this many pixels on a side. */
export const MAX_SIDE = 1000;
/** Pixel count above which an upload is refused before decoding (a small file can claim a huge canvas). */
const MAX_INPUT_PIXELS = 50_000_000;
/** Side of a generated picture. */
export const MOSAIC_SIDE = 600;
const DECODABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);

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

/** Fits a stored picture inside size×size for a smaller request (`?size=`); the original at 0. */
export async function sizedArtwork(file: string, size: number): Promise<Buffer> {
  const bytes = await fs.promises.readFile(file);
  if (size <= 0) return bytes;
  return sharp(bytes).resize(size, size, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 86 }).toBuffer();
}
