import { api } from '../api';
import type { InboxActionName, InboxItem, InboxPage } from './logic';

/** Every request the inbox makes (api.md §4.9). */

export function listInbox(query: Record<string, string | number>, signal?: AbortSignal): Promise<InboxPage> {
  return api<InboxPage>('/api/inbox', { query, ...(signal && { signal }) });
}

export function refreshInbox(): Promise<{ success: boolean; queued: boolean; jobId: number }> {
  return api('/api/inbox/refresh', { method: 'POST' });
}

export function readAllInbox(): Promise<{ success: boolean; updated: number; unreadCount: number }> {
  return api('/api/inbox/read-all', { method: 'POST' });
}

export function actOnItem(id: number, action: InboxActionName, days?: number): Promise<{ item: InboxItem; unreadCount: number; result?: unknown }> {
  return api(`/api/inbox/${id}`, { method: 'PATCH', body: { action, ...(action === 'dismiss' && days !== undefined && { days }) } });
}
