import type { VNode } from 'preact';
import { describe, expect, it } from 'vitest';
import { actionsFor, applyUpdate, badgeText, filtersFor, mergePage, queryFor, type InboxActionName, type InboxItem } from '../../renderer/src/inbox/logic.js';

/** The inbox item component rendered to its element tree (no DOM needed), and the list logic beside it. */

interface InboxItemViewProps {
  item: InboxItem;
  busy: InboxActionName | null;
  onAction: (item: InboxItem, action: InboxActionName) => void;
  onNavigate: (href: string) => void;
  now?: number;
}
// A .tsx module: the server's tsconfig has no JSX, so it is loaded by path (vitest compiles it with the renderer's settings).
const viewPath = '../../renderer/src/inbox/InboxItemView.js';
const { InboxItemView } = (await import(/* @vite-ignore */ viewPath)) as { InboxItemView: (props: InboxItemViewProps) => unknown };

const NOW = Date.UTC(2026, 10, 24, 12);

const item = (id: number, patch: Partial<InboxItem> = {}): InboxItem => ({
  id,
  kind: 'release',
  sourceKey: `rg-${id}`,
  title: `Release ${id}`,
  subtitle: 'Velvet Static · Album · 2026-11-20',
  href: `/release/rg-${id}`,
  imageUrl: null,
  metadata: {},
  date: new Date(NOW - 4 * 86_400_000).toISOString(),
  createdAt: new Date(NOW).toISOString(),
  isRead: false,
  isSaved: false,
  isAdded: false,
  dismissedUntil: null,
  expiresAt: null,
  addable: 'album',
  ...patch,
});

type El = VNode<Record<string, unknown>>;

/** Renders function components (the view has no hooks) down to host elements. */
function expand(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expand);
  if (!node || typeof node !== 'object' || !('type' in node)) return node;
  const v = node as El;
  if (typeof v.type === 'function') return expand((v.type as (p: unknown) => unknown)(v.props));
  return { ...v, props: { ...v.props, children: expand(v.props.children) } };
}

function all(node: unknown, out: El[] = []): El[] {
  if (Array.isArray(node)) for (const n of node) all(n, out);
  else if (node && typeof node === 'object' && 'type' in node) {
    out.push(node as El);
    all((node as El).props.children, out);
  }
  return out;
}

function text(node: unknown): string {
  if (node === null || node === undefined || node === false || node === true) return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(text).join('');
  return text((node as El).props.children);
}

function render(props: Partial<InboxItemViewProps> & { item: InboxItem }) {
  const calls: { id: number; action: InboxActionName }[] = [];
  const navigations: string[] = [];
  const tree = expand(InboxItemView({ busy: null, onAction: (i, action) => calls.push({ id: i.id, action }), onNavigate: (h) => navigations.push(h), now: NOW, ...props }));
  const nodes = all(tree);
  const buttons = nodes.filter((n) => n.type === 'button');
  const button = (label: string) => {
    const b = buttons.find((x) => text(x) === label);
    if (!b) throw new Error(`no button "${label}" in ${buttons.map(text).join(', ')}`);
    return b;
  };
  return { tree, nodes, buttons, button, calls, navigations, text: text(tree) };
}

describe('InboxItemView', () => {
  it('an unread release: its kind, New, the date, a link into the app, and Request album first', () => {
    const r = render({ item: item(1) });
    expect(r.text).toContain('Release');
    expect(r.text).toContain('New');
    expect(r.text).toContain('2026-11-20');
    expect(r.buttons.map(text)).toEqual(['Request album', 'Mark read', 'Save', 'Dismiss for 30 days']);
    const article = r.nodes.find((n) => n.type === 'article')!;
    expect(article.props['aria-label']).toBe('Release: Release 1');
    expect(article.props.class).toContain('is-unread');
  });

  it('each button reports its action for the item', () => {
    const r = render({ item: item(7) });
    for (const label of ['Request album', 'Mark read', 'Save', 'Dismiss for 30 days']) (r.button(label).props.onClick as () => void)();
    expect(r.calls).toEqual([
      { id: 7, action: 'add' },
      { id: 7, action: 'read' },
      { id: 7, action: 'save' },
      { id: 7, action: 'dismiss' },
    ]);
  });

  it('following the title marks it read and navigates inside the app', () => {
    const r = render({ item: item(3) });
    const link = r.nodes.find((n) => n.type === 'a' && n.props.href === '/release/rg-3')!;
    let prevented = false;
    (link.props.onClick as (e: unknown) => void)({ button: 0, preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(r.navigations).toEqual(['/release/rg-3']);
    expect(r.calls).toEqual([{ id: 3, action: 'read' }]);
  });

  it('a read, saved, requested item offers Mark unread and Unsave, no Request', () => {
    const r = render({ item: item(2, { isRead: true, isSaved: true, isAdded: true }) });
    expect(r.buttons.map(text)).toEqual(['Mark unread', 'Unsave', 'Dismiss for 30 days']);
    expect(r.text).toContain('Requested');
    expect(r.text).not.toContain('New');
  });

  it('a show links out in a new tab; a news digest lists its articles; a discovery offers Add artist', () => {
    const show = render({ item: item(4, { kind: 'show', href: 'https://tickets.example/e1', addable: null, title: 'Velvet Static live' }) });
    const out = show.nodes.find((n) => n.type === 'a')!;
    expect(out.props).toMatchObject({ href: 'https://tickets.example/e1', target: '_blank', rel: 'noopener noreferrer' });
    expect(show.buttons.map(text)).not.toContain('Request album');
    const news = render({
      item: item(5, {
        kind: 'news',
        addable: null,
        metadata: { articles: [{ id: 1, title: 'Tour announced', url: 'https://n.example/1', source: 'Example News' }, { id: 2, title: 'Interview', url: null, source: 'Blog' }] },
      }),
    });
    expect(news.nodes.filter((n) => n.type === 'li').map(text)).toEqual(['Tour announced (Example News)', 'Interview (Blog)']);
    const discovery = render({ item: item(6, { kind: 'discovery', addable: 'artist', href: null }) });
    expect(discovery.buttons.map(text)[0]).toBe('Add artist');
  });

  it('while an action runs every button waits and the running one says so', () => {
    const r = render({ item: item(8), busy: 'save' });
    expect(r.buttons.every((b) => b.props.disabled === true)).toBe(true);
    expect(r.button('Save…').props['aria-busy']).toBe('true');
  });
});

describe('inbox list logic', () => {
  it('filters: switched-off categories have no chip; each filter has its query', () => {
    expect(filtersFor({ releases: true, shows: false, news: true, discoveries: true }).map((f) => f.value)).toEqual(['all', 'unread', 'saved', 'release', 'news', 'discovery']);
    expect(queryFor('unread', 50, 0)).toEqual({ limit: 50, offset: 0, unread: 1 });
    expect(queryFor('saved', 50, 50)).toEqual({ limit: 50, offset: 50, saved: 1 });
    expect(queryFor('show', 20, 0)).toEqual({ limit: 20, offset: 0, kind: 'show' });
  });

  it('an answered action replaces the item, or removes it where it no longer belongs', () => {
    const list = [item(1), item(2), item(3)];
    expect(applyUpdate(list, item(2, { isRead: true }), 'all').map((i) => i.isRead)).toEqual([false, true, false]);
    expect(applyUpdate(list, item(2, { isRead: true }), 'unread').map((i) => i.id)).toEqual([1, 3]);
    expect(applyUpdate(list, item(2, { dismissedUntil: new Date(NOW + 1).toISOString() }), 'all').map((i) => i.id)).toEqual([1, 3]);
    expect(applyUpdate([item(1, { isSaved: true })], item(1, { isSaved: false }), 'saved')).toEqual([]);
  });

  it('pages merge without duplicates; the badge caps at 99+ and hides at zero', () => {
    expect(mergePage([item(1), item(2)], [item(2), item(3)]).map((i) => i.id)).toEqual([1, 2, 3]);
    expect([badgeText(null), badgeText(0), badgeText(7), badgeText(150)]).toEqual([null, null, '7', '99+']);
    expect(actionsFor(item(1, { addable: 'artist' }))[0]).toEqual({ action: 'add', label: 'Add artist' });
  });
});
