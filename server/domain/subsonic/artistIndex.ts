import { IGNORED_ARTICLES } from '../../db/libraryText.js';
import type { ArtistEntry } from '../../db/subsonicLibrary.js';

/** Articles left out when grouping and sorting artists: the library's own sort-key rule. */
export { IGNORED_ARTICLES };

export interface ArtistIndex {
  /** Groups in display order: A..Z, then "#" for everything else. */
  groups: { name: string; artists: ArtistEntry[] }[];
  /** When the artist list last changed (ms), for getIndexes `lastModified`. */
  changedAt: number;
}

function groupName(key: string): string {
  const first = key.normalize('NFKD').charAt(0).toUpperCase();
  return /^[A-Z]$/.test(first) ? first : '#';
}

/**
 * Groups artists by the first letter of their stored sort key (sortName in libraryText.ts: no leading
 * article, natural number order), in that key's order, as every /api page orders them.
 */
export function buildArtistIndex(artists: ArtistEntry[], changedAt: number): ArtistIndex {
  const keyed = artists.map((a) => ({ a, key: a.sort_name }));
  keyed.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.a.id - y.a.id));
  const groups = new Map<string, ArtistEntry[]>();
  for (const { a, key } of keyed) {
    const name = groupName(key);
    const list = groups.get(name);
    if (list) list.push(a);
    else groups.set(name, [a]);
  }
  const names = [...groups.keys()].sort((x, y) => (x === '#' ? 1 : y === '#' ? -1 : x.localeCompare(y)));
  return { groups: names.map((name) => ({ name, artists: groups.get(name)! })), changedAt };
}

/**
 * The artist index, rebuilt only when the library fingerprint changes, so getArtists/getIndexes over
 * tens of thousands of artists cost one read of the cached groups.
 */
export class ArtistIndexCache {
  private cached: { fingerprint: string; index: ArtistIndex; signature: string } | null = null;

  constructor(
    private readonly source: {
      fingerprint(): string;
      indexArtists(): ArtistEntry[];
      lastChangeAt(): number;
    },
    private readonly clock: { now(): number },
  ) {}

  get(): ArtistIndex {
    const fingerprint = this.source.fingerprint();
    if (this.cached?.fingerprint === fingerprint) return this.cached.index;
    const artists = this.source.indexArtists();
    const signature = artists.map((a) => `${a.id}:${a.name}:${a.sort_name}:${a.album_count}:${a.appears_on_count}:${a.image_key ?? ''}`).join('|');
    if (this.cached && this.cached.signature === signature) {
      this.cached = { ...this.cached, fingerprint };
      return this.cached.index;
    }
    const changedAt = this.cached ? this.clock.now() : Math.max(this.source.lastChangeAt(), 0) || this.clock.now();
    this.cached = { fingerprint, signature, index: buildArtistIndex(artists, changedAt) };
    return this.cached.index;
  }
}
