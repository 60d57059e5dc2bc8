import { createHash } from 'node:crypto';

/**
 * Subsonic ids (decisions §8): `ar-`, `al-`, `tr-` plus a base-62 key derived from the entity's
 * identityKey, and `pl-` plus the playlist id in base 62. The scheme is frozen once released: a test
 * pins exact ids.
 */
export type EntityKind = 'artist' | 'album' | 'track';
export type IdKind = EntityKind | 'playlist';

export const PREFIX: Record<IdKind, string> = { artist: 'ar', album: 'al', track: 'tr', playlist: 'pl' };
const KIND_OF_PREFIX: Record<string, IdKind> = { ar: 'artist', al: 'album', tr: 'track', pl: 'playlist' };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 80 bits of SHA-256: collisions stay negligible far beyond ten million entities per kind. */
const HASH_BYTES = 10;
const KEY_LENGTH = 14; // ceil(80 / log2(62))

export function base62(n: bigint, width = 0): string {
  let s = '';
  while (n > 0n) {
    s = ALPHABET[Number(n % 62n)]! + s;
    n /= 62n;
  }
  return (s || '0').padStart(width, '0');
}

export function fromBase62(s: string): bigint | null {
  let n = 0n;
  for (const ch of s) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return null;
    n = n * 62n + BigInt(d);
  }
  return n;
}

/** Base 62 of a big-endian byte string by long division on small numbers (no BigInt: hot path). */
function bytesToBase62(bytes: Uint8Array, width: number): string {
  const digits = Array.from(bytes);
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
  return out.padStart(width, '0');
}

// Pages of hundreds of songs carry four ids each; recent keys are kept (bounded) to skip rehashing.
const recentKeys = new Map<string, string>();
const RECENT_LIMIT = 50_000;

/** The base-62 key of an identity key: fixed width, URL-safe. */
export function keyOf(identityKey: string): string {
  const known = recentKeys.get(identityKey);
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(identityKey, 'utf8').digest();
  const key = bytesToBase62(digest.subarray(0, HASH_BYTES), KEY_LENGTH);
  if (recentKeys.size >= RECENT_LIMIT) recentKeys.clear();
  recentKeys.set(identityKey, key);
  return key;
}

export function entityId(kind: EntityKind, identityKey: string): string {
  return `${PREFIX[kind]}-${keyOf(identityKey)}`;
}

export function playlistId(id: number): string {
  return `pl-${base62(BigInt(id))}`;
}

export type ParsedId = { kind: EntityKind; key: string } | { kind: 'playlist'; id: number };

/** Reads an id a client sent; null when it is not one of ours. */
export function parseId(id: string): ParsedId | null {
  const m = /^(ar|al|tr|pl)-([0-9A-Za-z]{1,32})$/.exec(id.trim());
  if (!m) return null;
  const kind = KIND_OF_PREFIX[m[1]!]!;
  if (kind === 'playlist') {
    const n = fromBase62(m[2]!);
    if (n === null || n <= 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) return null;
    return { kind, id: Number(n) };
  }
  if (m[2]!.length !== KEY_LENGTH) return null;
  return { kind, key: m[2]! };
}
