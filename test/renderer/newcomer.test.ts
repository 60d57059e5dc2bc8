import { click, container, find, nameOf, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../fakes/lidarr/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A newcomer's first hour (issue 24), rendered against a real server: the screens a plain user is
 * offered match their rights, and a page reached anyway says in words what it needs.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: { role: string; permissions: Record<string, boolean> } };
type NavEntry = { href: string; label: string; primary?: boolean; needs?: 'flows' | 'inbox' };

let server: TestServer;
let lidarr: LidarrFake;
let admin: Session;
let listener: Session;
let root: El | null = null;
let m: {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  navEntries: NavEntry[];
  visibleEntries(entries: readonly NavEntry[], has: Record<'flows' | 'inbox', boolean>): NavEntry[];
  can(user: unknown, permission: string): boolean;
  Needs: FunctionComponent<{ permission: string; title: string; use?: string }>;
  ErrorMessage: FunctionComponent<{ error: unknown }>;
  api<T>(path: string, options?: unknown): Promise<T>;
  DownloadsScreen: FunctionComponent;
  FlowsScreen: FunctionComponent;
  SettingsScreen: FunctionComponent<{ tab: string }>;
};

async function signIn(username: string, password: string): Promise<Session> {
  const res = await server.api('/api/auth/login', { method: 'POST', json: { username, password } });
  expect(res.status).toBe(200);
  return (await res.json()) as Session;
}

function show(who: Session, node: VNode): El {
  m.session.set({ token: who.token, user: who.user, notice: null });
  root = container();
  render(node, root as unknown as Element);
  return root;
}

beforeAll(async () => {
  lidarr = await startLidarrFake({ rootFolderPath: '/srv/music' });
  server = await startTestServer();
  setOrigin(server.url, '/library/artists');
  admin = await signIn(server.admin.username, server.admin.password);
  const made = await server.api('/api/users', { method: 'POST', token: admin.token, json: { username: 'listener', password: 'listener password' } });
  expect(made.status).toBe(201);
  listener = await signIn('listener', 'listener password');
  const [session, router, app, rights, ui, api, flows] = await Promise.all([
    renderer('session.ts'),
    renderer('router.tsx'),
    renderer('App.tsx'),
    renderer('components/Rights.tsx'),
    renderer('components/ui.tsx'),
    renderer('api.ts'),
    renderer('flows/FlowsScreen.tsx'),
  ]);
  const settingsScreen = await renderer('settings/SettingsScreen.tsx');
  const downloads = await renderer('downloads/DownloadsScreen.tsx');
  m = { session: session.session, router, navEntries: app.navEntries, visibleEntries: app.visibleEntries, can: rights.can, Needs: rights.Needs, ErrorMessage: ui.ErrorMessage, api: api.api, FlowsScreen: flows.FlowsScreen, SettingsScreen: settingsScreen.SettingsScreen, DownloadsScreen: downloads.DownloadsScreen };
});

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await lidarr?.close();
});

describe('screens match the user’s rights (issue 24 §3)', () => {
  it('a plain user is not offered Flows, Import, Downloads or Review; an administrator is', () => {
    const offered = (who: Session) => m.visibleEntries(m.navEntries, { flows: m.can(who.user, 'accessFlow'), inbox: false }).map((e) => e.label);
    expect(listener.user.permissions.accessFlow).toBe(false);
    expect(offered(listener)).toEqual(['Library', 'Search', 'Discover', 'Playlists', 'News', 'Favorites', 'Settings', 'Connect an app']);
    expect(offered(admin)).toEqual(['Library', 'Search', 'Discover', 'Flows', 'Playlists', 'Downloads', 'News', 'Import', 'Favorites', 'Review', 'Settings', 'Connect an app']);
  });

  it('a bookmarked Downloads page says what it needs and who grants it, never the permission’s internal name', async () => {
    const page = () => h(m.Needs, { permission: 'accessFlow', title: 'Downloads are not available for your account', use: 'downloads' }, h('p', null, 'the downloads'));
    const r = show(listener, page() as VNode);
    expect(text(one(r, '.empty-title'))).toBe('Downloads are not available for your account');
    expect(text(one(r, '.empty-body'))).toBe('Ask an administrator to allow downloads for your account (Settings → Users, “Flows and review”).');
    expect(find(r, 'button', 'Try again')).toEqual([]);
    render(null, r as unknown as Element);
    const a = show(admin, page() as VNode);
    expect(text(a)).toBe('the downloads');
  });

  it('the Flows screen for a plain user says the same, in words', async () => {
    const r = show(listener, h(m.FlowsScreen, null) as VNode);
    expect(text(r)).toContain('Ask an administrator to allow flows for your account (Settings → Users, “Flows and review”).');
    expect(text(r)).not.toContain('accessFlow');
  });

  it('a refusal from the API for want of a permission reads as what to ask for', async () => {
    m.session.set({ token: listener.token, user: listener.user, notice: null });
    // The server's own words name the permission; the screen must not.
    const raw = await server.api('/api/playlists/jobs', { token: listener.token });
    expect(raw.status).toBe(403);
    expect(((await raw.json()) as { message?: string; error?: string }).message ?? '').toContain('accessFlow');
    const error = await m.api('/api/playlists/jobs').then(
      () => null,
      (err: unknown) => err,
    );
    const r = show(listener, h(m.ErrorMessage, { error }) as VNode);
    expect(text(one(r, '[role="alert"]'))).toBe(
      'Your account may not do this. Ask an administrator to allow flows and downloads for your account (Settings → Users, “Flows and review”).',
    );
    // Only an administrator may read the settings: said as such.
    const settings = await m.api('/api/settings').then(
      () => null,
      (err: unknown) => err,
    );
    render(null, r as unknown as Element);
    const s = show(listener, h(m.ErrorMessage, { error: settings }) as VNode);
    expect(text(s)).toBe('Only an administrator can do this.');
  });
});

const card = (r: El, title: string) => {
  const found = find(r, 'section').find((s) => text(find(s, 'h2')[0] ?? null) === title);
  if (!found) throw new Error(`no card ${title}`);
  return found;
};
const input = (r: Element, label: string) => {
  const l = find(r as El, 'label').find((x) => text(x) === label);
  if (!l) throw new Error(`no label ${label}`);
  return one(r as El, `#${l.getAttribute('for')}`);
};
const settingsTab = (tab: string) => {
  m.router.navigate(`/settings/${tab}`);
  return show(admin, h(m.SettingsScreen, { tab }) as VNode);
};
const choose = async (select: El, value: string) => {
  select.value = value;
  select.dispatchEvent(new window.Event('change', { bubbles: true }) as unknown as Event);
  await new Promise((r) => setTimeout(r, 0));
};

describe('unconfigured is not "on" (issue 24 §5)', () => {
  it('on a fresh install every service without its address or key reads "Not set up" with what it needs, and no "Use …" switch', async () => {
    const cases: [tab: string, card: string, name: string][] = [
      ['downloads', 'Soulseek (slskd)', 'slskd'],
      ['downloads', 'Usenet', 'Prowlarr'],
      ['downloads', 'Usenet', 'SABnzbd'],
      ['downloads', 'Usenet', 'NZBGet'],
      ['integrations', 'Last.fm', 'Last.fm'],
      ['integrations', 'Nearby shows (Ticketmaster)', 'Ticketmaster'],
      ['integrations', 'Spotify', 'Spotify'],
      ['integrations', 'Metadata', 'the metadata server'],
      ['notifications', 'Gotify', 'Gotify'],
    ];
    for (const tab of ['downloads', 'integrations', 'notifications']) {
      const r = settingsTab(tab);
      await waitFor(() => expect(find(r, '[data-source]').length).toBeGreaterThan(0));
      for (const [, title, name] of cases.filter((c) => c[0] === tab)) {
        const c = card(r, title);
        expect(find(c, 'input[role="switch"]').map((el) => nameOf(el.closest('label')!))).not.toContain(`Use ${name}`);
        const states = find(c, '[data-setup="missing"]').map((el) => text(el));
        expect(states.some((t) => t.startsWith('Not set up.') && t.includes(`to use ${name}.`)), `${title}: ${states.join(' | ')}`).toBe(true);
      }
      // No internal setting key anywhere on the tab.
      expect(text(r)).not.toMatch(/integrations\.\w/);
      render(null, r as unknown as Element);
      root = null;
    }
    // The wire meaning is kept: the saved settings still say "use it once it is set up".
    expect(server.ctx.settings.get().integrations.slskd.enabled).toBe(true);
  });

  it('the switch appears once the service could work', async () => {
    const r = settingsTab('downloads');
    const c = await waitFor(() => card(r, 'Soulseek (slskd)'));
    expect(text(c)).toContain('Not set up. Add the slskd address and API key to use slskd.');
    await typeInto(input(c, 'slskd address'), 'http://127.0.0.1:5030');
    expect(text(one(c, '[data-setup="missing"]'))).toBe('Not set up. Add the API key to use slskd.');
    await typeInto(input(c, 'API key'), 'a-key');
    const sw = await waitFor(() => one(c, 'input[role="switch"]'));
    expect(sw.checked).toBe(true);
    expect(find(c, '[data-setup="missing"]')).toEqual([]);
  });

  it('a "not configured" answer names the place in words with a link that opens the card, never the setting key', async () => {
    m.session.set({ token: admin.token, user: admin.user, notice: null });
    const error = await m.api('/api/settings/slskd/test', { method: 'POST', body: {} } as never).then(
      () => null,
      (err: unknown) => err,
    );
    const r = show(admin, h(m.ErrorMessage, { error }) as VNode);
    const alert = one(r, '[role="alert"]');
    expect(text(alert)).toBe('slskd is not configured. Add an slskd address and API key in Settings → Downloads. Open Settings → Downloads');
    expect(one(alert, 'a').getAttribute('href')).toBe('/settings/downloads#source-slskd');
    expect(find(alert, 'button', 'Try again')).toEqual([]);
    render(null, r as unknown as Element);
    // A plain user is told who can set it up.
    const u = show(listener, h(m.ErrorMessage, { error }) as VNode);
    expect(text(u)).toBe('slskd is not configured. Add an slskd address and API key in Settings → Downloads. Ask an administrator to add an slskd address and API key.');
  });

  it('the Downloads screen with no source says which sources exist and links to set one up', async () => {
    m.router.navigate('/downloads');
    const r = show(admin, h(m.DownloadsScreen, null) as VNode);
    const note = await waitFor(() => one(r, '[data-testid="no-download-source"]'));
    expect(text(note)).toContain('Tonearm downloads from slskd (Soulseek), Usenet (Prowlarr with SABnzbd or NZBGet) and yt-dlp');
    expect(one(note, 'a').getAttribute('href')).toBe('/settings/downloads');
  });
});

describe('every integration can be set up after onboarding (issue 24 §4)', () => {
  it('Settings → Downloads has a Lidarr card: address, key, Test, Save, then quality and metadata profiles and the root folder', async () => {
    const r = settingsTab('downloads');
    const c = await waitFor(() => card(r, 'Lidarr'));
    expect(text(c)).toContain('Save an address and API key to choose the quality profile');
    await typeInto(input(c, 'Lidarr address'), lidarr.url);
    await typeInto(input(c, 'Lidarr API key'), lidarr.apiKey);
    click(one(c, 'button', 'Test Lidarr'));
    await waitFor(() => expect(text(c)).toMatch(/Connected|Lidarr/));
    expect(find(c, '[role="alert"]')).toEqual([]);
    click(one(c, 'button', 'Save Lidarr'));
    await waitFor(() => expect(text(c)).toContain('Lidarr settings saved.'));
    expect(server.ctx.settings.get().integrations.lidarr).toMatchObject({ url: lidarr.url, apiKey: lidarr.apiKey });
    // The choices are read from Lidarr once the connection is saved.
    const quality = await waitFor(() => input(c, 'Quality profile'));
    expect(find(quality, 'option').map((o) => text(o))).toEqual(['Any', 'Lossless', 'Standard']);
    expect(find(input(c, 'Metadata profile'), 'option').map((o) => text(o))).toEqual(['Standard', 'None']);
    expect(find(input(c, 'Root folder'), 'option').map((o) => o.value)).toEqual(['', '/srv/music']);
    await choose(quality, '2');
    await choose(input(c, 'Metadata profile'), '2');
    await choose(input(c, 'Root folder'), '/srv/music');
    click(one(c, 'button', 'Save Lidarr profiles'));
    await waitFor(() => expect(text(c)).toContain('Lidarr profiles saved.'));
    expect(server.ctx.settings.get().integrations.lidarr).toMatchObject({ qualityProfileId: 2, metadataProfileId: 2, rootFolderPath: '/srv/music' });
  });

  it('the Plex connection is named where it is: Settings → Library → Plex (there is no Settings → Plex tab)', async () => {
    const logic = await renderer('settings/playbackLogic.ts');
    const draft = { enabled: true, publishFlows: true, publishPlaylists: true, ownerPrefix: true };
    expect(logic.plexProblem(draft, { server: '', library: '' })).toContain('(Settings → Library → Plex)');
    const r = settingsTab('library');
    await waitFor(() => card(r, 'Plex'));
    expect(find(r, 'nav.tabs a').map((a) => text(a))).not.toContain('Plex');
    const pb = settingsTab('playback');
    await waitFor(() => expect(text(pb)).toContain('Plex'));
    expect(text(pb)).not.toMatch(/Settings → Plex/);
  });
});

describe('folder browser (issue 24 §9)', () => {
  it('after "Folder does not exist" nothing can be added until a folder that exists is shown', async () => {
    const { FolderBrowser } = await renderer('components/FolderBrowser.tsx');
    const chosen: string[] = [];
    const r = show(admin, h(FolderBrowser, { onChoose: (p: string) => chosen.push(p) }) as VNode);
    await waitFor(() => one(r, '[data-testid="fs-current"]'));
    const go = async (path: string) => {
      await typeInto(one(r, 'input[placeholder^="Type a folder path"]'), path);
      click(one(r, 'button', 'Go'));
    };
    await go(`${server.dataDir}/no-such-folder`);
    await waitFor(() => expect(text(one(r, '[role="alert"]'))).toMatch(/does not exist/i));
    expect(find(r, '[data-testid="fs-current"]')).toEqual([]);
    expect(find(r, 'button', 'Add this folder')).toEqual([]);
    expect(find(r, 'button', 'Create folder')).toEqual([]);
    expect(text(one(r, '[data-testid="fs-none"]'))).toContain('No folder is open');
    // A folder that exists: shown, and it is the one added.
    await go(server.dataDir);
    await waitFor(() => expect(text(one(r, '[data-testid="fs-current"]'))).toBe(server.dataDir));
    expect(find(r, '[role="alert"]')).toEqual([]);
    await waitFor(() => expect(one(r, 'button', 'Add this folder').disabled).toBe(false));
    click(one(r, 'button', 'Add this folder'));
    expect(chosen).toEqual([server.dataDir]);
  });
});
