import type { AnnotatedKind } from '../../db/subsonicUserData.js';
import { forwardNowPlaying, forwardPlay } from '../../domain/scrobbling/service.js';
import { isPlayTime } from '../../domain/timestamps.js';
import type { RestCall, RestMethod } from '../context.js';
import { invalidParameter, missingParameter, notFound } from '../errors.js';
import { resolveAny, resolveEntity, resolveTrack } from '../views.js';
import { playOutsideHistory } from '../../domain/flows/files.js';

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
      title: row.title,
      artist: row.artist_name,
      album: row.album_title,
      trackMbid: row.mbid,
      durationMs: row.duration_ms || null,
      playedAt: times[i] ?? now,
    };
    const forwarded = { ...play, artist: play.artist ?? '', albumMbid: null, artistMbid: null };
    if (!submission) {
      call.rc.nowPlaying.set(call.user.id, call.user.username, call.client, trackId);
      forwardNowPlaying(call.rc.app, call.user.id, forwarded);
      return;
    }
    // A track of a flow that keeps out of the history (recordHistory off) is played, not recorded.
    if (playOutsideHistory(call.rc.app.db, call.user.id, trackId)) {
      call.rc.nowPlaying.finished(call.user.id, call.client, trackId);
      return;
    }
    // The play and its outbox rows in one transaction; forwarding makes no network call here.
    call.rc.app.db.transaction(() => {
      const eventId = call.rc.userData.recordPlay(call.user.id, { trackId, albumId: row.album_id, ...play }, now);
      forwardPlay(call.rc.app, call.user.id, eventId, forwarded);
    }).immediate();
    call.rc.nowPlaying.finished(call.user.id, call.client, trackId);
  });
  return undefined;
}

export const annotationMethods: RestMethod[] = [
  {
    name: 'star',
    handler: (call) => {
      call.rc.userData.setStars(call.user.id, starTargets(call), true, call.rc.app.clock.now());
      return undefined;
    },
  },
  {
    name: 'unstar',
    handler: (call) => {
      call.rc.userData.setStars(call.user.id, starTargets(call), false, call.rc.app.clock.now());
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
      call.rc.userData.setRating(call.user.id, target.kind, target.id, rating);
      return undefined;
    },
  },
  { name: 'scrobble', handler: scrobble },
];
