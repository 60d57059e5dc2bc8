import { ApiError, api } from '../api';
import { readableError } from '../messages';
import { session } from '../session';
import type { PlaylistArtwork, PlaylistDetail, PlaylistSummary } from './logic';
import { withBase } from '../base';

/** Every request the Playlists screen makes. */

const one = (id: string) => `/api/playlists/playlists/${encodeURIComponent(id)}`;
const art = (id: string) => `/api/playlists/artwork/${encodeURIComponent(id)}`;

export function listPlaylists(signal?: AbortSignal): Promise<{ playlists: PlaylistSummary[] }> {
  return api('/api/playlists/playlists', { ...(signal && { signal }) });
}

export function getPlaylist(id: string, signal?: AbortSignal): Promise<PlaylistDetail> {
  return api(one(id), { ...(signal && { signal }) });
}

export function createPlaylist(name: string, trackIds?: number[]): Promise<PlaylistSummary> {
  return api('/api/playlists/playlists', { method: 'POST', body: { name, ...(trackIds && trackIds.length > 0 && { trackIds }) } });
}

/** Appends tracks at the end of a playlist. */
export function addTracks(id: string, trackIds: number[]): Promise<PlaylistDetail> {
  return api(one(id), { method: 'PUT', body: { addTrackIds: trackIds } });
}

/** Replaces a playlist's track list (a new order). */
export function setTracks(id: string, trackIds: number[]): Promise<PlaylistDetail> {
  return api(one(id), { method: 'PUT', body: { trackIds } });
}

export function renamePlaylist(id: string, name: string): Promise<PlaylistDetail> {
  return api(one(id), { method: 'PUT', body: { name } });
}

export function removeEntry(id: string, position: number): Promise<PlaylistDetail> {
  return api(one(id), { method: 'PUT', body: { removeIndexes: [position] } });
}

export function deletePlaylist(id: string): Promise<{ success: boolean }> {
  return api(one(id), { method: 'DELETE' });
}

export function generateArtwork(id: string): Promise<PlaylistArtwork> {
  return api(`${art(id)}/generate`, { method: 'POST' });
}

export function removeArtwork(id: string): Promise<{ success: boolean; removed: boolean }> {
  return api(art(id), { method: 'DELETE' });
}

/** Sends the picture as the raw body (the route also takes multipart and JSON data URLs). */
export async function uploadArtwork(id: string, file: Blob): Promise<PlaylistArtwork> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': file.type || 'application/octet-stream' };
  const token = session.get().token;
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(withBase(art(id)), { method: 'PUT', headers, body: file });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check that Tonearm is running.', 'NETWORK', null);
  }
  const body = (await res.json().catch(() => null)) as (PlaylistArtwork & { error?: string; message?: string; code?: string }) | null;
  if (res.ok && body) return body;
  const err: { error?: string; message?: string; code?: string } = body ?? {};
  const text = readableError(err) ?? err.message ?? err.error ?? `Upload failed (${res.status})`;
  throw new ApiError(res.status, text, err.code, body);
}
