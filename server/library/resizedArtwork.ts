import fs from 'node:fs';
import sharp from 'sharp';
import type { ImageCache } from './imageCache.js';

export interface ResizedImage {
  file: string;
  mime: 'image/jpeg' | 'image/png';
}

// JPEG, or PNG when the picture has transparency: many players cannot decode WebP.
const OUTPUTS = [
  { ext: 'jpg', mime: 'image/jpeg' },
  { ext: 'png', mime: 'image/png' },
] as const;

const resizing = new Map<string, Promise<ResizedImage>>();

/**
 * A copy of a cached picture fitted inside size×size (never enlarged), stored beside the cache
 * under a name that carries the output format, so a copy written in another format by an older
 * build is never served with the wrong type. One resize per picture and size at a time.
 */
export async function resizedImage(cache: ImageCache, key: string, size: number): Promise<ResizedImage> {
  for (const out of OUTPUTS) {
    const file = cache.resizedFileOf(key, size, out.ext);
    if (fs.existsSync(file)) return { file, mime: out.mime };
  }
  const jobKey = cache.resizedFileOf(key, size, 'jpg');
  let job = resizing.get(jobKey);
  if (!job) {
    job = resize(cache, key, size).finally(() => resizing.delete(jobKey));
    resizing.set(jobKey, job);
  }
  return job;
}

async function resize(cache: ImageCache, key: string, size: number): Promise<ResizedImage> {
  const original = cache.fileOf(key);
  const { hasAlpha } = await sharp(original).metadata();
  const transparent = hasAlpha === true && !(await sharp(original).stats()).isOpaque;
  const out = transparent ? OUTPUTS[1] : OUTPUTS[0];
  const file = cache.resizedFileOf(key, size, out.ext);
  const fitted = sharp(original).resize(size, size, { fit: 'inside', withoutEnlargement: true });
  const encoded = transparent ? fitted.png() : fitted.flatten({ background: '#ffffff' }).jpeg({ quality: 85 });
  fs.mkdirSync(cache.resizedDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await encoded.toFile(tmp);
  fs.renameSync(tmp, file);
  // The WebP copy earlier builds wrote for this size is no longer used.
  fs.rmSync(cache.resizedFileOf(key, size, 'webp'), { force: true });
  return { file, mime: out.mime };
}
