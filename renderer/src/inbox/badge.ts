import { createStore } from '../store';
import { listInbox } from './api';

/**
 * The unread count in the navigation: one small request (`limit=1`, no refresh queued) every minute and when the window
 * comes back into focus; the inbox screen sets it directly after each action. Null hides the badge
 * (the inbox is switched off, or the count is unknown).
 */
export const inboxUnread = createStore<{ enabled: boolean; unread: number | null }>({ enabled: false, unread: null });

const POLL_MS = 60_000;
let timer: ReturnType<typeof setInterval> | null = null;

export async function pollInboxUnread(): Promise<void> {
  try {
    const page = await listInbox({ limit: 1, refresh: 'false' });
    inboxUnread.set({ enabled: page.enabled, unread: page.enabled ? page.unreadCount : null });
  } catch {
    inboxUnread.set((s) => ({ ...s, unread: null }));
  }
}

const onFocus = () => void pollInboxUnread();

export function startInboxBadge(): void {
  if (timer) return;
  void pollInboxUnread();
  timer = setInterval(() => void pollInboxUnread(), POLL_MS);
  window.addEventListener('focus', onFocus);
}

export function stopInboxBadge(): void {
  if (timer) clearInterval(timer);
  timer = null;
  window.removeEventListener('focus', onFocus);
  inboxUnread.set({ enabled: false, unread: null });
}
