import type { CoverImages } from '../../integrations/coverart/client.js';
import type { MbArtist, MbRelease, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';

/** The wire shapes of api.md's artist and release-group entries (MusicBrainz's hyphenated keys). */
export interface ReleaseGroupEntry {
  id: string;
  title: string;
  'primary-type': string;
  'secondary-types': string[];
  'first-release-date': string | null;
  artistName: string;
  inLibrary: boolean;
}

const credited = (g: MbReleaseGroup) =>
  g['artist-credit'].map((c) => c.name + (c.joinphrase ?? '')).join('') || null;

export function releaseGroupEntry(g: MbReleaseGroup, owned: Set<string>): ReleaseGroupEntry {
  return {
    id: g.id,
    title: g.title,
    'primary-type': g['primary-type'] ?? 'Other',
    'secondary-types': g['secondary-types'] ?? [],
    'first-release-date': g['first-release-date'] || null,
    artistName: credited(g) ?? '',
    inLibrary: owned.has(g.id),
  };
}

/** Newest first inside the usual release-type order (albums, EPs, singles, others). */
const typeOrder = ['Album', 'EP', 'Single', 'Broadcast', 'Other'];
export function sortReleaseGroups(entries: ReleaseGroupEntry[]): ReleaseGroupEntry[] {
  const rank = (e: ReleaseGroupEntry) => {
    const i = typeOrder.indexOf(e['primary-type']);
    return (i === -1 ? typeOrder.length : i) * 2 + (e['secondary-types'].length > 0 ? 1 : 0);
  };
  return [...entries].sort(
    (a, b) => rank(a) - rank(b) || (b['first-release-date'] ?? '').localeCompare(a['first-release-date'] ?? '') || a.title.localeCompare(b.title),
  );
}

const byCount = <T extends { name: string; count?: number }>(list: T[] | undefined) =>
  [...(list ?? [])].sort((a, b) => (b.count ?? 0) - (a.count ?? 0)).map((t) => t.name);

export function artistDetail(
  artist: MbArtist,
  groups: ReleaseGroupEntry[],
  appearsOn: ReleaseGroupEntry[] | null,
  library: { inLibrary: boolean; libraryArtistId: number | null },
) {
  return {
    id: artist.id,
    name: artist.name,
    sortName: artist['sort-name'] ?? artist.name,
    type: artist.type ?? null,
    country: artist.country ?? null,
    disambiguation: artist.disambiguation ?? '',
    lifeSpan: { begin: artist['life-span']?.begin ?? null, end: artist['life-span']?.end ?? null },
    tags: byCount(artist.tags),
    genres: byCount(artist.genres),
    links: (artist.relations ?? []).filter((r) => r.url).map((r) => ({ type: r.type, url: r.url!.resource })),
    'release-groups': sortReleaseGroups(groups),
    'appears-on-release-groups': appearsOn ? sortReleaseGroups(appearsOn) : [],
    /** false when `mode=core` skipped the slow appears-on lookup. */
    appearsOnLoaded: appearsOn !== null,
    inLibrary: library.inLibrary,
    libraryArtistId: library.libraryArtistId === null ? null : String(library.libraryArtistId),
  };
}

/** The front image of a cover list, preferring a 500 px thumbnail. */
export function frontCover(cover: CoverImages | null): string | null {
  if (!cover) return null;
  const front = cover.images.find((i) => i.front) ?? cover.images[0];
  if (!front) return null;
  return front.thumbnails['500'] ?? front.thumbnails.large ?? front.image;
}

export function releaseGroupDetail(g: MbReleaseGroup, coverUrl: string | null, inLibrary: boolean) {
  return {
    id: g.id,
    title: g.title,
    'primary-type': g['primary-type'] ?? 'Other',
    'secondary-types': g['secondary-types'] ?? [],
    'first-release-date': g['first-release-date'] || null,
    'artist-credit': g['artist-credit'].map((c) => ({ name: c.name, joinphrase: c.joinphrase ?? '', artist: { id: c.artist.id, name: c.artist.name } })),
    releases: (g.releases ?? []).map((r) => ({ id: r.id, title: r.title, status: r.status ?? null, date: r.date || null, country: r.country ?? null })),
    genres: byCount(g.genres),
    tags: byCount(g.tags),
    rating: g.rating?.value ?? null,
    coverUrl,
    overview: '',
    inLibrary,
  };
}

/** The release a track list is taken from: the earliest official release of the group. */
export function representativeRelease(g: MbReleaseGroup): string | null {
  const releases = [...(g.releases ?? [])];
  releases.sort((a, b) => {
    const official = (r: typeof a) => (r.status === 'Official' ? 0 : 1);
    return official(a) - official(b) || (a.date || '9999').localeCompare(b.date || '9999');
  });
  return releases[0]?.id ?? null;
}

export function releaseTracks(release: MbRelease, owned: Set<string>) {
  return release.media.flatMap((medium) =>
    medium.tracks.map((t) => ({
      id: t.id,
      mbid: t.recording.id,
      title: t.title,
      trackNumber: t.position,
      number: t.number,
      discNumber: medium.position,
      durationMs: t.length ?? t.recording.length ?? null,
      artistName: (t['artist-credit'] ?? release['artist-credit']).map((c) => c.name + (c.joinphrase ?? '')).join(''),
      inLibrary: owned.has(t.recording.id),
    })),
  );
}
