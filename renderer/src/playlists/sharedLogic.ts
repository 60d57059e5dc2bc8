// A type-only import (erased from the bundle) spelled with .js so the server's typecheck of the tests resolves it too.
import type { Answer, Body } from '../wire.js';

/**
 * The pure parts of the shared-playlist screens: the shapes of /api/playlists/shared-playlists
 * (api.md 4.10), what each track's state means to a person, the sync line, and the import request.
 */

/** An entry's state: in the library, or the state of its download (`processing`: downloaded, joining the library). */
export type EntryStatus = 'available' | 'processing' | 'pending' | 'downloading' | 'blocked' | 'failed' | 'cancelled' | 'missing' | (string & {});

/** A track of a shared playlist, as GET /api/playlists/shared-playlists/:playlistId answers it. */
export type SharedEntry = SharedDetail['tracks'][number];

/** A shared playlist as the list answers it. */
export type SharedSummary = Answer<'/api/playlists/shared-playlists'>[number];

/** A shared playlist with its tracks (read, create, import and change answer it). */
export type SharedDetail = Answer<'/api/playlists/shared-playlists/{playlistId}'>;

/** The body of PUT /api/playlists/shared-playlists/:playlistId: name, description and the sync settings. */
export type SharedUpdate = Body<'/api/playlists/shared-playlists/{playlistId}', 'put'>;

export type ExportFormat = 'tonearm' | 'jspf' | 'm3u';
export const exportFormats: { id: ExportFormat; label: string }[] = [
  { id: 'tonearm', label: 'Tonearm (imports back unchanged)' },
  { id: 'jspf', label: 'JSPF (ListenBrainz)' },
  { id: 'm3u', label: 'M3U8' },
];

/** Where the track routes address an entry: its job, or its entry id once the job was cleared. */
export const entryKey = (e: Pick<SharedEntry, 'jobId' | 'entryId'>): string => e.jobId ?? String(e.entryId);

/** The three groups a person thinks in. */
export type EntryGroup = 'owned' | 'downloading' | 'missing';

export function entryGroup(status: EntryStatus): EntryGroup {
  if (status === 'available') return 'owned';
  if (status === 'pending' || status === 'downloading' || status === 'processing' || status === 'blocked') return 'downloading';
  return 'missing';
}

const STATUS_TEXT: Record<string, string> = {
  available: 'In your library',
  processing: 'Joining the library',
  pending: 'Waiting to download',
  downloading: 'Downloading',
  blocked: 'Needs review',
  failed: 'Not found',
  cancelled: 'Cancelled',
  missing: 'Missing',
};

export function statusText(e: Pick<SharedEntry, 'status' | 'error'>): string {
  const base = STATUS_TEXT[e.status] ?? e.status;
  return e.status === 'failed' && e.error ? `${base}: ${e.error}` : base;
}

/** Whether "Search again" makes sense: the search is over and found nothing (or was stopped). */
export const canResearch = (e: Pick<SharedEntry, 'status'>) => entryGroup(e.status) === 'missing';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** "12 tracks · 3 missing", "1 track", "Empty". */
export function countsText(p: Pick<SharedSummary, 'trackCount' | 'missingCount'>): string {
  if (p.trackCount === 0) return 'Empty';
  return p.missingCount > 0 ? `${plural(p.trackCount, 'track')} · ${p.missingCount.toLocaleString('en')} missing` : plural(p.trackCount, 'track');
}

/** "3 minutes ago", "2 hours ago", "4 days ago"; "just now" under a minute. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${plural(m, 'minute')} ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${plural(h, 'hour')} ago`;
  return `${plural(Math.round(h / 24), 'day')} ago`;
}

/** The sync state in one line; null for a playlist with no import source. */
export function syncText(p: Pick<SharedSummary, 'sourceUrl' | 'syncEnabled' | 'syncIntervalHours' | 'lastSyncedAt' | 'lastSyncError'>, now = Date.now()): string | null {
  if (!p.sourceUrl) return null;
  if (p.lastSyncError) return `Sync failed${p.lastSyncedAt ? ` ${ago(p.lastSyncedAt, now)}` : ''}: ${p.lastSyncError}`;
  const last = p.lastSyncedAt ? `synced ${ago(p.lastSyncedAt, now)}` : 'not synced yet';
  if (!p.syncEnabled) return `Sync off · ${last}`;
  const every = p.syncIntervalHours === 1 ? 'every hour' : p.syncIntervalHours % 24 === 0 ? (p.syncIntervalHours === 24 ? 'daily' : `every ${p.syncIntervalHours / 24} days`) : `every ${p.syncIntervalHours} hours`;
  return `Syncs ${every} · ${last}`;
}

/** Who may change it: "Yours", "By alice", "By alice · you can edit it" (an administrator). */
export function ownerText(p: Pick<SharedSummary, 'owner' | 'ownerUserId' | 'canEdit'>, myId: number | null): string {
  if (p.ownerUserId !== null && p.ownerUserId === myId) return 'Yours';
  const by = p.owner ? `By ${p.owner}` : 'Shared';
  return p.canEdit ? `${by} · you can edit it` : `${by} · read-only`;
}

/** What the player needs of a library track (a library `Track`). */
export interface PlayerTrack {
  id: number;
  title: string;
  artistName: string;
  albumTitle?: string | null;
  durationMs?: number;
  available?: boolean;
}

/** The library tracks of the playlist, in order, for the player (missing ones are left out). */
export function playableTracks(detail: Pick<SharedDetail, 'tracks'>): PlayerTrack[] {
  return detail.tracks
    .filter((e) => e.trackId !== null && e.status === 'available')
    .map((e) => ({
      id: Number(e.trackId),
      title: e.trackName,
      artistName: e.artistName,
      albumTitle: e.albumName,
      ...(e.durationMs !== null && { durationMs: e.durationMs }),
      available: true,
    }));
}

/** The playlist as it looks right after removing one entry (the server's answer replaces it). */
export function withoutTrack(detail: SharedDetail, key: string): SharedDetail {
  const removed = detail.tracks.find((e) => entryKey(e) === key);
  if (!removed) return detail;
  const owned = removed.status === 'available';
  return {
    ...detail,
    tracks: detail.tracks.filter((e) => e !== removed),
    trackCount: detail.trackCount - 1,
    availableCount: detail.availableCount - (owned ? 1 : 0),
    missingCount: detail.missingCount - (owned ? 0 : 1),
  };
}

/** Hours between syncs from what was typed, or why not. */
export function checkInterval(raw: string): { ok: true; hours: number } | { ok: false; message: string } {
  const hours = Number(raw);
  if (!Number.isInteger(hours) || hours < 1 || hours > 720) return { ok: false, message: 'Sync every 1 to 720 hours (30 days).' };
  return { ok: true, hours };
}

/** An http(s) address, or why not. */
export function checkUrl(raw: string): { ok: true; url: string } | { ok: false; message: string } {
  const url = raw.trim();
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return { ok: true, url };
  } catch {
    // falls through to the message
  }
  return { ok: false, message: 'Enter the playlist’s web address (http or https).' };
}

/** The body of POST /api/playlists/shared-playlists/import (a file's `content` or a `url`, the sync settings, a name). */
export type ImportBody = Body<'/api/playlists/shared-playlists/import', 'post'>;

const stem = (fileName: string) => fileName.replace(/\.[^.]+$/, '').trim();

/**
 * The body of POST /shared-playlists/import for a file: its text as `content` (the server tells
 * JSPF, M3U and its own export apart). An M3U file names no playlist unless it has a `#PLAYLIST:`
 * line, so the file's name stands in when the person typed none.
 */
export function fileImportBody(fileName: string, text: string, typedName: string): ImportBody {
  const name = typedName.trim();
  if (name) return { content: text, name };
  const isJson = /^\s*[{[]/.test(text.replace(/^\uFEFF/, ''));
  const named = isJson || /^#PLAYLIST:\s*\S/im.test(text);
  return named || !stem(fileName) ? { content: text } : { content: text, name: stem(fileName).slice(0, 200) };
}

/** The file name of an export from the Content-Disposition header (`filename*=UTF-8''…` or `filename="…"`). */
export function exportFileName(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // a broken encoding: try the plain form
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1]!.trim() : fallback;
}
