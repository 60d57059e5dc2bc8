import type { PlaylistRow } from '../../db/playlists.js';
import { artworkOf } from '../../domain/playlists/artwork.js';
import { staticRef } from '../../domain/playlists/registry.js';
import type { RestCall, RestMethod } from '../context.js';
import { missingParameter, notAuthorized, notFound } from '../errors.js';
import { parseId } from '../ids.js';
import { playlist } from '../serialize.js';
import type { Payload } from '../wire.js';
import { resolveTrack, songs } from '../views.js';

function playlistRowId(raw: string): number {
  const parsed = parseId(raw);
  if (!parsed || parsed.kind !== 'playlist') throw notFound('Playlist not found');
  return parsed.id;
}

const hasArtwork = (call: RestCall, row: PlaylistRow) => artworkOf(call.rc.app).info(staticRef(row)) !== null;

function playlistWithSongs(call: RestCall, id: number): Payload {
  const { playlist: row, trackIds } = call.rc.playlists.get(call.user.id, id);
  const entry = songs(call, trackIds);
  const cover = row.first_track_id !== null ? call.rc.library.song(row.first_track_id) : undefined;
  return { playlist: { ...playlist(row, call.user.id, cover, hasArtwork(call, row)), entry } };
}

function getPlaylists(call: RestCall): Payload {
  const username = call.params.string('username');
  let rows;
  if (username && username.toLowerCase() !== call.user.username.toLowerCase()) {
    if (call.user.role !== 'admin') throw notAuthorized('Only administrators can list another user\'s playlists');
    const other = call.rc.app.users.findByUsername(username);
    if (!other) throw notFound('User not found');
    rows = call.rc.playlists.visibleTo(other.id).filter((r) => r.user_id === other.id);
  } else {
    rows = call.rc.playlists.visibleTo(call.user.id);
  }
  const firsts = call.rc.library.songs(rows.map((r) => r.first_track_id).filter((t): t is number => t !== null));
  const byId = new Map(firsts.map((s) => [s.id, s]));
  return {
    playlists: {
      playlist: rows.map((r) => playlist(r, call.user.id, r.first_track_id !== null ? byId.get(r.first_track_id) : undefined, hasArtwork(call, r))),
    },
  };
}

function createPlaylist(call: RestCall): Payload {
  const trackIds = call.params.list('songId').map((s) => resolveTrack(call, s));
  const existing = call.params.string('playlistId');
  if (existing) {
    const id = playlistRowId(existing);
    const name = call.params.string('name');
    call.rc.playlists.update(call.user.id, id, { trackIds, ...(name && { name }) });
    return playlistWithSongs(call, id);
  }
  const name = call.params.string('name');
  if (!name) throw missingParameter('name');
  const id = call.rc.playlists.create(call.user.id, name, trackIds);
  return playlistWithSongs(call, id);
}

function updatePlaylist(call: RestCall): undefined {
  const id = playlistRowId(call.params.required('playlistId'));
  const name = call.params.string('name');
  const comment = call.params.string('comment');
  const isPublic = call.params.has('public') ? call.params.bool('public', false) : undefined;
  const addTrackIds = call.params.list('songIdToAdd').map((s) => resolveTrack(call, s));
  const removeIndexes = call.params.intList('songIndexToRemove');
  call.rc.playlists.update(call.user.id, id, {
    ...(name !== undefined && name !== '' && { name }),
    ...(comment !== undefined && { comment }),
    ...(isPublic !== undefined && { public: isPublic }),
    addTrackIds,
    removeIndexes,
  });
  return undefined;
}

export const playlistMethods: RestMethod[] = [
  { name: 'getPlaylists', handler: getPlaylists },
  { name: 'getPlaylist', handler: (call) => playlistWithSongs(call, playlistRowId(call.params.required('id'))) },
  { name: 'createPlaylist', handler: createPlaylist },
  { name: 'updatePlaylist', handler: updatePlaylist },
  {
    name: 'deletePlaylist',
    handler: (call) => {
      call.rc.playlists.delete(call.user.id, playlistRowId(call.params.required('id')));
      return undefined;
    },
  },
];
