import { click, container, find, one, press, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGotify, type FakeGotify } from '../fakes/gotify/index.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/webhook/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The main navigation (entries, aria-current, the More menu) and the Settings tabs Integrations and
 * Notifications rendered against a real server: a card saved, Gotify tested against its fake, a news
 * feed switched off and on, a custom feed added and removed, a webhook tested, added, tested and removed
 * against the webhook receiver fake.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };
type NavEntry = { href: string; label: string; primary?: boolean };
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  navEntries: NavEntry[];
  MainNav: FunctionComponent<{ entries: readonly NavEntry[] }>;
  SettingsScreen: FunctionComponent<{ tab: string }>;
}

let server: TestServer;
let gotify: FakeGotify;
let hook: FakeWebhookReceiver;
let m: Modules;
let admin: Session;
let root: El | null = null;

async function signIn(username: string, password: string): Promise<Session> {
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username, password } })).json()) as { token: string; user: unknown };
  return { token: s.token, user: s.user };
}

function show(node: VNode): El {
  m.session.set({ token: admin.token, user: admin.user, notice: null });
  root = container();
  render(node, root as unknown as Element);
  return root;
}
const settingsTab = (tab: string) => {
  m.router.navigate(`/settings/${tab}`);
  return show(h(m.SettingsScreen, { tab }) as VNode);
};
const settled = () => new Promise((r) => setTimeout(r, 0));
const card = (r: El, title: string) => {
  const found = find(r, 'section').find((s) => text(find(s, 'h2')[0] ?? null) === title);
  if (!found) throw new Error(`no card ${title}`);
  return found;
};
const input = (r: El, label: string) => {
  const l = find(r, 'label').find((x) => text(x) === label);
  if (!l) throw new Error(`no label ${label}`);
  return one(r, `#${l.getAttribute('for')}`);
};
const settings = () => server.ctx.settings.get();

beforeAll(async () => {
  [gotify, hook] = await Promise.all([startFakeGotify(), startFakeWebhookReceiver()]);
  server = await startTestServer({ env: { ALLOW_PRIVATE_TARGETS: '127.0.0.1' } });
  setOrigin(server.url, '/settings/integrations');
  admin = await signIn(server.admin.username, server.admin.password);
  const [session, router, app, screen] = await Promise.all([renderer('session.ts'), renderer('router.tsx'), renderer('App.tsx'), renderer('settings/SettingsScreen.tsx')]);
  const nav = await renderer('components/MainNav.tsx');
  m = {
    session: (session as { session: Modules['session'] }).session,
    router: router as Modules['router'],
    navEntries: (app as { navEntries: NavEntry[] }).navEntries,
    MainNav: (nav as { MainNav: Modules['MainNav'] }).MainNav,
    SettingsScreen: (screen as { SettingsScreen: Modules['SettingsScreen'] }).SettingsScreen,
  };
});

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([gotify?.close(), hook?.close()]);
});

describe('Main navigation', () => {
  it('shows every entry once, the primary ones in the bar and the rest under More, with the current page marked', async () => {
    m.router.navigate('/discover');
    const r = show(h(m.MainNav, { entries: m.navEntries }) as VNode);
    const links = find(r, 'a');
    expect(links.map((a) => a.getAttribute('href')).sort()).toEqual(m.navEntries.map((e) => e.href).sort());
    for (const e of m.navEntries) expect(text(one(r, `a[href="${e.href}"]`))).toBe(e.label);
    expect(find(one(r, 'ul.mainnav-primary'), 'a').map((a) => text(a))).toEqual(['Library', 'Search', 'Discover', 'Flows', 'Playlists', 'Inbox', 'Downloads']);
    expect(find(r, '[aria-current="page"]').map((a) => text(a))).toEqual(['Discover']);
    // More: closed, then open on a click, closed again with Escape.
    const more = one(r, 'button', /^More/);
    const list = one(r, '#mainnav-more-list');
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(more.getAttribute('aria-controls')).toBe('mainnav-more-list');
    expect(list.hasAttribute('hidden')).toBe(true);
    expect(find(list, 'a').map((a) => text(a))).toEqual(['News', 'Import', 'Favorites', 'Review', 'Settings', 'Connect an app']);
    click(more);
    await waitFor(() => expect(more.getAttribute('aria-expanded')).toBe('true'));
    expect(list.hasAttribute('hidden')).toBe(false);
    press(list, 'Escape');
    await waitFor(() => expect(more.getAttribute('aria-expanded')).toBe('false'));
    // Choosing an entry under More navigates, closes the menu, and marks both the entry and More.
    click(more);
    await waitFor(() => expect(more.getAttribute('aria-expanded')).toBe('true'));
    click(one(list, 'a', 'Review'));
    await waitFor(() => expect(more.getAttribute('aria-expanded')).toBe('false'));
    expect(window.location.pathname).toBe('/review');
    expect(find(r, '[aria-current="page"]').map((a) => text(a))).toEqual(['Review']);
    expect(more.getAttribute('class')).toContain('holds-current');
    expect(text(more)).toContain('current page inside');
    // The most specific entry wins: Favorites, not Library as well.
    m.router.navigate('/library/favorites');
    await waitFor(() => expect(find(r, '[aria-current="page"]').map((a) => text(a))).toEqual(['Favorites']));
    m.router.navigate('/library/albums');
    await waitFor(() => expect(find(r, '[aria-current="page"]').map((a) => text(a))).toEqual(['Library']));
    expect(more.getAttribute('class')).not.toContain('holds-current');
  });
});

describe('Settings: Integrations', () => {
  it('has the tab, and the Last.fm and Ticketmaster cards save their settings', async () => {
    const r = settingsTab('integrations');
    expect(one(r, 'a[aria-current="page"]', 'Integrations').getAttribute('href')).toBe('/settings/integrations');
    const lastfm = await waitFor(() => card(r, 'Last.fm'));
    expect(find(lastfm, 'button', /^Test/)).toEqual([]); // the server has no Last.fm test
    await typeInto(input(lastfm, 'API key'), 'lastfm-key-123');
    await typeInto(input(lastfm, 'Shared secret'), 'lastfm-secret');
    click(one(lastfm, 'button', 'Save Last.fm'));
    await waitFor(() => expect(text(lastfm)).toContain('Last.fm settings saved.'));
    expect(settings().integrations.lastfm).toMatchObject({ apiKey: 'lastfm-key-123', apiSecret: 'lastfm-secret', enabled: true });
    // Secrets come back masked.
    expect(input(lastfm, 'API key').value).not.toBe('lastfm-key-123');

    const tm = card(r, 'Nearby shows (Ticketmaster)');
    await typeInto(input(tm, 'Location'), 'Berlin');
    await typeInto(input(tm, 'Radius (miles)'), '500');
    click(one(tm, 'button', 'Save Nearby shows (Ticketmaster)'));
    await waitFor(() => expect(text(one(tm, '[role="alert"]'))).toContain('enter a whole number from 5 to 250'));
    await typeInto(input(tm, 'Radius (miles)'), '30');
    click(one(tm, 'button', 'Save Nearby shows (Ticketmaster)'));
    await waitFor(() => expect(settings().integrations.ticketmaster).toMatchObject({ location: 'Berlin', radiusMiles: 30 }));
  });

  it('switches a built-in news feed off and on, and adds and removes a custom feed', async () => {
    const r = settingsTab('integrations');
    const feeds = await waitFor(() => {
      const c = card(r, 'News feeds');
      expect(find(c, 'li[data-feed]').length).toBeGreaterThan(5);
      return c;
    });
    const npr = find(feeds, 'li[data-feed]').find((li) => text(li).startsWith('NPR Music'))!;
    const id = npr.getAttribute('data-feed')!;
    const toggle = one(npr, 'input[role="switch"]');
    expect(toggle.checked).toBe(true);
    click(toggle);
    await waitFor(() => expect(settings().integrations.news.disabledFeeds).toEqual([id]));
    await waitFor(() => expect(one(feeds, `li[data-feed="${id}"] input`).checked).toBe(false));
    expect(text(feeds)).toContain('NPR Music is no longer read.');
    const listed = (await (await server.api('/api/news/feeds', { token: admin.token })).json()) as { feeds: { id: string; enabled: boolean }[] };
    expect(listed.feeds.find((f) => f.id === id)!.enabled).toBe(false);
    click(one(feeds, `li[data-feed="${id}"] input`));
    await waitFor(() => expect(settings().integrations.news.disabledFeeds).toEqual([]));
    await waitFor(() => expect(one(feeds, `li[data-feed="${id}"] input`).checked).toBe(true));

    await typeInto(input(feeds, 'Feed address (RSS or Atom)'), 'https://blog.example.org/rss');
    await typeInto(input(feeds, 'Name'), 'Example Blog');
    click(one(feeds, 'button', 'Add feed'));
    await waitFor(() => expect(text(one(feeds, 'ul', 'Custom feeds'))).toContain('Example Blog'));
    expect(settings().integrations.news.feeds).toEqual([{ url: 'https://blog.example.org/rss', name: 'Example Blog' }]);
    click(one(feeds, 'button', 'Remove Example Blog'));
    await waitFor(() => expect(settings().integrations.news.feeds).toEqual([]));
    await waitFor(() => expect(text(feeds)).toContain('No feeds of your own yet.'));
  });
});

describe('Settings: Notifications', () => {
  it('tests Gotify against the fake, saves it, and chooses the events and a message text', async () => {
    const r = settingsTab('notifications');
    const g = await waitFor(() => card(r, 'Gotify'));
    await typeInto(input(g, 'Gotify address'), gotify.url);
    await typeInto(input(g, 'Application token'), gotify.appToken);
    click(one(g, 'button', 'Test Gotify'));
    await waitFor(() => expect(text(g)).toContain('Sent a test message to Gotify'));
    expect(gotify.messages.length).toBe(1);
    click(one(g, 'button', 'Save Gotify'));
    await waitFor(() => expect(settings().integrations.gotify).toMatchObject({ url: gotify.url, token: gotify.appToken }));

    const events = card(r, 'What notifies');
    click(one(events, '#gotify-event-job_done'));
    await settled();
    click(one(events, '#gotify-event-job_failed'));
    await settled();
    await typeInto(one(events, '#template-job_done-title'), 'Got $trackName');
    click(one(events, 'button', 'Save notification settings'));
    await waitFor(() => expect(text(events)).toContain('Notification settings saved.'));
    expect(settings().notifications.gotify.events).toEqual(['job_blocked', 'job_done']);
    expect(settings().notifications.gotify.templates).toEqual({ job_done: { title: 'Got $trackName' } });
  });

  it('tests a webhook as edited, adds it, tests the saved one and removes it', async () => {
    const r = settingsTab('notifications');
    const w = await waitFor(() => card(r, 'Webhooks'));
    expect(text(w)).toContain('No webhooks yet.');
    expect(one(w, 'button', 'Add webhook').disabled).toBe(true);
    await typeInto(input(w, 'Name'), 'My Hook');
    await typeInto(input(w, 'Address'), `${hook.url}/hook`);
    await typeInto(input(w, 'Authorization header'), 'Bearer sekret');
    click(one(w, 'button', 'Test webhook'));
    await waitFor(() => expect(text(w)).toContain('The webhook answered HTTP 200'));
    expect(hook.requests.length).toBe(1);
    expect(hook.requests[0]!).toMatchObject({ method: 'POST', path: '/hook' });
    expect(hook.requests[0]!.headers.authorization).toBe('Bearer sekret');
    expect(JSON.parse(hook.requests[0]!.body)).toMatchObject({ event: 'job_blocked' });

    click(one(w, 'button', 'Add webhook'));
    await waitFor(() => expect(settings().notifications.webhooks).toHaveLength(1));
    expect(settings().notifications.webhooks[0]).toMatchObject({ id: 'my-hook', name: 'My Hook', url: `${hook.url}/hook`, events: ['job_blocked', 'job_failed'], enabled: true, headers: { Authorization: 'Bearer sekret' } });
    await waitFor(() => expect(find(w, 'li[data-webhook="my-hook"]')).toHaveLength(1));
    expect(input(w, 'Name').value).toBe('');

    // A failing receiver: the test says so.
    hook.failNext(1, 503);
    click(one(w, 'button', 'Test My Hook'));
    await waitFor(() => expect(hook.requests.length).toBe(2));
    await waitFor(() => expect(find(w, '.error, .notice').length).toBeGreaterThan(0));
    expect(hook.requests[1]!.headers.authorization).toBe('Bearer sekret');
    click(one(w, 'button', 'Test My Hook'));
    await waitFor(() => expect(text(w)).toContain('My Hook: The webhook answered HTTP 200'));
    expect(hook.requests.length).toBe(3);

    click(one(w, 'button', 'Remove My Hook'));
    await waitFor(() => expect(settings().notifications.webhooks).toEqual([]));
    await waitFor(() => expect(text(w)).toContain('No webhooks yet.'));
  });

  it('security: the private hosts people may use are saved, a URL instead of a host is refused', async () => {
    const r = settingsTab('security');
    const hosts = await waitFor(() => card(r, 'Private hosts people may use'));
    // Editable once the saved list has arrived.
    await waitFor(() => expect((input(hosts, 'Private hosts') as unknown as { disabled: boolean }).disabled).toBe(false));
    await typeInto(input(hosts, 'Private hosts'), 'http://koito.lan:4110');
    click(one(hosts, 'button', 'Save hosts'));
    await waitFor(() => expect(text(hosts)).toContain('must be a host name or an IP address'));
    await typeInto(input(hosts, 'Private hosts'), 'koito.lan\n192.168.1.20');
    click(one(hosts, 'button', 'Save hosts'));
    await waitFor(() => expect(text(hosts)).toContain('Hosts saved.'));
    expect(settings().security.allowPrivateTargets).toEqual(['koito.lan', '192.168.1.20']);
  });

  it('downloads: the import queue limit is saved', async () => {
    const r = settingsTab('downloads');
    const imports = await waitFor(() => card(r, 'Imports'));
    expect(input(imports, 'Import queue limit').value).toBe('500');
    await typeInto(input(imports, 'Import queue limit'), '40');
    click(one(imports, 'button', 'Save limit'));
    await waitFor(() => expect(text(imports)).toContain('Import queue limit saved.'));
    expect(settings().downloads.importQueueLimit).toBe(40);
  });
});
