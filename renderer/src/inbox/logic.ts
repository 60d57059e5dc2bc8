/** What the inbox screens show and how an answer changes the list: no requests, no DOM (tested on Node). */

import type { Answer, Body } from '../wire.js';

/** GET /api/inbox: a page of the caller's inbox, as the route's schema describes it. */
export type InboxPage = Answer<'/api/inbox'>;
export type InboxItem = InboxPage['items'][number];
export type InboxKind = InboxItem['kind'];
export type InboxActionName = Body<'/api/inbox/{id}', 'patch'>['action'];

/** The filter chips: every item, one kind, saved or unread ones. */
export type InboxFilter = 'all' | 'unread' | 'saved' | InboxKind;

export const KIND_LABELS: Record<InboxKind, string> = {
  release: 'Release',
  show: 'Show',
  news: 'News',
  discovery: 'Discovery',
};

/** The filter chips' names (plurals that a trailing "s" would get wrong). */
const KIND_PLURALS: Record<InboxKind, string> = { release: 'Releases', show: 'Shows', news: 'News', discovery: 'Discoveries' };

const CATEGORY_OF: Record<InboxKind, keyof InboxPage['categories']> = { release: 'releases', show: 'shows', news: 'news', discovery: 'discoveries' };

/** The filter chips worth showing: kinds the administrator switched off are left out. */
export function filtersFor(categories: InboxPage['categories'] | undefined): { value: InboxFilter; label: string }[] {
  const kinds = (Object.keys(KIND_LABELS) as InboxKind[]).filter((k) => !categories || categories[CATEGORY_OF[k]]);
  return [
    { value: 'all', label: 'All' },
    { value: 'unread', label: 'Unread' },
    { value: 'saved', label: 'Saved' },
    ...kinds.map((k) => ({ value: k, label: KIND_PLURALS[k] })),
  ];
}

/** The query GET /api/inbox takes for a filter. */
export function queryFor(filter: InboxFilter, limit: number, offset: number): Record<string, string | number> {
  const q: Record<string, string | number> = { limit, offset };
  if (filter === 'unread') q.unread = 1;
  else if (filter === 'saved') q.saved = 1;
  else if (filter !== 'all') q.kind = filter;
  return q;
}

/** The buttons of an item, in order; `add` only where there is something to request or add. */
export function actionsFor(item: InboxItem): { action: InboxActionName; label: string }[] {
  const out: { action: InboxActionName; label: string }[] = [];
  if (item.addable && !item.isAdded) out.push({ action: 'add', label: item.addable === 'album' ? 'Request album' : 'Add artist' });
  out.push(item.isRead ? { action: 'unread', label: 'Mark unread' } : { action: 'read', label: 'Mark read' });
  out.push(item.isSaved ? { action: 'unsave', label: 'Unsave' } : { action: 'save', label: 'Save' });
  out.push({ action: 'dismiss', label: 'Dismiss for 30 days' });
  return out;
}

/** A web UI path (`/release/…`) stays in the app; anything else is an outside link. */
export function isInternal(href: string): boolean {
  return href.startsWith('/') && !href.startsWith('//');
}

/** The item's date in words: upcoming dates say so. */
export function dateText(item: InboxItem, now = Date.now()): string | null {
  if (!item.date) return null;
  const t = Date.parse(item.date);
  if (!Number.isFinite(t)) return null;
  const day = new Date(t).toISOString().slice(0, 10);
  if (item.kind === 'discovery') return null;
  return t > now ? `Coming ${day}` : day;
}

/**
 * The list after an action answered: the updated item replaces the old one, or leaves the list when
 * it no longer belongs there (dismissed; unsaved under "Saved"; read under "Unread").
 */
export function applyUpdate(items: InboxItem[], updated: InboxItem, filter: InboxFilter): InboxItem[] {
  const gone = updated.dismissedUntil !== null || (filter === 'saved' && !updated.isSaved) || (filter === 'unread' && updated.isRead);
  return gone ? items.filter((i) => i.id !== updated.id) : items.map((i) => (i.id === updated.id ? updated : i));
}

/** Appends a further page, keeping the first copy of an item listed twice (the list moved meanwhile). */
export function mergePage(items: InboxItem[], next: InboxItem[]): InboxItem[] {
  const seen = new Set(items.map((i) => i.id));
  return [...items, ...next.filter((i) => !seen.has(i.id))];
}

/** The badge text: nothing at zero, "99+" past 99. */
export function badgeText(unread: number | null): string | null {
  if (unread === null || unread <= 0) return null;
  return unread > 99 ? '99+' : String(unread);
}
