import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';

export const FINGERPRINT_BLOCK = 16 * 1024;

/** The byte ranges a fingerprint hashes: the whole of a small file, else start, middle and end blocks. */
export function fingerprintOffsets(size: number): { offset: number; length: number }[] {
  if (size <= FINGERPRINT_BLOCK * 3) return [{ offset: 0, length: size }];
  return [0, Math.floor(size / 2) - FINGERPRINT_BLOCK / 2, size - FINGERPRINT_BLOCK].map((offset) => ({
    offset,
    length: FINGERPRINT_BLOCK,
  }));
}

/**
 * Content fingerprint that survives a move: size plus three sampled blocks (start, middle, end).
 * Cheap enough for every new or changed file; a tag rewrite changes it, a rename does not.
 * (The scanner computes the same value while parsing tags: parseAudioFile in audioFile.ts.)
 */
export async function contentFingerprint(file: string, size: number): Promise<string> {
  const hash = createHash('sha1');
  hash.update(String(size));
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(size <= FINGERPRINT_BLOCK * 3 ? size : FINGERPRINT_BLOCK);
    for (const { offset } of fingerprintOffsets(size)) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex').slice(0, 32);
}
