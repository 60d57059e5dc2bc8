import type { PlaylistRegistry, PlaylistRef, PlaylistViewer } from '../../domain/playlists/registry.js';
import type { RestCall, RestMethod } from '../context.js';
import { missingParameter, notAuthorized, notFound } from '../errors.js';
import { parseId } from '../ids.js';
import { playlistOfRef } from '../serialize.js';
import type { Payload } from '../wire.js';
import { resolveTrack, songs } from '../views.js';

/**
 * Playlists of every kind the user may see (decisions §9): their static playlists and public ones,
 * flows and shared playlists, through the playlist registry. Only static playlists are changed
 * here; the others are read-only (error 50 on a change), whoever owns them.
 */

const viewerOf = (call: RestCall): PlaylistViewer => ({ id: call.user.id, role: call.user.role });

/** The playlist behind a `pl-` id if the user may see it, else error 70. */
function refOf(call: RestCall, raw: string): PlaylistRef {
  const parsed = parseId(raw);
  if (!parsed || parsed.kind !== 'playlist') throw notFound('Playlist not found');
  const registry = call.rc.app.playlists;
  const ref = registry.findByRestNumber(parsed.id);
  if (!ref || !registry.canSee(ref, viewerOf(call))) throw notFound('Playlist not found');
  return ref;
}

/** A static playlist the user may change through /rest; error 50 for other kinds. */
function staticRowId(call: RestCall, raw: string): number {
  const ref = refOf(call, raw);
  if (ref.kind !== 'static') throw notAuthorized(`This ${ref.kind === 'flow' ? 'flow' : 'shared playlist'} cannot be changed from a Subsonic client`);
  return Number(ref.id);
}

/**
 * Whether the viewer may change the playlist through /rest: only static playlists they may edit
 * (flows and shared playlists answer error 50 here even to their owner, so they are `readonly`).
 */
function editableHere(registry: PlaylistRegistry, ref: PlaylistRef, viewer: PlaylistViewer): boolean {
  return ref.kind === 'static' && registry.canEdit(ref, viewer);
}

function present(call: RestCall, ref: PlaylistRef): Payload {
  const registry = call.rc.app.playlists;
  const cover = ref.firstTrackId !== null ? call.rc.library.song(ref.firstTrackId) : undefined;
  return playlistOfRef(ref, editableHere(registry, ref, viewerOf(call)), cover, call.rc.app.playlistArtwork.info(ref) !== null);
}

function playlistWithSongs(call: RestCall, ref: PlaylistRef): Payload {
  const registry = call.rc.app.playlists;
  const fresh = registry.find(ref.id) ?? ref;
  const entry = songs(call, registry.trackIds(fresh));
  return { playlist: { ...present(call, fresh), entry } };
}

function getPlaylists(call: RestCall): Payload {
  const registry = call.rc.app.playlists;
  const username = call.params.string('username');
  let refs: PlaylistRef[];
  if (username && username.toLowerCase() !== call.user.username.toLowerCase()) {
    if (call.user.role !== 'admin') throw notAuthorized('Only administrators can list another user\'s playlists');
    const other = call.rc.app.users.findByUsername(username);
    if (!other) throw notFound('User not found');
    refs = registry.visibleTo({ id: other.id, role: other.role }).filter((r) => r.ownerUserId === other.id);
  } else {
    refs = registry.visibleTo(viewerOf(call));
  }
  const artwork = call.rc.app.playlistArtwork;
  const firsts = call.rc.library.songs(refs.map((r) => r.firstTrackId).filter((t): t is number => t !== null));
  const byId = new Map(firsts.map((s) => [s.id, s]));
  const viewer = viewerOf(call);
  return {
    playlists: {
      playlist: refs.map((r) =>
        playlistOfRef(r, editableHere(registry, r, viewer), r.firstTrackId !== null ? byId.get(r.firstTrackId) : undefined, artwork.info(r) !== null),
      ),
    },
  };
}

function staticRef(call: RestCall, id: number): PlaylistRef {
  const ref = call.rc.app.playlists.find(String(id));
  if (!ref) throw notFound('Playlist not found');
  return ref;
}

function createPlaylist(call: RestCall): Payload {
  const trackIds = call.params.list('songId').map((s) => resolveTrack(call, s));
  const existing = call.params.string('playlistId');
  if (existing) {
    const id = staticRowId(call, existing);
    const name = call.params.string('name');
    call.rc.playlists.update(call.user.id, id, { trackIds, ...(name && { name }) });
    return playlistWithSongs(call, staticRef(call, id));
  }
  const name = call.params.string('name');
  if (!name) throw missingParameter('name');
  const id = call.rc.playlists.create(call.user.id, name, trackIds);
  return playlistWithSongs(call, staticRef(call, id));
}

function updatePlaylist(call: RestCall): undefined {
  const id = staticRowId(call, call.params.required('playlistId'));
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
  { name: 'getPlaylist', handler: (call) => playlistWithSongs(call, refOf(call, call.params.required('id'))) },
  { name: 'createPlaylist', handler: createPlaylist },
  { name: 'updatePlaylist', handler: updatePlaylist },
  {
    name: 'deletePlaylist',
    handler: (call) => {
      call.rc.playlists.delete(call.user.id, staticRowId(call, call.params.required('id')));
      return undefined;
    },
  },
];
