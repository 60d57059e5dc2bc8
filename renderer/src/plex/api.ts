import { api } from '../api';
import type { Answer } from '../wire.js';
import type { PlexLinkStatus, StartedPin } from './logic';

/** The Plex routes of the API (api.md §4.12 and §4.13, `plex` on the wire). No answer ever carries a token. */

export type PlexStatus = Answer<'/api/settings/plex/status'>;
export type PlexLibrary = Answer<'/api/settings/plex/libraries'>['libraries'][number];
export type AccessCheck = Answer<'/api/settings/plex/libraries/{sectionId}/access-check'>;

export const plexSettingsApi = {
  status: (signal?: AbortSignal) => api<PlexStatus>('/api/settings/plex/status', { ...(signal && { signal }) }),
  startPin: () => api<StartedPin>('/api/settings/plex/auth/pin', { method: 'POST', body: {} }),
  checkPin: (pin: StartedPin) => api<Answer<'/api/settings/plex/auth/check', 'post'>>('/api/settings/plex/auth/check', { method: 'POST', body: { pinId: pin.pinId, code: pin.code } }),
  disconnect: () => api('/api/settings/plex/auth', { method: 'DELETE' }),
  servers: () => api<Answer<'/api/settings/plex/resources', 'post'>>('/api/settings/plex/resources', { method: 'POST', body: {} }),
  test: (url: string) => api<Answer<'/api/settings/plex/test', 'post'>>('/api/settings/plex/test', { method: 'POST', body: url ? { url } : {} }),
  libraries: (signal?: AbortSignal) => api<Answer<'/api/settings/plex/libraries'>>('/api/settings/plex/libraries', { ...(signal && { signal }) }),
  accessCheck: (sectionId: string) => api<AccessCheck>(`/api/settings/plex/libraries/${encodeURIComponent(sectionId)}/access-check`),
  sync: () => api<Answer<'/api/settings/plex/sync', 'post'>>('/api/settings/plex/sync', { method: 'POST' }),
};

export const plexLinkApi = {
  status: (signal?: AbortSignal) => api<PlexLinkStatus>('/api/users/me/plex-link/status', { ...(signal && { signal }) }),
  startPin: () => api<StartedPin>('/api/users/me/plex-link/oauth/pin', { method: 'POST', body: {} }),
  checkPin: (pin: StartedPin) => api<Answer<'/api/users/me/plex-link/oauth/complete', 'post'>>('/api/users/me/plex-link/oauth/complete', { method: 'POST', body: { pinId: pin.pinId, code: pin.code } }),
  unlink: () => api('/api/users/me/plex-link', { method: 'DELETE' }),
};

export type PlexHomeUser = Answer<'/api/users/plex-link/home-users'>['users'][number];

export const plexHomeApi = {
  list: (signal?: AbortSignal) => api<Answer<'/api/users/plex-link/home-users'>>('/api/users/plex-link/home-users', { ...(signal && { signal }) }),
  users: (signal?: AbortSignal) => api<Answer<'/api/users'>>('/api/users', { ...(signal && { signal }) }),
  link: (userId: number, homeUserId: string, pin: string) =>
    api(`/api/users/${userId}/plex-link/managed`, { method: 'POST', body: { homeUserId, ...(pin ? { pin } : {}) } }),
  unlink: (userId: number) => api(`/api/users/${userId}/plex-link`, { method: 'DELETE' }),
};
