import { api } from '../api';
import type { PinCheck, PlexLinkStatus, PlexServer, StartedPin, SyncSummary } from './logic';

/** The Plex routes of the API (api.md §4.12 and §4.13, `plex` on the wire). No answer ever carries a token. */

export interface PlexStatus {
  connected: boolean;
  plexUsername: string | null;
  connectedAt: number | null;
  server: { url: string; name: string | null; machineIdentifier: string | null } | null;
  librarySectionId: string | null;
  sync: SyncSummary | null;
}

export interface PlexLibrary {
  key: string;
  title: string;
  locations: string[];
  selected: boolean;
}

export type AccessCheck = { checked: false; reason: string } | { checked: true; accessible: boolean; reportedPath: string; localPath: string; reason: string | null; libraryTitle: string };

export interface SyncResult extends SyncSummary {
  plexTracks: number;
  unmatched: number;
}

export const plexSettingsApi = {
  status: (signal?: AbortSignal) => api<PlexStatus>('/api/settings/plex/status', { ...(signal && { signal }) }),
  startPin: () => api<StartedPin>('/api/settings/plex/auth/pin', { method: 'POST', body: {} }),
  checkPin: (pin: StartedPin) => api<PinCheck>('/api/settings/plex/auth/check', { method: 'POST', body: { pinId: pin.pinId, code: pin.code } }),
  disconnect: () => api('/api/settings/plex/auth', { method: 'DELETE' }),
  servers: () => api<{ servers: PlexServer[]; total: number }>('/api/settings/plex/resources', { method: 'POST', body: {} }),
  test: (url: string) => api<{ success: true; message: string; machineIdentifier: string }>('/api/settings/plex/test', { method: 'POST', body: url ? { url } : {} }),
  libraries: (signal?: AbortSignal) => api<{ libraries: PlexLibrary[] }>('/api/settings/plex/libraries', { ...(signal && { signal }) }),
  accessCheck: (sectionId: string) => api<AccessCheck>(`/api/settings/plex/libraries/${encodeURIComponent(sectionId)}/access-check`),
  sync: () => api<{ success: true; plexTracks: number; matched: number; unmatched: number; syncedAt: number }>('/api/settings/plex/sync', { method: 'POST' }),
};

export const plexLinkApi = {
  status: (signal?: AbortSignal) => api<PlexLinkStatus>('/api/users/me/plex-link/status', { ...(signal && { signal }) }),
  startPin: () => api<StartedPin>('/api/users/me/plex-link/oauth/pin', { method: 'POST', body: {} }),
  checkPin: (pin: StartedPin) => api<PinCheck>('/api/users/me/plex-link/oauth/complete', { method: 'POST', body: { pinId: pin.pinId, code: pin.code } }),
  unlink: () => api('/api/users/me/plex-link', { method: 'DELETE' }),
};

export interface PlexHomeUser {
  id: string;
  title: string | null;
  username: string | null;
  restricted: boolean;
  protected: boolean;
  linkedUserId: number | null;
}

export const plexHomeApi = {
  list: (signal?: AbortSignal) => api<{ users: PlexHomeUser[] }>('/api/users/plex-link/home-users', { ...(signal && { signal }) }),
  users: (signal?: AbortSignal) => api<{ id: number; username: string }[]>('/api/users', { ...(signal && { signal }) }),
  link: (userId: number, homeUserId: string, pin: string) =>
    api(`/api/users/${userId}/plex-link/managed`, { method: 'POST', body: { homeUserId, ...(pin ? { pin } : {}) } }),
  unlink: (userId: number) => api(`/api/users/${userId}/plex-link`, { method: 'DELETE' }),
};
