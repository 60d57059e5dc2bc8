import { hash } from 'node:crypto';

/**
 * The Subsonic key of a library identity key (decisions §8): the first 80 bits of its SHA-256 in
 * base 62, 14 characters. Every connection registers it as the SQL function `subsonic_key`, so the
 * key columns (migration 023) are filled by the database itself. Frozen: ids derived from it are
 * what clients keep.
 */
export const SUBSONIC_KEY_LENGTH = 14; // ceil(80 / log2(62))
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function subsonicKey(identityKey: string): string {
  const digest = hash('sha256', identityKey, 'buffer');
  // The 80 bits as two 40-bit halves, divided by 62 digit by digit (exact in doubles: every
  // intermediate stays below 2^46; no BigInt: the writer computes one key per row it inserts).
  let high = digest.readUIntBE(0, 5);
  let low = digest.readUIntBE(5, 5);
  let out = '';
  while (high > 0 || low > 0) {
    const carry = high % 62;
    high = (high - carry) / 62;
    const rest = carry * 2 ** 40 + low;
    const digit = rest % 62;
    low = (rest - digit) / 62;
    out = ALPHABET[digit]! + out;
  }
  return out.padStart(SUBSONIC_KEY_LENGTH, '0');
}

/** The SQL face of subsonicKey: NULL in, NULL out. */
export function subsonicKeySql(identityKey: unknown): string | null {
  return typeof identityKey === 'string' ? subsonicKey(identityKey) : null;
}
