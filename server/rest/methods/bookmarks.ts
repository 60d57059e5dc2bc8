import type { RestCall, RestMethod } from '../context.js';
import { invalidParameter, notFound } from '../errors.js';
import { parseId } from '../ids.js';
import { iso } from '../serialize.js';
import type { Payload } from '../wire.js';
import { resolveTrack, songsById } from '../views.js';

function getBookmarks(call: RestCall): Payload {
  const rows = call.rc.userData.bookmarks(call.user.id);
  const children = songsById(call, rows.map((r) => r.track_id));
  const bookmark: Payload[] = [];
  for (const r of rows) {
    const entry = children.get(r.track_id);
    if (!entry) continue;
    bookmark.push({
      position: r.position_ms,
      username: call.user.username,
      comment: r.comment ?? undefined,
      created: iso(r.created_at),
      changed: iso(r.changed_at),
      entry,
    });
  }
  return { bookmarks: { bookmark } };
}

/** The saved queue with unavailable entries left out; the current index follows the filtered list. */
function queue(call: RestCall): { payload: Payload; currentIndex: number | undefined } {
  const saved = call.rc.userData.playQueue(call.user.id);
  // No saved queue: an empty one that never changed, so a client's own queue wins.
  if (!saved) return { currentIndex: undefined, payload: { username: call.user.username, changed: iso(0), changedBy: '' } };
  const children = songsById(call, [...new Set(saved.trackIds)]);
  const entry: Payload[] = [];
  let currentIndex: number | undefined;
  saved.trackIds.forEach((id, i) => {
    const child = children.get(id);
    if (!child) return;
    if (i === saved.state.current_index) currentIndex = entry.length;
    entry.push(child);
  });
  return {
    currentIndex,
    payload: {
      position: saved.state.position_ms,
      username: call.user.username,
      changed: iso(saved.state.changed_at),
      changedBy: saved.state.changed_by ?? '',
      entry,
    },
  };
}

function savePlayQueue(call: RestCall, byIndex: boolean): undefined {
  const trackIds = call.params.list('id').map((raw) => resolveTrack(call, raw));
  const position = call.params.int('position', 0, { min: 0 });
  let currentIndex = 0;
  if (byIndex) {
    currentIndex = call.params.int('currentIndex', 0, { min: 0 });
    if (trackIds.length > 0 && currentIndex >= trackIds.length) throw invalidParameter('currentIndex', 'outside the queue');
  } else {
    const current = call.params.string('current');
    if (current) {
      const parsed = parseId(current);
      const currentId = parsed && parsed.kind === 'track' ? resolveTrack(call, current) : undefined;
      if (currentId === undefined) throw notFound('Song not found');
      currentIndex = Math.max(0, trackIds.indexOf(currentId));
    }
  }
  call.rc.listening.saveQueue(call.user.id, { trackIds, currentIndex, positionMs: position, changedBy: call.client });
  return undefined;
}

export const bookmarkMethods: RestMethod[] = [
  { name: 'getBookmarks', handler: getBookmarks },
  {
    name: 'createBookmark',
    handler: (call) => {
      const trackId = resolveTrack(call, call.params.required('id'));
      const position = call.params.requiredInt('position');
      if (position < 0) throw invalidParameter('position', 'must not be negative');
      call.rc.listening.saveBookmark(call.user.id, trackId, position, call.params.string('comment') ?? null);
      return undefined;
    },
  },
  {
    name: 'deleteBookmark',
    handler: (call) => {
      const trackId = resolveTrack(call, call.params.required('id'));
      if (!call.rc.listening.deleteBookmark(call.user.id, trackId)) throw notFound('Bookmark not found');
      return undefined;
    },
  },
  {
    name: 'getPlayQueue',
    handler: (call) => {
      const q = queue(call);
      const entries = (q.payload.entry ?? []) as Payload[];
      const current = q.currentIndex !== undefined ? entries[q.currentIndex]?.id : undefined;
      return { playQueue: { ...(current !== undefined && { current }), ...q.payload } };
    },
  },
  { name: 'savePlayQueue', handler: (call) => savePlayQueue(call, false) },
  {
    name: 'getPlayQueueByIndex',
    handler: (call) => {
      const q = queue(call);
      return { playQueueByIndex: { ...(q.currentIndex !== undefined && { currentIndex: q.currentIndex }), ...q.payload } };
    },
  },
  { name: 'savePlayQueueByIndex', handler: (call) => savePlayQueue(call, true) },
];
