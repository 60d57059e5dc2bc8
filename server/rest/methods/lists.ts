import type { AlbumListType } from '../../db/subsonicLibrary.js';
import type { RestCall, RestMethod } from '../context.js';
import { invalidParameter, missingParameter } from '../errors.js';
import { indexArtist } from '../serialize.js';
import type { Payload } from '../wire.js';
import { albumDirs, albums, artists, inMusicFolder, songs, songsById } from '../views.js';

const LIST_TYPES = new Set<AlbumListType>([
  'newest', 'alphabeticalByName', 'alphabeticalByArtist', 'byYear', 'byGenre', 'random', 'starred', 'frequent', 'recent', 'highest',
]);

function albumListIds(call: RestCall): number[] {
  const type = call.params.required('type') as AlbumListType;
  if (!LIST_TYPES.has(type)) throw invalidParameter('type', `unknown list type ${type}`);
  const size = call.params.int('size', 10, { min: 0, max: 500 });
  const offset = call.params.int('offset', 0, { min: 0 });
  if (!inMusicFolder(call)) return [];
  if (type === 'byYear') {
    if (!call.params.string('fromYear')) throw missingParameter('fromYear');
    if (!call.params.string('toYear')) throw missingParameter('toYear');
  }
  const genre = type === 'byGenre' ? call.params.required('genre') : undefined;
  return call.rc.library.albumListIds({
    type,
    size,
    offset,
    userId: call.user.id,
    ...(type === 'byYear' && { fromYear: call.params.requiredInt('fromYear'), toYear: call.params.requiredInt('toYear') }),
    ...(genre !== undefined && { genre }),
  });
}

function randomSongs(call: RestCall): Payload {
  const size = call.params.int('size', 10, { min: 0, max: 500 });
  if (!inMusicFolder(call)) return { randomSongs: { song: [] } };
  const genre = call.params.string('genre');
  const fromYear = call.params.optionalInt('fromYear');
  const toYear = call.params.optionalInt('toYear');
  const ids = call.rc.library.randomSongIds(size, {
    ...(genre && { genre }),
    ...(fromYear !== undefined && { fromYear }),
    ...(toYear !== undefined && { toYear }),
  });
  return { randomSongs: { song: songs(call, ids) } };
}

function starred(call: RestCall, v2: boolean): Payload {
  const element = v2 ? 'starred2' : 'starred';
  if (!inMusicFolder(call)) return { [element]: { artist: [], album: [], song: [] } };
  const data = call.rc.userData;
  const artistIds = data.starredIds(call.user.id, 'artist');
  const albumIds = data.starredIds(call.user.id, 'album');
  const songIds = data.starredIds(call.user.id, 'track');
  const visibleArtists = artists(call, artistIds);
  return {
    [element]: {
      artist: v2
        ? visibleArtists
        : (() => {
            const rows = call.rc.library.artists(artistIds);
            const ann = data.annotations(call.user.id, 'artist', artistIds);
            return rows.map((r) => indexArtist(r, ann.get(r.id)));
          })(),
      album: (v2 ? albums(call, albumIds) : albumDirs(call, albumIds)).filter((a) => (a.songCount ?? 1) !== 0),
      song: songs(call, songIds),
    },
  };
}

function nowPlaying(call: RestCall): Payload {
  const now = call.rc.app.clock.now();
  const entries = call.rc.nowPlaying.list();
  const children = songsById(call, [...new Set(entries.map((e) => e.trackId))]);
  const entry: Payload[] = [];
  for (const e of entries) {
    const child = children.get(e.trackId);
    if (!child) continue;
    entry.push({
      ...child,
      username: e.username,
      minutesAgo: Math.floor((now - e.startedAt) / 60_000),
      playerId: e.playerId,
      playerName: e.playerName,
    });
  }
  return { nowPlaying: { entry } };
}

export const listMethods: RestMethod[] = [
  { name: 'getAlbumList', handler: (call) => ({ albumList: { album: albumDirs(call, albumListIds(call)) } }) },
  { name: 'getAlbumList2', handler: (call) => ({ albumList2: { album: albums(call, albumListIds(call)) } }) },
  { name: 'getRandomSongs', handler: randomSongs },
  {
    name: 'getSongsByGenre',
    handler: (call) => {
      const genre = call.params.required('genre');
      const count = call.params.int('count', 10, { min: 0, max: 500 });
      const offset = call.params.int('offset', 0, { min: 0 });
      if (!inMusicFolder(call)) return { songsByGenre: { song: [] } };
      return { songsByGenre: { song: songs(call, call.rc.library.genreSongIds(genre, count, offset)) } };
    },
  },
  { name: 'getNowPlaying', handler: nowPlaying },
  { name: 'getStarred', handler: (call) => starred(call, false) },
  { name: 'getStarred2', handler: (call) => starred(call, true) },
];
