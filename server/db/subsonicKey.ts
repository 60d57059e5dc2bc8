import { createHash } from 'node:crypto';

/**
 * The Subsonic key of a library identity key (decisions §8): the first 80 bits of its SHA-256 in
 * base 62, 14 characters. Every connection registers it as the SQL function `subsonic_key`, so the
 * key columns (migration 023) are filled by the database itself. Frozen: ids derived from it are
 * what clients keep.
 */
export const SUBSONIC_KEY_LENGTH = 14; // ceil(80 / log2(62))
const HASH_BYTES = 10;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function subsonicKey(identityKey: string): string {
  const digits = Array.from(createHash('sha256').update(identityKey, 'utf8').digest().subarray(0, HASH_BYTES));
  // Base 62 of a big-endian byte string by long division on small numbers (no BigInt: hot path).
  let out = '';
  while (digits.some((d) => d !== 0)) {
    let rem = 0;
    for (let i = 0; i < digits.length; i++) {
      const acc = rem * 256 + digits[i]!;
      digits[i] = Math.floor(acc / 62);
      rem = acc % 62;
    }
    out = ALPHABET[rem]! + out;
  }
  return out.padStart(SUBSONIC_KEY_LENGTH, '0');
}

/** The SQL face of subsonicKey: NULL in, NULL out. */
export function subsonicKeySql(identityKey: unknown): string | null {
  return typeof identityKey === 'string' ? subsonicKey(identityKey) : null;
}
