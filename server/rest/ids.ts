import { SUBSONIC_KEY_LENGTH, subsonicKey } from '../db/subsonicKey.js';

/**
 * Subsonic ids (decisions §8): `ar-`, `al-`, `tr-` plus a base-62 key derived from the entity's
 * identityKey (the same key the library tables carry in `subsonic_key`), and `pl-` plus the
 * playlist id in base 62. The scheme is frozen once released: a test pins exact ids.
 */
export type EntityKind = 'artist' | 'album' | 'track';
export type IdKind = EntityKind | 'playlist';

export const PREFIX: Record<IdKind, string> = { artist: 'ar', album: 'al', track: 'tr', playlist: 'pl' };
const KIND_OF_PREFIX: Record<string, IdKind> = { ar: 'artist', al: 'album', tr: 'track', pl: 'playlist' };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

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

// Pages of hundreds of songs carry four ids each; recent keys are kept (bounded) to skip rehashing.
const recentKeys = new Map<string, string>();
const RECENT_LIMIT = 50_000;

/** The base-62 key of an identity key: fixed width, URL-safe. */
export function keyOf(identityKey: string): string {
  const known = recentKeys.get(identityKey);
  if (known !== undefined) return known;
  const key = subsonicKey(identityKey);
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
  if (m[2]!.length !== SUBSONIC_KEY_LENGTH) return null;
  return { kind, key: m[2]! };
}

/** Ids of rows that have no identity key: a prefix and the row id in base 62. */
export const ROW_PREFIX = { podcastChannel: 'pc', podcastEpisode: 'pe', radioStation: 'ir' } as const;
export type RowKind = keyof typeof ROW_PREFIX;

export function rowId(kind: RowKind, id: number): string {
  return `${ROW_PREFIX[kind]}-${base62(BigInt(id))}`;
}

/** The row id of one of those ids, or null when `raw` is not an id of that kind. */
export function parseRowId(kind: RowKind, raw: string): number | null {
  const m = /^([a-z]{2})-([0-9A-Za-z]{1,11})$/.exec(raw.trim());
  if (!m || m[1] !== ROW_PREFIX[kind]) return null;
  const n = fromBase62(m[2]!);
  return n === null || n <= 0n || n > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(n);
}
