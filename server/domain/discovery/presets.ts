import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { nameKey } from '../../db/libraryText.js';
import { IntegrationError } from '../../integrations/errors.js';
import { DeezerClient } from '../../integrations/deezer/client.js';
import { NotFoundError } from '../errors.js';
import { failureText } from './failure.js';
import { DISCOVER_PRESETS, type DiscoveryService } from './service.js';
import type { Kernel } from '../../kernel.js';
import type { RemoteImages } from '../metadata/remoteImages.js';
import type { MetadataService } from '../metadata/service.js';
import type { DiscoveryProviders } from './providers.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'log'>
  & {
    discovery: DiscoveryService;
    discoveryProviders: DiscoveryProviders;
    metadata: MetadataService;
    remoteImages: RemoteImages;
  };

/** Editorial presets: generated cover artwork (sharp, cached on disk) and Deezer previews. */

/** Bump when the drawing changes, so cached files of the old drawing are not served. */
const ARTWORK_VERSION = 1;
const PREVIEW_ARTISTS = 8;
const PREVIEW_FRESH_MS = 7 * 24 * 3600_000;

export function presetOf(presetId: string) {
  const preset = DISCOVER_PRESETS.find((p) => p.id === presetId);
  if (!preset) throw new NotFoundError('Preset not found');
  return preset;
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** Two hues from the preset id: the same preset always gets the same colours. */
function palette(id: string): [string, string] {
  const h = createHash('sha256').update(id).digest();
  const hue = (h[0]! * 360) / 256;
  const second = (hue + 40 + (h[1]! % 80)) % 360;
  return [`hsl(${hue.toFixed(0)}, 70%, 45%)`, `hsl(${second.toFixed(0)}, 75%, 25%)`];
}

function artworkSvg(name: string, id: string, size: number): string {
  const [from, to] = palette(id);
  const words = name.split(/\s+/);
  const lines: string[] = [];
  for (const w of words) {
    const last = lines.at(-1);
    if (last !== undefined && (last + ' ' + w).length <= 12) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  const fontSize = Math.round(size / 8.5);
  const text = lines
    .map((l, i) => `<text x="${Math.round(size * 0.08)}" y="${Math.round(size * 0.72 + (i - lines.length + 1) * fontSize * 1.1)}" font-family="sans-serif" font-weight="700" font-size="${fontSize}" fill="#fff">${escapeXml(l)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
<rect width="${size}" height="${size}" fill="url(#g)"/>
<circle cx="${size * 0.78}" cy="${size * 0.24}" r="${size * 0.16}" fill="#fff" fill-opacity="0.12"/>
<circle cx="${size * 0.78}" cy="${size * 0.24}" r="${size * 0.05}" fill="#fff" fill-opacity="0.25"/>
${text}
<rect x="${Math.round(size * 0.08)}" y="${Math.round(size * 0.8)}" width="${Math.round(size * 0.18)}" height="${Math.max(2, Math.round(size / 90))}" fill="#fff" fill-opacity="0.8"/>
</svg>`;
}

const inFlight = new Map<string, Promise<string>>();

/** The preset's cover as a PNG file, drawn once per size and kept under the data folder. */
export async function presetArtwork(ctx: Deps, presetId: string, size: number): Promise<{ file: string; etag: string }> {
  const preset = presetOf(presetId);
  const dir = path.join(ctx.config.dataDir, 'discover-artwork');
  const file = path.join(dir, `${preset.id}-${size}-v${ARTWORK_VERSION}.png`);
  const etag = `"${preset.id}-${size}-v${ARTWORK_VERSION}"`;
  if (fs.existsSync(file)) return { file, etag };
  let pending = inFlight.get(file);
  if (!pending) {
    pending = (async () => {
      const png = await sharp(Buffer.from(artworkSvg(preset.name, preset.id, size))).png().toBuffer();
      await fs.promises.mkdir(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await fs.promises.writeFile(tmp, png);
      await fs.promises.rename(tmp, file);
      return file;
    })().finally(() => inFlight.delete(file));
    inFlight.set(file, pending);
  }
  await pending;
  return { file, etag };
}

export interface PresetPreview {
  artistName: string;
  trackTitle: string;
  previewUrl: string;
  deezerTrackId: number;
  albumTitle: string | null;
  cover: string | null;
}

type CachedPreview = Omit<PresetPreview, 'artistName'> | null;

/**
 * Previews for a preset: its artists (the tag rankings of its tags, the caller's recommendations, or
 * the chart for trending), each matched on Deezer and its most played track with a preview. At most
 * eight artists, each answer cached for a week, so a preset costs at most 16 Deezer calls.
 */
export async function presetPreviews(ctx: Deps, userId: number, presetId: string): Promise<{ presetId: string; name: string; previews: PresetPreview[]; problem?: string }> {
  const preset = presetOf(presetId);
  const service = ctx.discovery;
  let artists: string[] = [];
  if (preset.tags.length) {
    for (const tag of preset.tags) {
      let rows = service.repo.ranking(`tag:${tag}`, PREVIEW_ARTISTS);
      if (!rows.length && !ctx.discoveryProviders.lastfmUnavailable()) rows = (await service.tagArtists(tag, null).catch(() => [])).slice(0, PREVIEW_ARTISTS);
      artists.push(...rows.map((r) => r.name));
    }
  } else if (preset.id === 'trending-now') artists = service.repo.ranking('global', PREVIEW_ARTISTS).map((r) => r.name);
  else {
    const recs = service.repo.allRecommendations(userId);
    artists = (preset.id === 'deep-cuts' ? [...recs].reverse() : recs).map((r) => r.name);
  }
  artists = [...new Map(artists.map((a) => [nameKey(a), a])).values()].slice(0, PREVIEW_ARTISTS);

  const spacing = ctx.config.upstreams.spacingMs;
  const deezer = new DeezerClient({ baseUrl: ctx.config.upstreams.deezer, userAgent: ctx.metadata.userAgent(), ...(spacing !== null && { spacingMs: spacing }) });
  const previews: PresetPreview[] = [];
  let failure: unknown = null;
  let answered = 0;
  for (const name of artists) {
    const key = nameKey(name);
    let hit = service.repo.cached<{ v: CachedPreview }>('deezer-preview', key, ctx.clock.now() - PREVIEW_FRESH_MS);
    if (!hit) {
      try {
        const found = (await deezer.searchArtists(name, 5)).data.find((a) => nameKey(a.name) === key);
        let v: CachedPreview = null;
        if (found) {
          const track = (await deezer.topTracks(found.id, 5)).data.find((t) => t.preview);
          if (track?.preview) v = { trackTitle: track.title, previewUrl: track.preview, deezerTrackId: track.id, albumTitle: track.album?.title ?? null, cover: ctx.remoteImages.proxyUrl(track.album?.cover_medium ?? null) };
        }
        hit = { v };
        service.repo.putCache('deezer-preview', key, hit, ctx.clock.now());
      } catch (err) {
        if (err instanceof IntegrationError) {
          ctx.log.warn('discover preview failed', { artist: name, error: err.message });
          failure ??= err;
          continue;
        }
        throw err;
      }
    }
    answered++;
    if (hit.v) previews.push({ artistName: name, ...hit.v });
  }
  // Why the list is empty, in words: the preview source could not be reached, or the preset has no artists yet.
  const problem =
    previews.length > 0
      ? undefined
      : failure !== null && answered === 0
        ? `${failureText(failure, 'Deezer')}: try again later.`
        : artists.length === 0
          ? preset.tags.length
            ? 'No artists known for these tags yet: they come from Last.fm once discovery has updated.'
            : 'No artists for this playlist yet: they come from your recommendations once discovery has updated.'
          : undefined;
  return { presetId: preset.id, name: preset.name, previews, ...(problem !== undefined && { problem }) };
}
