import { artistName, derivedMbid, mbid, prng, title } from './names.js';

/**
 * The fake's stand-in for Lidarr's metadata server: artists with their albums and tracks that exist
 * in MusicBrainz but not (yet) in the library. `/artist/lookup`, `/album/lookup` and adding an artist
 * by MBID answer from here.
 */
export interface CatalogueAlbum {
  foreignAlbumId: string;
  foreignReleaseId: string;
  title: string;
  albumType: string;
  secondaryTypes: string[];
  releaseDate: string;
  genres: string[];
  trackCount: number;
  /** Given titles; when absent, titles are derived from `seed`. */
  trackTitles: string[] | null;
  seed: number;
}

export interface CatalogueArtist {
  foreignArtistId: string;
  artistName: string;
  artistType: string;
  disambiguation: string;
  overview: string;
  genres: string[];
  status: 'continuing' | 'ended';
  albums: CatalogueAlbum[];
}

export interface CatalogueAlbumInput {
  title: string;
  foreignAlbumId?: string;
  albumType?: string;
  secondaryTypes?: string[];
  releaseDate?: string;
  genres?: string[];
  /** Track titles, or just how many tracks. */
  tracks?: string[] | number;
}

export interface CatalogueArtistInput {
  artistName: string;
  foreignArtistId?: string;
  artistType?: string;
  disambiguation?: string;
  overview?: string;
  genres?: string[];
  status?: 'continuing' | 'ended';
  albums?: CatalogueAlbumInput[];
}

export class MetadataCatalogue {
  private readonly artists = new Map<string, CatalogueArtist>();
  private readonly albums = new Map<string, { album: CatalogueAlbum; artist: CatalogueArtist }>();
  private counter = 0;

  add(input: CatalogueArtistInput): CatalogueArtist {
    const key = ++this.counter;
    const random = prng(0x5eed + key);
    const artist: CatalogueArtist = {
      foreignArtistId: input.foreignArtistId ?? mbid(random),
      artistName: input.artistName,
      artistType: input.artistType ?? 'Group',
      disambiguation: input.disambiguation ?? '',
      overview: input.overview ?? `${input.artistName} is an artist in the fake metadata catalogue.`,
      genres: input.genres ?? ['Indie'],
      status: input.status ?? 'continuing',
      albums: [],
    };
    (input.albums ?? []).forEach((a, i) => {
      const tracks = a.tracks ?? 10;
      const album: CatalogueAlbum = {
        foreignAlbumId: a.foreignAlbumId ?? mbid(random),
        foreignReleaseId: derivedMbid('release', artist.foreignArtistId, i),
        title: a.title,
        albumType: a.albumType ?? 'Album',
        secondaryTypes: a.secondaryTypes ?? [],
        releaseDate: a.releaseDate ?? `${2000 + ((key + i) % 25)}-0${1 + (i % 9)}-15T00:00:00Z`,
        genres: a.genres ?? artist.genres,
        trackCount: typeof tracks === 'number' ? tracks : tracks.length,
        trackTitles: typeof tracks === 'number' ? null : tracks,
        seed: key * 1000 + i,
      };
      artist.albums.push(album);
      this.albums.set(album.foreignAlbumId, { album, artist });
    });
    this.artists.set(artist.foreignArtistId, artist);
    return artist;
  }

  /** Random catalogue entries, for tests that need "some artists Lidarr could add". */
  generate(count: number, albumsPerArtist = 3, tracksPerAlbum = 8, seed = 7): CatalogueArtist[] {
    const random = prng(seed);
    const added: CatalogueArtist[] = [];
    for (let i = 0; i < count; i++) {
      const { name, type } = artistName(random);
      const albums = Array.from({ length: albumsPerArtist }, (_, j) => ({
        title: title(random),
        albumType: j === albumsPerArtist - 1 && albumsPerArtist > 2 ? 'EP' : 'Album',
        tracks: tracksPerAlbum,
      }));
      added.push(this.add({ artistName: name, artistType: type, albums }));
    }
    return added;
  }

  artist(foreignArtistId: string): CatalogueArtist | undefined {
    return this.artists.get(foreignArtistId);
  }

  album(foreignAlbumId: string): { album: CatalogueAlbum; artist: CatalogueArtist } | undefined {
    return this.albums.get(foreignAlbumId);
  }

  searchArtists(text: string, limit = 50): CatalogueArtist[] {
    const needle = text.toLowerCase();
    const found: CatalogueArtist[] = [];
    for (const a of this.artists.values()) {
      if (a.artistName.toLowerCase().includes(needle)) found.push(a);
      if (found.length >= limit) break;
    }
    return found;
  }

  searchAlbums(text: string, limit = 50): Array<{ album: CatalogueAlbum; artist: CatalogueArtist }> {
    const needle = text.toLowerCase();
    const found: Array<{ album: CatalogueAlbum; artist: CatalogueArtist }> = [];
    for (const entry of this.albums.values()) {
      const hay = `${entry.artist.artistName} ${entry.album.title}`.toLowerCase();
      if (hay.includes(needle)) found.push(entry);
      if (found.length >= limit) break;
    }
    return found;
  }
}

/** The catalogue a fresh fake starts with: a few artists, some with non-Latin names. */
export function defaultCatalogue(): MetadataCatalogue {
  const catalogue = new MetadataCatalogue();
  catalogue.add({
    artistName: 'The Velvet Harbors',
    genres: ['Indie Rock'],
    albums: [
      { title: 'Lanterns', releaseDate: '2014-03-10T00:00:00Z', tracks: ['Harbor Lights', 'Paper Boats', 'Lanterns', 'Low Tide'] },
      { title: 'Glass Rivers', releaseDate: '2018-09-21T00:00:00Z', tracks: 6 },
      { title: 'Night Ferry', albumType: 'EP', releaseDate: '2021-05-07T00:00:00Z', tracks: 3 },
    ],
  });
  catalogue.add({
    artistName: '東京事変',
    genres: ['J-Pop', 'Rock'],
    albums: [
      { title: '教育', releaseDate: '2004-11-25T00:00:00Z', tracks: ['林檎の唄', '群青日和', '現実に於て'] },
      { title: '大人 (アダルト)', releaseDate: '2006-01-25T00:00:00Z', tracks: 5 },
    ],
  });
  catalogue.add({
    artistName: 'Кино',
    artistType: 'Group',
    status: 'ended',
    genres: ['Post-Punk'],
    albums: [{ title: 'Группа крови', releaseDate: '1988-01-05T00:00:00Z', tracks: ['Группа крови', 'Закрой за мной дверь'] }],
  });
  catalogue.add({
    artistName: 'Ólafur Arnalds',
    artistType: 'Person',
    genres: ['Neo-Classical'],
    albums: [
      { title: 'Ljósið', releaseDate: '2016-07-01T00:00:00Z', tracks: 4 },
      { title: 'Re:member', releaseDate: '2018-08-24T00:00:00Z', tracks: 4 },
    ],
  });
  return catalogue;
}
