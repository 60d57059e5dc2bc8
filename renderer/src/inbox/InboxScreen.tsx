import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Empty, ErrorMessage, Loading, Notice, useAction } from '../components/ui';
import { navigate } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { actOnItem, listInbox, readAllInbox, refreshInbox } from './api';
import { inboxUnread } from './badge';
import { InboxItemView } from './InboxItemView';
import { InboxSettings } from './InboxSettings';
import { applyUpdate, filtersFor, mergePage, queryFor, type InboxActionName, type InboxFilter, type InboxItem, type InboxPage } from './logic';
import './inbox.css';
import { dateTime } from '../time';

const PAGE = 50;

/** The caller's inbox: new and upcoming releases, shows, news digests and discoveries. */
export function InboxScreen() {
  const [filter, setFilter] = useState<InboxFilter>('all');
  const [page, setPage] = useState<InboxPage | null>(null);
  const [items, setItems] = useState<InboxItem[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<{ id: number; action: InboxActionName } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const admin = isAdmin(useStore(session).user);

  useEffect(() => {
    const ctl = new AbortController();
    setError(null);
    listInbox(queryFor(filter, PAGE, 0), ctl.signal).then(
      (p) => {
        setPage(p);
        setItems(p.items);
        inboxUnread.set({ enabled: p.enabled, unread: p.enabled ? p.unreadCount : null });
      },
      (err: unknown) => !ctl.signal.aborted && setError(err),
    );
    return () => ctl.abort();
  }, [filter, tick]);

  // While a refresh runs, look again every few seconds.
  useEffect(() => {
    if (!page?.isRefreshing) return;
    const t = setTimeout(() => setTick((n) => n + 1), 3000);
    return () => clearTimeout(t);
  }, [page]);

  const more = useAction(async () => {
    const next = await listInbox(queryFor(filter, PAGE, items.length));
    setPage(next);
    setItems((list) => mergePage(list, next.items));
  });
  const refresh = useAction(async () => {
    setNote(null);
    const r = await refreshInbox();
    setNote(r.queued ? 'Looking for new releases, shows, news and discoveries…' : 'A refresh is already under way.');
    setPage((p) => (p ? { ...p, isRefreshing: true } : p));
  });
  const readAll = useAction(async () => {
    const r = await readAllInbox();
    setItems((list) => (filter === 'unread' ? [] : list.map((i) => ({ ...i, isRead: true }))));
    setPage((p) => (p ? { ...p, unreadCount: r.unreadCount } : p));
    inboxUnread.set({ enabled: true, unread: r.unreadCount });
  });
  const act = useAction(async (item: InboxItem, action: InboxActionName) => {
    setBusy({ id: item.id, action });
    setNote(null);
    try {
      const r = await actOnItem(item.id, action);
      setItems((list) => applyUpdate(list, r.item, filter));
      setPage((p) => (p ? { ...p, unreadCount: r.unreadCount } : p));
      inboxUnread.set({ enabled: true, unread: r.unreadCount });
      if (action === 'add') setNote(item.addable === 'album' ? `Requested “${item.title}”.` : `Added ${item.title}.`);
      if (action === 'dismiss') setNote(`“${item.title}” is hidden for 30 days.`);
    } finally {
      setBusy(null);
    }
  });

  const enable = useAction(async () => {
    await api('/api/settings', { method: 'POST', body: { inbox: { enabled: true } } });
    setTick((n) => n + 1);
  });

  if (page && !page.enabled)
    return (
      <div class="inbox">
        <h1>Inbox</h1>
        <Empty title="The inbox is switched off.">
          {admin ? (
            <button type="button" class="primary" onClick={() => void enable.trigger()} disabled={enable.busy}>
              Switch the inbox on
            </button>
          ) : (
            <p>An administrator can switch it on.</p>
          )}
        </Empty>
        <ErrorMessage error={enable.error} />
      </div>
    );

  return (
    <div class="inbox">
      <div class="list-actions">
        <h1>
          Inbox {page && page.unreadCount > 0 && <span class="badge badge-accent">{page.unreadCount} unread</span>}
        </h1>
        <div class="inbox-toolbar">
          <button type="button" onClick={() => void refresh.trigger()} disabled={refresh.busy || page?.isRefreshing}>
            {page?.isRefreshing ? 'Refreshing…' : 'Refresh'}
          </button>
          <button type="button" onClick={() => void readAll.trigger()} disabled={readAll.busy || !page || page.unreadCount === 0}>
            Mark all read
          </button>
        </div>
      </div>
      {admin && page && <InboxSettings categories={page.categories} onChanged={() => setTick((n) => n + 1)} />}
      <div class="inbox-filters" role="group" aria-label="Show">
        {filtersFor(page?.categories).map((f) => (
          <button type="button" key={f.value} class="chip" aria-pressed={filter === f.value ? 'true' : 'false'} onClick={() => setFilter(f.value)}>
            {f.label}
          </button>
        ))}
      </div>
      {note && <Notice tone="success">{note}</Notice>}
      {page?.warning && <Notice tone="warn">{page.warning}</Notice>}
      <ErrorMessage error={error ?? act.error ?? refresh.error ?? readAll.error ?? more.error} onRetry={error ? () => setTick((n) => n + 1) : undefined} />
      {!page && !error && <Loading label="Loading the inbox…" />}
      {page && items.length === 0 && (
        <Empty title={filter === 'saved' ? 'Nothing saved yet.' : filter === 'unread' ? 'Nothing unread.' : 'Your inbox is empty.'}>
          {filter === 'all' && <p>New and upcoming releases by your artists, shows nearby, artist news and new discoveries appear here.</p>}
        </Empty>
      )}
      {items.length > 0 && (
        <ul class="inbox-list" aria-label="Inbox items">
          {items.map((item) => (
            <li key={item.id}>
              <InboxItemView item={item} busy={busy?.id === item.id ? busy.action : null} onAction={(i, a) => void act.trigger(i, a)} onNavigate={(href) => navigate(href)} />
            </li>
          ))}
        </ul>
      )}
      {page && items.length < page.total && page.hasMore && (
        <button type="button" class="wide" onClick={() => void more.trigger()} disabled={more.busy}>
          {more.busy ? 'Loading…' : 'Show more'}
        </button>
      )}
      {page?.lastRefreshedAt && <p class="muted small">Last checked {dateTime(page.lastRefreshedAt)}.</p>}
    </div>
  );
}
