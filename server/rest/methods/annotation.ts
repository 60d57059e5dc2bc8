import type { ListenedKind as AnnotatedKind } from '../../domain/listening/service.js';
import { isPlayTime } from '../../domain/timestamps.js';
import type { RestCall, RestMethod } from '../context.js';
import { invalidParameter, missingParameter, notFound } from '../errors.js';
import { resolveAny, resolveEntity, resolveTrack } from '../views.js';

/** Every id of a star/unstar call, resolved before anything changes (one unknown id: 70, no change). */
function starTargets(call: RestCall): { kind: AnnotatedKind; id: number }[] {
  const targets: { kind: AnnotatedKind; id: number }[] = [];
  for (const raw of call.params.list('id')) {
    const t = resolveAny(call, raw);
    if (t.kind === 'playlist') throw notFound('Playlists cannot be starred');
    targets.push({ kind: t.kind, id: t.id });
  }
  for (const raw of call.params.list('albumId')) targets.push({ kind: 'album', id: resolveEntity(call, raw, 'album') });
  for (const raw of call.params.list('artistId')) targets.push({ kind: 'artist', id: resolveEntity(call, raw, 'artist') });
  if (targets.length === 0) throw missingParameter('id, albumId or artistId');
  return targets;
}

function scrobble(call: RestCall): undefined {
  const ids = call.params.list('id');
  if (ids.length === 0) throw missingParameter('id');
  const times = call.params.intList('time');
  // A time no date can show would be stored and then break every answer that reports when a song was played.
  if (times.some((t) => !isPlayTime(t))) throw invalidParameter('time', 'must be milliseconds since 1970, before the year 10000');
  const submission = call.params.bool('submission', true);
  const now = call.rc.app.clock.now();
  const trackIds = ids.map((raw) => resolveTrack(call, raw));
  const rows = call.rc.library.songs(trackIds);
  const byId = new Map(rows.map((r) => [r.id, r]));
  trackIds.forEach((trackId, i) => {
    const row = byId.get(trackId);
    if (!row) throw notFound('Song not found');
    const play = {
      trackId,
      title: row.title,
      artist: row.artist_name,
      album: row.album_title,
      artistMbid: null,
      albumMbid: null,
      trackMbid: row.mbid,
      durationMs: row.duration_ms || null,
      playedAt: times[i] ?? now,
      source: 'subsonic',
    };
    if (!submission) {
      call.rc.nowPlaying.set(call.user.id, call.user.username, call.client, trackId);
      call.rc.listening.nowPlaying(call.user.id, play);
      return;
    }
    // Counted in the song's and album's play counts, unless a flow keeps the track out of the history.
    call.rc.listening.recordPlay(call.user.id, play, { albumId: row.album_id });
    call.rc.nowPlaying.finished(call.user.id, call.client, trackId);
  });
  return undefined;
}

export const annotationMethods: RestMethod[] = [
  {
    name: 'star',
    handler: (call) => {
      call.rc.listening.setFavorites(call.user.id, starTargets(call), true);
      return undefined;
    },
  },
  {
    name: 'unstar',
    handler: (call) => {
      call.rc.listening.setFavorites(call.user.id, starTargets(call), false);
      return undefined;
    },
  },
  {
    name: 'setRating',
    handler: (call) => {
      const target = resolveAny(call, call.params.required('id'));
      const rating = call.params.requiredInt('rating');
      if (rating < 0 || rating > 5) throw invalidParameter('rating', 'must be 0 to 5');
      if (target.kind === 'playlist') throw notFound('Playlists cannot be rated');
      call.rc.listening.setRating(call.user.id, target.kind, target.id, rating);
      return undefined;
    },
  },
  { name: 'scrobble', handler: scrobble },
];
