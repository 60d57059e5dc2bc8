import { luceneQuote } from '../../integrations/musicbrainz/client.js';
import type { MbArtist, MbReleaseGroup } from '../../integrations/musicbrainz/schemas.js';
import type { MetadataService } from '../metadata/service.js';
import type { SearchService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = { metadata: MetadataService; search: SearchService };

/**
 * Names from a streaming service → MusicBrainz ids. A candidate matches only when its folded name
 * equals the wanted one (case, accents, punctuation and edition suffixes such as "- Single" or
 * "(Deluxe Edition)" ignored); MusicBrainz's score order breaks ties. No match gives null ids, and
 * the client then searches by name (api.md "Resolved link").
 */
export interface MatchedNames {
  artist: { name: string; mbid: string | null };
  album: { title: string; mbid: string | null } | null;
  track: { title: string; mbid: string | null } | null;
}

const CANDIDATES = 10;

/** Lower-case, accents and punctuation dropped, `&` read as `and`. */
export function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A title without the edition or format markers services add ("- EP", "(Remastered 2011)"). */
export function baseTitle(s: string): string {
  return fold(
    s
      .replace(/\s+-\s+(single|ep)$/i, '')
      .replace(/\s*[([][^)\]]*\b(deluxe|remaster(ed)?|expanded|edition|anniversary|bonus|version)\b[^)\]]*[)\]]/gi, '')
      .replace(/\s+-\s+[^-]*\b(remaster(ed)?|deluxe|edition|version)\b.*$/i, ''),
  );
}

const sameName = (a: string, b: string) => fold(a) === fold(b) && fold(a) !== '';
const sameTitle = (a: string, b: string) => baseTitle(a) === baseTitle(b) && baseTitle(a) !== '';
const creditedIds = (g: MbReleaseGroup) => (g['artist-credit'] ?? []).map((c) => c.artist.id);

export async function matchNames(
  ctx: Deps,
  names: { artist: string; album: string | null; track: string | null; isrc?: string | null },
): Promise<MatchedNames> {
  // MusicBrainz switched off in Settings: the names alone, for the client to search by.
  if (!ctx.metadata.enabled)
    return {
      artist: { name: names.artist, mbid: null },
      album: names.album === null ? null : { title: names.album, mbid: null },
      track: names.track === null ? null : { title: names.track, mbid: null },
    };
  const search = ctx.search;
  const mb = () => ctx.metadata.musicbrainz();
  const artistHits = (await search.cached(`match-artist|${fold(names.artist)}`, (s) =>
    mb().searchArtists(`artist:${luceneQuote(names.artist)}`, CANDIDATES, 0, s).then((r) => r.artists),
  )) as MbArtist[];
  let artistMbid = artistHits.find((a) => sameName(a.name, names.artist))?.id ?? null;

  let album: MatchedNames['album'] = null;
  if (names.album !== null) {
    const groups = (await search.cached(`match-album|${fold(names.artist)}|${fold(names.album)}`, (s) =>
      mb()
        .searchReleaseGroups(`releasegroup:${luceneQuote(names.album!)} AND artist:${luceneQuote(names.artist)}`, CANDIDATES, 0, s)
        .then((r) => r['release-groups']),
    )) as MbReleaseGroup[];
    const hit =
      groups.find((g) => sameTitle(g.title, names.album!) && artistMbid !== null && creditedIds(g).includes(artistMbid)) ??
      groups.find((g) => sameTitle(g.title, names.album!) && (g['artist-credit'] ?? []).some((c) => sameName(c.name, names.artist)));
    album = { title: names.album, mbid: hit?.id ?? null };
    // The album's credit names the artist when the artist search alone was ambiguous.
    artistMbid ??= hit ? ((hit['artist-credit'] ?? []).find((c) => sameName(c.name, names.artist))?.artist.id ?? null) : null;
  }

  let track: MatchedNames['track'] = null;
  if (names.track !== null) {
    type Recording = { id: string; title: string; 'artist-credit': { name: string; artist: { id: string } }[]; releases: { 'release-group'?: MbReleaseGroup }[] };
    const byArtist = (r: Recording) =>
      artistMbid !== null ? r['artist-credit'].some((c) => c.artist.id === artistMbid) : r['artist-credit'].some((c) => sameName(c.name, names.artist));
    // An ISRC names the recording exactly, whatever the service calls it; titles are the fallback.
    const isrc = names.isrc && /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/i.test(names.isrc) ? names.isrc.toUpperCase() : null;
    let candidates: Recording[] = [];
    if (isrc)
      candidates = ((await search.cached(`match-isrc|${isrc}`, (s) => mb().searchRecordings(`isrc:${isrc}`, CANDIDATES, 0, s).then((r) => r.recordings))) as Recording[]).filter(byArtist);
    if (candidates.length === 0) {
      const recordings = (await search.cached(`match-track|${fold(names.artist)}|${fold(names.track)}`, (s) =>
        mb()
          .searchRecordings(`recording:${luceneQuote(names.track!)} AND artist:${luceneQuote(names.artist)}`, CANDIDATES * 2, 0, s)
          .then((r) => r.recordings),
      )) as Recording[];
      candidates = recordings.filter((r) => sameTitle(r.title, names.track!) && byArtist(r));
    }
    // Prefer the recording that is on the named album.
    const onAlbum = (r: Recording) =>
      r.releases.find((rel) => rel['release-group'] && (album?.mbid ? rel['release-group'].id === album.mbid : names.album !== null && sameTitle(rel['release-group'].title, names.album)));
    const hit = candidates.find(onAlbum) ?? candidates[0];
    track = { title: names.track, mbid: hit?.id ?? null };
    if (album && album.mbid === null && hit) album.mbid = onAlbum(hit)?.['release-group']?.id ?? null;
    artistMbid ??= hit ? (hit['artist-credit'].find((c) => sameName(c.name, names.artist))?.artist.id ?? null) : null;
  }
  return { artist: { name: names.artist, mbid: artistMbid }, album, track };
}
