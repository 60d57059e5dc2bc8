import type { MbArtist, MbRelease, MbReleaseGroup } from '../musicbrainz/schemas.js';
import type { SkyAlbum, SkyArtist } from './schemas.js';

/**
 * SkyHook documents in the MusicBrainz shapes the metadata cache keeps, so a page reads the same
 * whichever source answered. Dates arrive as `2019-03-01` or `2019-03-01T00:00:00Z`; ratings are
 * MusicBrainz's 0-5 scaled to 0-10 by Lidarr's metadata server.
 */
const day = (value: string | null | undefined) => (value ? value.slice(0, 10) : '');
const credit = (artists: { id: string; name: string }[]) =>
  artists.map((a, i) => ({ name: a.name, joinphrase: i < artists.length - 1 ? ' & ' : '', artist: { id: a.id, name: a.name, 'sort-name': a.name } }));
const rating = (r: SkyAlbum['rating']) =>
  r && (r.Count ?? 0) > 0 && r.Value !== null && r.Value !== undefined ? { value: Math.round((r.Value / 2) * 100) / 100, 'votes-count': r.Count ?? 0 } : { value: null, 'votes-count': 0 };

export function artistDocument(a: SkyArtist): { artist: MbArtist; releaseGroups: MbReleaseGroup[] } {
  const self = [{ id: a.id, name: a.artistname }];
  const genres = a.genres.map((name) => ({ name, count: 0 }));
  return {
    artist: {
      id: a.id,
      name: a.artistname,
      'sort-name': a.sortname || a.artistname,
      type: a.type ?? null,
      country: null,
      disambiguation: a.disambiguation,
      // The provider has genres only; they stand in for MusicBrainz's folksonomy tags too.
      tags: genres,
      genres,
      relations: a.links.map((l) => ({ type: l.type, url: { resource: l.target } })),
      overview: a.overview,
      images: a.images.map((i) => ({ type: i.CoverType ?? '', url: i.Url })),
    },
    releaseGroups: a.Albums.map((g) => ({
      id: g.Id,
      title: g.Title,
      'primary-type': g.Type ?? null,
      'secondary-types': g.SecondaryTypes,
      'first-release-date': day(g.ReleaseDate),
      'artist-credit': credit(self),
    })),
  };
}

function albumArtists(album: SkyAlbum): Map<string, { id: string; name: string }> {
  return new Map(album.artists.map((a) => [a.id, { id: a.id, name: a.artistname }]));
}

/** The release group with its releases listed (as MusicBrainz's `inc=releases` lookup has them). */
export function releaseGroupDocument(album: SkyAlbum): MbReleaseGroup {
  const artists = albumArtists(album);
  const main = artists.get(album.artistid) ?? { id: album.artistid, name: album.artists[0]?.artistname ?? '' };
  return {
    id: album.id,
    title: album.title,
    'primary-type': album.type ?? null,
    'secondary-types': album.secondarytypes,
    'first-release-date': day(album.releasedate),
    'artist-credit': credit([main]),
    genres: album.genres.map((name) => ({ name, count: 0 })),
    tags: album.genres.map((name) => ({ name, count: 0 })),
    rating: rating(album.rating),
    releases: album.releases.map((r) => ({ id: r.id, title: r.title, status: r.status ?? null, date: day(r.releasedate), country: r.country[0] ?? null })),
  };
}

/** Each release of the album with its tracks by medium, as MusicBrainz's release lookup has them. */
export function releaseDocuments(album: SkyAlbum): MbRelease[] {
  const artists = albumArtists(album);
  const group = releaseGroupDocument(album);
  const { releases: _releases, ...groupRef } = group;
  return album.releases.map((r) => {
    const positions = new Set([...r.media.map((m) => m.Position ?? 1), ...r.tracks.map((t) => t.mediumnumber)]);
    const media = [...positions]
      .sort((a, b) => a - b)
      .map((position) => {
        const medium = r.media.find((m) => (m.Position ?? 1) === position);
        const tracks = r.tracks
          .filter((t) => t.mediumnumber === position)
          .sort((a, b) => a.trackposition - b.trackposition)
          .map((t) => {
            const by = t.artistid ? artists.get(t.artistid) ?? { id: t.artistid, name: '' } : null;
            return {
              id: t.id,
              number: t.tracknumber || String(t.trackposition),
              position: t.trackposition,
              title: t.trackname,
              length: t.durationms ?? null,
              recording: { id: t.recordingid, title: t.trackname, length: t.durationms ?? null },
              ...(by && { 'artist-credit': credit([by]) }),
            };
          });
        return { position, format: medium?.Format ?? null, 'track-count': tracks.length, tracks };
      });
    return {
      id: r.id,
      title: r.title,
      status: r.status ?? null,
      date: day(r.releasedate),
      country: r.country[0] ?? null,
      'release-group': groupRef,
      'artist-credit': group['artist-credit'],
      media,
    };
  });
}
