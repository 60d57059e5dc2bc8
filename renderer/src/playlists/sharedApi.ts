import { ApiError, api } from '../api';
import { readableError } from '../messages';
import { session } from '../session';
import { exportFileName, type ExportFormat, type ImportBody, type SharedDetail, type SharedSummary, type SharedUpdate } from './sharedLogic';
import { withBase } from '../base';
import type { Answer, Body } from '../wire.js';

/** Every request of the shared-playlist screens (api.md 4.10). */

const base = '/api/playlists/shared-playlists';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;
const track = (id: string, key: string) => `${one(id)}/tracks/${encodeURIComponent(key)}`;

export function listShared(signal?: AbortSignal): Promise<SharedSummary[]> {
  return api(base, { ...(signal && { signal }) });
}

export function getShared(id: string, signal?: AbortSignal): Promise<SharedDetail> {
  return api(one(id), { ...(signal && { signal }) });
}

export function createShared(body: Body<'/api/playlists/shared-playlists', 'post'>): Promise<Answer<'/api/playlists/shared-playlists', 'post'>> {
  return api(base, { method: 'POST', body });
}

export function importShared(body: ImportBody): Promise<Answer<'/api/playlists/shared-playlists/import', 'post'>> {
  return api(`${base}/import`, { method: 'POST', body });
}

export function updateShared(id: string, body: SharedUpdate): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}', 'put'>> {
  return api(one(id), { method: 'PUT', body });
}

export function deleteShared(id: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}', 'delete'>> {
  return api(one(id), { method: 'DELETE' });
}

export function addSharedTrack(id: string, artistName: string, trackName: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}/tracks', 'post'>> {
  return api(`${one(id)}/tracks`, { method: 'POST', body: { artistName, trackName } });
}

export function removeSharedTrack(id: string, key: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}/tracks/{jobId}', 'delete'>> {
  return api(track(id, key), { method: 'DELETE' });
}

export function researchTrack(id: string, key: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}/tracks/{jobId}/research', 'post'>> {
  return api(`${track(id, key)}/research`, { method: 'POST' });
}

export function researchMissing(id: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}/research-missing', 'post'>> {
  return api(`${one(id)}/research-missing`, { method: 'POST' });
}

export function syncShared(id: string): Promise<Answer<'/api/playlists/shared-playlists/{playlistId}/sync', 'post'>> {
  return api(`${one(id)}/sync`, { method: 'POST' });
}

export function setRetryCycle(id: string, paused: boolean): Promise<Answer<'/api/playlists/playlists/{playlistId}/retry-cycle', 'put'>> {
  return api(`/api/playlists/playlists/${encodeURIComponent(id)}/retry-cycle`, { method: 'PUT', body: { paused } });
}

/** The export file, read with the session (a plain link could not send it). */
export async function fetchExport(id: string, format: ExportFormat): Promise<{ fileName: string; blob: Blob }> {
  const headers: Record<string, string> = {};
  const token = session.get().token;
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(withBase(`${one(id)}/export?format=${format}`), { headers });
  } catch {
    throw new ApiError(0, 'The server cannot be reached. Check that Tonearm is running.', 'NETWORK', null);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: string; message?: string; code?: string } | null;
    const err = body ?? {};
    throw new ApiError(res.status, readableError(err) ?? err.message ?? err.error ?? `Export failed (${res.status})`, err.code, body);
  }
  const fallback = format === 'm3u' ? 'playlist.m3u8' : format === 'jspf' ? 'playlist.jspf' : 'playlist.json';
  return { fileName: exportFileName(res.headers.get('content-disposition'), fallback), blob: await res.blob() };
}

/** Hands a file to the browser's downloads, as a link with `download` would. */
export function saveFile(blob: Blob, fileName: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
