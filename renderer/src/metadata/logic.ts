/**
 * The metadata pages' pure rules (no DOM, no imports), so vitest can pin them: release sections,
 * search addresses, where a resolved link leads.
 */
import type { Answer } from '../wire.js';

export type ReleaseGroupEntry = Answer<'/api/artists/{mbid}'>['release-groups'][number];

export type SearchScope = 'artist' | 'album' | 'tag';

export type ResolvedLink = Answer<'/api/search/link'>;

/** "2019" from "2019-03-01"; empty when unknown. */
export const yearOf = (date: string | null | undefined) => (date ? date.slice(0, 4) : '');

export const isHttpLink = (text: string) => /^https?:\/\/\S+$/i.test(text.trim());

const PRIMARY_ORDER = ['Album', 'EP', 'Single', 'Broadcast', 'Other'];
const PLURAL: Record<string, string> = {
  Album: 'Albums',
  EP: 'EPs',
  Single: 'Singles',
  Broadcast: 'Broadcasts',
  Other: 'Other releases',
  Compilation: 'Compilations',
  Soundtrack: 'Soundtracks',
  Remix: 'Remixes',
  Live: 'Live',
  'DJ-mix': 'DJ mixes',
  'Mixtape/Street': 'Mixtapes',
  Demo: 'Demos',
  Interview: 'Interviews',
  Spokenword: 'Spoken word',
  Audiobook: 'Audiobooks',
  'Audio drama': 'Audio dramas',
  'Field recording': 'Field recordings',
};

export interface ReleaseSection {
  key: string;
  title: string;
  entries: ReleaseGroupEntry[];
}

/**
 * Studio releases by primary type (Albums, EPs, Singles…), then releases with a secondary type
 * (Live, Compilation…) each in their own section; entries keep the order the server sent.
 */
export function groupReleases(entries: ReleaseGroupEntry[]): ReleaseSection[] {
  const sections = new Map<string, ReleaseSection>();
  for (const e of entries) {
    const secondary = e['secondary-types'][0];
    const key = secondary ? `secondary:${secondary}` : `primary:${e['primary-type'] || 'Other'}`;
    const label = secondary ?? (e['primary-type'] || 'Other');
    let section = sections.get(key);
    if (!section) sections.set(key, (section = { key, title: PLURAL[label] ?? label, entries: [] }));
    section.entries.push(e);
  }
  const rank = (s: ReleaseSection) => {
    if (s.key.startsWith('primary:')) {
      const i = PRIMARY_ORDER.indexOf(s.key.slice(8));
      return i === -1 ? PRIMARY_ORDER.length - 1 : i;
    }
    return PRIMARY_ORDER.length;
  };
  return [...sections.values()].map((s, i) => ({ s, i })).sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i).map(({ s }) => s);
}

export function typeLine(primary: string | null | undefined, secondary: string[] | undefined): string {
  return [primary, ...(secondary ?? [])].filter(Boolean).join(' · ');
}

export function searchHref(q: string, scope: SearchScope): string {
  const params = new URLSearchParams();
  if (q.trim()) params.set('q', q.trim());
  if (scope !== 'artist') params.set('scope', scope);
  const qs = params.toString();
  return `/search${qs ? `?${qs}` : ''}`;
}

/**
 * Where a resolved link leads: the release page when it names a known album (album and track links),
 * else the artist page for a known artist; with no MBID, a search by name (api.md: a null mbid means
 * no match, the client searches by name): the album's title among albums, else the artist's name.
 */
export function linkTarget(link: ResolvedLink): string {
  if (link.kind !== 'artist' && link.album?.mbid) return `/release/${link.album.mbid}`;
  if (link.kind === 'artist' && link.artist?.mbid) return `/artist/${link.artist.mbid}`;
  if (link.kind !== 'artist' && link.album?.title) return searchHref(link.album.title, 'album');
  if (link.artist?.mbid) return `/artist/${link.artist.mbid}`;
  return searchHref(link.artist?.name ?? link.track?.title ?? '', 'artist');
}
