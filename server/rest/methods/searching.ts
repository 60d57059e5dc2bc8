import { searchTerm } from '../../db/subsonicLibrary.js';
import type { RestCall, RestMethod } from '../context.js';
import { indexArtist } from '../serialize.js';
import type { Payload } from '../wire.js';
import { albumDirs, albums, artists, inMusicFolder, songs } from '../views.js';

/**
 * search2/search3. An empty query, `""` or `*` means everything: offline clients (Symfonium) sync
 * whole libraries that way, one kind at a time, 500 per page, so those pages walk an index in id order.
 */
function search(call: RestCall, v3: boolean): Payload {
  const element = v3 ? 'searchResult3' : 'searchResult2';
  const p = call.params;
  const artistCount = p.int('artistCount', 20, { min: 0, max: 1000 });
  const albumCount = p.int('albumCount', 20, { min: 0, max: 1000 });
  const songCount = p.int('songCount', 20, { min: 0, max: 1000 });
  const artistOffset = p.int('artistOffset', 0, { min: 0 });
  const albumOffset = p.int('albumOffset', 0, { min: 0 });
  const songOffset = p.int('songOffset', 0, { min: 0 });
  if (!inMusicFolder(call)) return { [element]: { artist: [], album: [], song: [] } };
  const term = searchTerm(p.string('query'));
  const lib = call.rc.library;
  const artistIds = lib.searchIds('artist', term, artistCount, artistOffset);
  const albumIds = lib.searchIds('album', term, albumCount, albumOffset);
  const songIds = lib.searchIds('track', term, songCount, songOffset);
  let artistList: Payload[];
  if (v3) artistList = artists(call, artistIds);
  else {
    const ann = call.rc.userData.annotations(call.user.id, 'artist', artistIds);
    artistList = lib.artists(artistIds).map((r) => indexArtist(r, ann.get(r.id)));
  }
  return {
    [element]: {
      artist: artistList,
      album: v3 ? albums(call, albumIds) : albumDirs(call, albumIds),
      song: songs(call, songIds),
    },
  };
}

export const searchMethods: RestMethod[] = [
  { name: 'search2', handler: (call) => search(call, false) },
  { name: 'search3', handler: (call) => search(call, true) },
];
