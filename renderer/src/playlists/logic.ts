/** The pure parts of the Playlists screen: shapes of the answers, texts, upload checks. */
import type { Answer } from '../wire.js';

/** A playlist's picture (every kind of playlist has one). */
export type PlaylistArtwork = Answer<'/api/playlists/artwork/{playlistId}', 'put'>;

export type PlaylistSummary = Answer<'/api/playlists/playlists'>['playlists'][number];

/** A static playlist with its tracks, as GET and PUT /api/playlists/playlists/:id answer. */
export type PlaylistDetail = Answer<'/api/playlists/playlists/{playlistId}'>;

export type PlaylistEntry = PlaylistDetail['tracks'][number];

/** A library track as the playlist routes present it (a library `Track` for the player). */
export type PlaylistTrack = PlaylistEntry['track'];

/** The server's cap on uploads (PUT /api/playlists/artwork answers 413 above it). */
export const MAX_ARTWORK_BYTES = 10 * 1024 * 1024;

/** Why a chosen file cannot be uploaded, or null when it may be sent. */
export function uploadProblem(file: { name: string; type: string; size: number }): string | null {
  if (file.size === 0) return `${file.name} is empty.`;
  if (file.size > MAX_ARTWORK_BYTES) return `${file.name} is ${(file.size / (1024 * 1024)).toFixed(1)} MB; pictures can be at most 10 MB.`;
  if (file.type && (!file.type.startsWith('image/') || file.type === 'image/svg+xml'))
    return `${file.name} is not a picture Tonearm can use (JPEG, PNG, WebP, GIF, AVIF or TIFF).`;
  return null;
}

/**
 * The `<img src>` of a playlist's artwork at a display size. Images cannot send the Authorization
 * header, so the session token rides in the query (the artwork route accepts it like the media routes).
 */
export function artworkSrc(artwork: PlaylistArtwork | null, size: number, token: string | null): string | null {
  if (!artwork) return null;
  const params = new URLSearchParams(artwork.url.split('?')[1] ?? '');
  params.set('size', String(size));
  if (token) params.set('token', token);
  return `${artwork.url.split('?')[0]}?${params.toString()}`;
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * How long a playlist plays: "0:12" and "9:59" under ten minutes (as a track's time reads), then
 * "48 min" and "1 h 35 min".
 */
export function playlistLength(durationMs: number): string {
  const seconds = Math.max(0, Math.round(durationMs / 1000));
  if (seconds < 600) return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  const minutes = Math.round(seconds / 60);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

/** "12 tracks · 48 min", "1 track · 2:50", "Empty". */
export function summaryText(p: Pick<PlaylistSummary, 'songCount' | 'durationMs'>): string {
  if (p.songCount === 0) return 'Empty';
  return `${plural(p.songCount, 'track')} · ${playlistLength(p.durationMs)}`;
}

/** Who sees it: "Only you", "Public", or "Public · by alice" for someone else's. */
export function ownershipText(p: Pick<PlaylistSummary, 'editable' | 'public' | 'owner'>): string {
  if (p.editable) return p.public ? 'Public' : 'Only you';
  return `Public · by ${p.owner}`;
}

/** The tracks to hand to the player, in playlist order. */
export function playableTracks(detail: Pick<PlaylistDetail, 'tracks'>): PlaylistTrack[] {
  return detail.tracks.map((e) => e.track);
}

/** The list as it looks right after removing one entry (the answer of the server replaces it). */
export function withoutEntry(detail: PlaylistDetail, position: number): PlaylistDetail {
  const tracks = detail.tracks.filter((e) => e.position !== position).map((e) => (e.position > position ? { ...e, position: e.position - 1 } : e));
  const removed = detail.tracks.find((e) => e.position === position);
  return {
    ...detail,
    tracks,
    songCount: Math.max(0, detail.songCount - (removed ? 1 : 0)),
    durationMs: Math.max(0, detail.durationMs - (removed?.track.durationMs ?? 0)),
  };
}

/**
 * The list after moving the entry at `from` to index `to` (indexes into `detail.tracks`), positions
 * renumbered; the same list when the move goes nowhere.
 */
export function withEntryMoved(detail: PlaylistDetail, from: number, to: number): PlaylistDetail {
  const n = detail.tracks.length;
  if (from === to || from < 0 || to < 0 || from >= n || to >= n) return detail;
  const tracks = [...detail.tracks];
  const [moved] = tracks.splice(from, 1);
  tracks.splice(to, 0, moved!);
  return { ...detail, tracks: tracks.map((e, i) => ({ ...e, position: i })) };
}

/** The track ids of a list in its order (what replacing the tracks sends). */
export function trackIdsOf(detail: Pick<PlaylistDetail, 'tracks'>): number[] {
  return detail.tracks.map((e) => e.track.id);
}

/** "Added 3 tracks to Road trip." */
export function addedText(count: number, name: string): string {
  return `Added ${plural(count, 'track')} to ${name}.`;
}

/** The queue's library tracks (previews from outside the library cannot go in a playlist). */
export function savableTrackIds(tracks: { id: number; previewUrl?: string }[]): number[] {
  return tracks.filter((t) => !t.previewUrl && Number.isInteger(t.id) && t.id > 0).map((t) => t.id);
}

/** A new name after trimming, or the reason it cannot be used. */
export function checkName(name: string): { ok: true; name: string } | { ok: false; message: string } {
  const trimmed = name.trim();
  if (!trimmed) return { ok: false, message: 'A playlist needs a name.' };
  if (trimmed.length > 200) return { ok: false, message: 'Names can be at most 200 characters.' };
  return { ok: true, name: trimmed };
}

/** What the artwork buttons say, from what the playlist has now. */
export function artworkLabel(artwork: PlaylistArtwork | null): string {
  if (!artwork) return 'No artwork yet';
  return artwork.source === 'generated' ? 'Generated from the album covers; redrawn when the tracks change' : 'Uploaded picture';
}
