import { IGNORED_ARTICLES, type ArtistIndex } from '../../domain/subsonic/artistIndex.js';
import type { RestCall, RestMethod } from '../context.js';
import { notFound } from '../errors.js';
import { entityId, parseId } from '../ids.js';
import { artistID3, indexArtist, iso } from '../serialize.js';
import type { Payload } from '../wire.js';
import { albumInfoFields, artistInfoFields, similarLibraryArtists, topSongIds } from '../enrichment.js';
import { albumDirs, albums, inMusicFolder, resolveAny, resolveEntity, songs } from '../views.js';

// Serialized index entries are shared across requests until the index is rebuilt.
const id3Cache = new WeakMap<ArtistIndex, Payload[][]>();
const folderCache = new WeakMap<ArtistIndex, Payload[][]>();

function withStars(entries: Payload[][], index: ArtistIndex, stars: Map<number, number>): Payload[] {
  return index.groups.map((g, i) => ({
    name: g.name,
    artist:
      stars.size === 0
        ? entries[i]!
        : entries[i]!.map((p, j) => {
            const at = stars.get(g.artists[j]!.id);
            return at === undefined ? p : { ...p, starred: iso(at) };
          }),
  }));
}

function starredArtists(call: RestCall): Map<number, number> {
  const ids = call.rc.userData.starredIds(call.user.id, 'artist');
  if (ids.length === 0) return new Map();
  const ann = call.rc.userData.annotations(call.user.id, 'artist', ids);
  return new Map([...ann].filter(([, a]) => a.starredAt !== undefined).map(([id, a]) => [id, a.starredAt!]));
}

function getArtists(call: RestCall): Payload {
  if (!inMusicFolder(call)) return { artists: { ignoredArticles: IGNORED_ARTICLES, index: [] } };
  const index = call.rc.artistIndex.get();
  let entries = id3Cache.get(index);
  if (!entries) {
    entries = index.groups.map((g) => g.artists.map((a) => artistID3(a)));
    id3Cache.set(index, entries);
  }
  return { artists: { ignoredArticles: IGNORED_ARTICLES, index: withStars(entries, index, starredArtists(call)) } };
}

function getIndexes(call: RestCall): Payload {
  const index = call.rc.artistIndex.get();
  const lastModified = Math.max(index.changedAt, call.rc.userData.starsChangedAt(call.user.id) ?? 0);
  const since = call.params.optionalInt('ifModifiedSince');
  if (!inMusicFolder(call) || (since !== undefined && since >= lastModified))
    return { indexes: { ignoredArticles: IGNORED_ARTICLES, lastModified } };
  let entries = folderCache.get(index);
  if (!entries) {
    entries = index.groups.map((g) => g.artists.map((a) => indexArtist(a)));
    folderCache.set(index, entries);
  }
  return { indexes: { ignoredArticles: IGNORED_ARTICLES, lastModified, index: withStars(entries, index, starredArtists(call)) } };
}

function getArtist(call: RestCall): Payload {
  const id = resolveEntity(call, call.params.required('id'), 'artist');
  const artist = call.rc.library.artist(id);
  if (!artist) throw notFound('Artist not found');
  const ann = call.rc.userData.annotations(call.user.id, 'artist', [id]);
  // Own albums first, then the albums the artist appears on (an artist only on compilations is not empty).
  return { artist: { ...artistID3(artist, ann.get(id)), album: albums(call, call.rc.library.albumIdsWithAppearances(id)) } };
}

function getAlbum(call: RestCall): Payload {
  const id = resolveEntity(call, call.params.required('id'), 'album');
  const [album] = albums(call, [id]);
  if (!album) throw notFound('Album not found');
  return { album: { ...album, song: songs(call, call.rc.library.songIdsOfAlbum(id)) } };
}

function getSong(call: RestCall): Payload {
  const id = resolveEntity(call, call.params.required('id'), 'track');
  const [song] = songs(call, [id]);
  if (!song) throw notFound('Song not found');
  return { song };
}

function getMusicDirectory(call: RestCall): Payload {
  const raw = call.params.required('id');
  const target = resolveAny(call, raw);
  if (target.kind === 'artist') {
    const artist = call.rc.library.artist(target.id);
    if (!artist) throw notFound('Directory not found');
    const ann = call.rc.userData.annotations(call.user.id, 'artist', [target.id]).get(target.id);
    return {
      directory: {
        id: entityId('artist', artist.identity_key),
        parent: '1',
        name: artist.name,
        ...(ann?.starredAt !== undefined && { starred: iso(ann.starredAt) }),
        ...(ann?.rating !== undefined && { userRating: ann.rating }),
        child: albumDirs(call, call.rc.library.albumIdsWithAppearances(target.id)),
      },
    };
  }
  if (target.kind === 'album') {
    const album = call.rc.library.album(target.id);
    if (!album) throw notFound('Directory not found');
    const ann = call.rc.userData.annotations(call.user.id, 'album', [target.id]).get(target.id);
    return {
      directory: {
        id: entityId('album', album.identity_key),
        ...(album.artist_key && { parent: entityId('artist', album.artist_key) }),
        name: album.title,
        ...(ann?.starredAt !== undefined && { starred: iso(ann.starredAt) }),
        ...(ann?.rating !== undefined && { userRating: ann.rating }),
        ...(ann?.playCount !== undefined && { playCount: ann.playCount }),
        child: songs(call, call.rc.library.songIdsOfAlbum(target.id)),
      },
    };
  }
  throw notFound('Directory not found');
}

function artistInfo(call: RestCall, element: 'artistInfo' | 'artistInfo2'): Payload {
  const id = resolveEntity(call, call.params.required('id'), 'artist');
  const artist = call.rc.library.artist(id);
  if (!artist) throw notFound('Artist not found');
  const count = call.params.int('count', 20, { min: 0, max: 100 });
  if (!artist.mbid) return { [element]: { similarArtist: [] } };
  // From the metadata cache only (Last.fm, Deezer): a cold artist answers what is known and is fetched in the background.
  const similar = similarLibraryArtists(call, artist.mbid, count)
    .filter((sid) => sid !== id)
    .map((sid) => call.rc.library.artist(sid))
    .filter((a) => a !== undefined);
  const serialize = element === 'artistInfo2' ? artistID3 : indexArtist;
  return { [element]: { ...artistInfoFields(call, artist.mbid), similarArtist: similar.map((a) => serialize(a)) } };
}

function albumInfo(call: RestCall): Payload {
  const raw = call.params.required('id');
  const parsed = parseId(raw);
  const id = parsed?.kind === 'track' ? call.rc.library.song(resolveEntity(call, raw, 'track'))?.album_id : resolveEntity(call, raw, 'album');
  const album = id ? call.rc.library.album(id) : undefined;
  if (!album) throw notFound('Album not found');
  return { albumInfo: album.mbid ? albumInfoFields(call, album.mbid) : {} };
}

/** Songs related by artist: the library's own knowledge, in random order. */
function similarSongs(call: RestCall, element: 'similarSongs' | 'similarSongs2'): Payload {
  const count = call.params.int('count', 50, { min: 0, max: 500 });
  const target = resolveAny(call, call.params.required('id'));
  let artistId: number | null | undefined;
  let exclude: number | undefined;
  if (target.kind === 'artist') artistId = target.id;
  else if (target.kind === 'album') artistId = call.rc.library.album(target.id)?.artist_id;
  else if (target.kind === 'track') {
    artistId = call.rc.library.song(target.id)?.artist_id;
    exclude = target.id;
  } else throw notFound();
  if (artistId === null || artistId === undefined) return { [element]: { song: [] } };
  // The artist's own songs and those of its similar artists in the library (Last.fm, from the cache), shuffled.
  const mbid = call.rc.library.artist(artistId)?.mbid;
  const artists = [artistId, ...(mbid ? similarLibraryArtists(call, mbid, 20).filter((a) => a !== artistId) : [])];
  const per = Math.max(50, Math.ceil(2000 / artists.length));
  const ids = artists.flatMap((a) => call.rc.library.songIdsOfArtist(a, per)).filter((id) => id !== exclude);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return { [element]: { song: songs(call, ids.slice(0, count)) } };
}

function getTopSongs(call: RestCall): Payload {
  const count = call.params.int('count', 50, { min: 0, max: 500 });
  const rawId = call.params.string('id');
  let artistId: number | undefined;
  if (rawId) artistId = resolveEntity(call, rawId, 'artist');
  else artistId = call.rc.library.artistIdByName(call.params.required('artist'));
  if (artistId === undefined) return { topSongs: { song: [] } };
  // Songs matching the artist's Last.fm top tracks first (from the cache), then the most played ones.
  const artist = call.rc.library.artist(artistId);
  const ranked = artist ? topSongIds(call, artist.mbid, artist.name, count) : [];
  const rest = call.rc.library.topSongIdsOfArtist(artistId, count).filter((id) => !ranked.includes(id));
  return { topSongs: { song: songs(call, [...ranked, ...rest].slice(0, count)) } };
}

export const browsingMethods: RestMethod[] = [
  { name: 'getMusicFolders', handler: () => ({ musicFolders: { musicFolder: [{ id: 1, name: 'Music' }] } }) },
  { name: 'getIndexes', handler: getIndexes },
  { name: 'getArtists', handler: getArtists },
  { name: 'getArtist', handler: getArtist },
  { name: 'getAlbum', handler: getAlbum },
  { name: 'getSong', handler: getSong },
  { name: 'getMusicDirectory', handler: getMusicDirectory },
  {
    name: 'getGenres',
    handler: (call) => ({
      genres: {
        genre: call.rc.library.genres().map((g) => ({ value: g.name, songCount: g.songs, albumCount: g.albums })),
      },
    }),
  },
  { name: 'getArtistInfo', handler: (call) => artistInfo(call, 'artistInfo') },
  { name: 'getArtistInfo2', handler: (call) => artistInfo(call, 'artistInfo2') },
  { name: 'getAlbumInfo', handler: albumInfo },
  { name: 'getAlbumInfo2', handler: albumInfo },
  { name: 'getSimilarSongs', handler: (call) => similarSongs(call, 'similarSongs') },
  { name: 'getSimilarSongs2', handler: (call) => similarSongs(call, 'similarSongs2') },
  { name: 'getTopSongs', handler: getTopSongs },
];
