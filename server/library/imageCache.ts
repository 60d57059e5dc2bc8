import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const CACHE_KEY = /^[a-f0-9]{32}$/;

/** Artwork cache on disk, keyed by content hash, so each picture is stored once however often it appears. */
export class ImageCache {
  constructor(readonly dir: string) {}

  keyOf(bytes: Uint8Array): string {
    return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  }

  fileOf(key: string): string {
    return path.join(this.dir, key.slice(0, 2), key);
  }

  get resizedDir(): string {
    return path.join(this.dir, 'resized');
  }

  /** A resized copy; the extension names its format (see resizedArtwork.ts). */
  resizedFileOf(key: string, size: number, ext: 'jpg' | 'png' | 'webp'): string {
    return path.join(this.resizedDir, `${key}-${size}.${ext}`);
  }

  /** Stores the bytes unless already present; returns the cache key. */
  store(bytes: Uint8Array): string {
    const key = this.keyOf(bytes);
    const file = this.fileOf(key);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      fs.writeFileSync(tmp, bytes);
      fs.renameSync(tmp, file);
    }
    return key;
  }
}

export function imageMimeOf(bytes: Uint8Array, fallback = 'application/octet-stream'): string {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return 'image/gif';
  if (bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return fallback;
}
