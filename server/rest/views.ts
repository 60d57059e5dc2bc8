import type { RestCall } from './context.js';
import { notFound } from './errors.js';
import { parseId, type EntityKind, type ParsedId } from './ids.js';
import { albumChild, albumID3, artistID3, child } from './serialize.js';
import type { Payload } from './wire.js';

/** Id resolution and page hydration shared by the method groups. */

export function resolveEntity(call: RestCall, id: string, kind: EntityKind): number {
  const parsed = parseId(id);
  if (!parsed || parsed.kind !== kind) throw notFound(`${kind === 'track' ? 'Song' : kind === 'album' ? 'Album' : 'Artist'} not found`);
  const entity = call.rc.ids.resolve(kind, parsed.key);
  if (entity === undefined) throw notFound(`${kind === 'track' ? 'Song' : kind === 'album' ? 'Album' : 'Artist'} not found`);
  return entity;
}

/** Any of our ids, resolved to its kind and row id; throws 70 when unknown. */
export function resolveAny(call: RestCall, id: string): { kind: EntityKind; id: number } | { kind: 'playlist'; id: number } {
  const parsed: ParsedId | null = parseId(id);
  if (!parsed) throw notFound();
  if (parsed.kind === 'playlist') return parsed;
  const entity = call.rc.ids.resolve(parsed.kind, parsed.key);
  if (entity === undefined) throw notFound();
  return { kind: parsed.kind, id: entity };
}

export const resolveTrack = (call: RestCall, id: string) => resolveEntity(call, id, 'track');

export function songs(call: RestCall, ids: number[], withBookmarks = false): Payload[] {
  const rows = call.rc.library.songs(ids).filter((r) => r.available === 1);
  const ann = call.rc.userData.annotations(call.user.id, 'track', rows.map((r) => r.id));
  const marks = withBookmarks ? call.rc.userData.bookmarkPositions(call.user.id, rows.map((r) => r.id)) : undefined;
  return rows.map((r) => child(r, ann.get(r.id), marks?.get(r.id)));
}

/** Songs keyed by row id (for lists that carry extra fields per entry). */
export function songsById(call: RestCall, ids: number[]): Map<number, Payload> {
  const rows = call.rc.library.songs(ids).filter((r) => r.available === 1);
  const ann = call.rc.userData.annotations(call.user.id, 'track', rows.map((r) => r.id));
  return new Map(rows.map((r) => [r.id, child(r, ann.get(r.id))]));
}

export function albums(call: RestCall, ids: number[]): Payload[] {
  const rows = call.rc.library.albums(ids);
  const ann = call.rc.userData.annotations(call.user.id, 'album', ids);
  return rows.map((r) => albumID3(r, ann.get(r.id)));
}

export function albumDirs(call: RestCall, ids: number[]): Payload[] {
  const rows = call.rc.library.albums(ids);
  const ann = call.rc.userData.annotations(call.user.id, 'album', ids);
  return rows.map((r) => albumChild(r, ann.get(r.id)));
}

export function artists(call: RestCall, ids: number[]): Payload[] {
  const rows = call.rc.library.artists(ids);
  const ann = call.rc.userData.annotations(call.user.id, 'artist', ids);
  return rows.map((r) => artistID3(r, ann.get(r.id)));
}

/** Music folder filter: one folder (id 1) holds the whole library. */
export function inMusicFolder(call: RestCall): boolean {
  const folder = call.params.string('musicFolderId');
  return folder === undefined || folder === '' || folder === '1';
}
