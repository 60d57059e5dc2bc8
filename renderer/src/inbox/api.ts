import { api } from '../api';
import type { Answer } from '../wire.js';
import type { InboxActionName, InboxPage } from './logic';

/** Every request the inbox makes (api.md §4.9). */

export function listInbox(query: Record<string, string | number>, signal?: AbortSignal): Promise<InboxPage> {
  return api<InboxPage>('/api/inbox', { query, ...(signal && { signal }) });
}

export function refreshInbox(): Promise<Answer<'/api/inbox/refresh', 'post'>> {
  return api('/api/inbox/refresh', { method: 'POST' });
}

export function readAllInbox(): Promise<Answer<'/api/inbox/read-all', 'post'>> {
  return api('/api/inbox/read-all', { method: 'POST' });
}

export function actOnItem(id: number, action: InboxActionName, days?: number): Promise<Answer<'/api/inbox/{id}', 'patch'>> {
  return api(`/api/inbox/${id}`, { method: 'PATCH', body: { action, ...(action === 'dismiss' && days !== undefined && { days }) } });
}
