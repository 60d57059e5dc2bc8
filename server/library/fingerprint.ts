import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

const BLOCK = 16 * 1024;

/**
 * Content fingerprint that survives a move: size plus three sampled blocks (start, middle, end).
 * Cheap enough for every new or changed file; a tag rewrite changes it, a rename does not.
 */
export async function contentFingerprint(file: string, size: number): Promise<string> {
  const hash = createHash('sha1');
  hash.update(String(size));
  const handle = await fs.open(file, 'r');
  try {
    const offsets = size <= BLOCK * 3 ? [0] : [0, Math.floor(size / 2) - BLOCK / 2, size - BLOCK];
    const buffer = Buffer.alloc(size <= BLOCK * 3 ? size : BLOCK);
    for (const offset of offsets) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex').slice(0, 32);
}
