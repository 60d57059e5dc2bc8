import { click, container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A newcomer's first hour (issue 24 §6 and §7), rendered against a real server on a machine offline
 * (ListenBrainz and Deezer under names that never resolve) and without Last.fm: Discover says why it
 * could not update, a preset's previews open in view and say that Deezer could not be reached, a new
 * flow's form offers only the sources this server has (the others disabled with the reason, as the
 * Listening History template says it), the flow card shows one state at a time, and times use one
 * clock format.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };

let server: TestServer;
let admin: Session;
let root: El | null = null;
let m: {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void };
  DiscoverRoute: FunctionComponent;
  FlowsScreen: FunctionComponent;
  progressLine(flow: unknown, queue: 'queued' | 'waiting' | null): { text: string; warn: boolean };
  defaultMix(unavailable: Record<string, string>): Record<string, number>;
};

function show(node: FunctionComponent): El {
  m.session.set({ token: admin.token, user: admin.user, notice: null });
  root = container();
  render(h(node, {}), root as unknown as Element);
  return root;
}

beforeAll(async () => {
  // Names under .invalid never resolve: every lookup fails with ENOTFOUND, as on a machine offline.
  server = await startTestServer({
    env: { TONEARM_LISTENBRAINZ_URL: 'http://api.listenbrainz.invalid', TONEARM_DEEZER_URL: 'http://api.deezer.invalid', TONEARM_UPSTREAM_SPACING_MS: '0' },
  });
  expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { downloads: { worker: { running: false } } } })).status).toBe(200);
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as Session;
  admin = { token: login.token, user: login.user };
  setOrigin(server.url, '/discover');
  const [session, router, discover, flows, flowLogic] = await Promise.all([
    renderer('session.ts'),
    renderer('router.tsx'),
    renderer('discover/DiscoverScreen.tsx'),
    renderer('flows/FlowsScreen.tsx'),
    renderer('flows/logic.ts'),
  ]);
  const { DiscoverScreen } = discover as { DiscoverScreen: FunctionComponent<{ path: string }> };
  const { useLocation } = router as { useLocation(): { path: string } };
  m = {
    session: (session as { session: typeof m.session }).session,
    router: router as typeof m.router,
    DiscoverRoute: () => h(DiscoverScreen, { path: useLocation().path }),
    FlowsScreen: (flows as { FlowsScreen: FunctionComponent }).FlowsScreen,
    progressLine: flowLogic.progressLine,
    defaultMix: flowLogic.defaultMix,
  };
}, 60_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await server?.stop();
});

/** The browser's own clock format for a wall-clock time. */
const clock = (h: number, min: number) => new Date(2000, 0, 1, h, min).toLocaleTimeString(undefined, { timeStyle: 'short' });
const twelveHour = /AM|PM/i.test(clock(13, 0));

describe('Discover says the real cause', () => {
  it('a failed first update names ListenBrainz and why, and promises no genres it does not have', async () => {
    await server.ctx.discovery.refreshUser(1);
    m.router.navigate('/discover');
    const r = show(m.DiscoverRoute);
    await waitFor(() => expect(text(r)).toContain('Not updated yet'));
    const page = text(r);
    expect(page).toMatch(/Discovery could not update: ListenBrainz could not be reached \(host not found[^)]*\)\./);
    expect(page).not.toContain('http');
    expect(page).toContain('No recommendations yet');
    expect(page).not.toContain('popular in some genres');
  });

  it('a preset opens its previews in view and says that Deezer could not be reached', async () => {
    server.ctx.discovery.repo.replaceRanking(
      'global',
      [{ name_key: 'world hit', name: 'World Hit', mbid: null, listeners: 10, source: 'listenbrainz', image: null, in_library: 0 }],
      server.ctx.clock.now(),
    );
    const proto = (window as unknown as { HTMLElement: { prototype: { scrollIntoView(this: Element): void } } }).HTMLElement.prototype;
    const original = proto.scrollIntoView;
    const scrolled: Element[] = [];
    proto.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    try {
      m.router.navigate('/discover');
      const r = show(m.DiscoverRoute);
      await waitFor(() => expect(find(r, 'ul', 'Editorial playlists')).toHaveLength(1));
      click(one(r, 'button.preset-button', /Trending Now/));
      await waitFor(() => expect(text(one(r, '#preset-previews'))).toContain('No previews found'));
      expect(scrolled).toContain(one(r, '#preset-previews'));
      await waitFor(() => expect(text(one(r, '#preset-previews'))).toMatch(/Deezer could not be reached \(host not found[^)]*\): try again later\./));
    } finally {
      proto.scrollIntoView = original;
    }
  });
});

describe('flows without Last.fm', () => {
  const openCreate = async (r: El) => {
    await waitFor(() => one(r, 'button', 'New flow'));
    click(one(r, 'button', 'New flow'));
    return waitFor(() => one(r, 'form', 'Create flow'));
  };
  const item = (r: El, name: string) => find(r, 'li.flow-item').find((li) => li.getAttribute('data-flow') === name);

  it('"From scratch" starts with the sources this server has; the others are disabled with the reason the template gives', async () => {
    expect(m.defaultMix({})).toEqual({ discover: 50, mix: 25, trending: 25, focus: 0 });
    const r = show(m.FlowsScreen);
    const form = await openCreate(r);
    await waitFor(() => expect(find(r, 'li.flow-template')).toHaveLength(5));
    const slider = (label: string) => one(form, 'input', `${label} percent`);
    expect([slider('Discover').value, slider('Library Blend').value, slider('Trending').value, slider('Focus').value]).toEqual(['65', '0', '35', '0']);
    expect(slider('Library Blend').disabled).toBe(true);
    expect(slider('Focus').disabled).toBe(true);
    expect(slider('Discover').disabled).toBe(false);
    const why = (source: string) => text(one(form, `[data-source="${source}"] .source-reason`));
    expect(why('mix')).toBe('Library Blend needs Last.fm. Add a Last.fm API key in Settings → Integrations.');
    expect(why('focus')).toBe('Focus needs Last.fm. Add a Last.fm API key in Settings → Integrations.');
    const history = find(r, 'li.flow-template').find((li) => li.getAttribute('data-template') === 'focus-listening-history')!;
    expect(text(one(history, '.source-reason'))).toBe(why('focus'));
    expect(text(r)).not.toContain('integrations.lastfm');

    await typeInto(one(form, 'input', 'Name'), 'Scratch');
    click(one(form, 'button', 'Create flow'));
    await waitFor(() => expect(item(r, 'Scratch')).toBeTruthy());
    expect(find(r, '[role="alert"]')).toEqual([]);
  });

  it('the flow card shows one state at a time, and its times in one clock format', async () => {
    const r = show(m.FlowsScreen);
    await waitFor(() => expect(item(r, 'Scratch')).toBeTruthy());
    const card = () => item(r, 'Scratch')!;
    // The schedule (Fridays at midnight) in the browser's clock format.
    expect(text(one(card(), '[data-testid="flow-schedule"]'))).toBe(`Fridays at ${clock(0, 0)}`);

    click(one(card(), 'button', 'Run Scratch now'));
    // Offline: the first refresh fails, then the run finds nothing and says why, alone.
    await waitFor(() => expect(text(one(card(), '[data-testid="flow-progress"]'))).toMatch(/^No tracks found for this flow: discovery could not update: ListenBrainz could not be reached \(host not found/), 30_000);
    const words = text(card());
    expect(words).not.toContain('Not run yet');
    expect(words).not.toMatch(/queued to run/i);
    expect(find(card(), '.warn').length).toBe(1);
    // The last run in the same clock format as the schedule.
    const lastRun = text(card().querySelectorAll('.flow-facts dd')[1]!);
    expect(lastRun).not.toBe('never');
    expect(/AM|PM/i.test(lastRun)).toBe(twelveHour);
  }, 60_000);

  it('a queued or waiting run is the only state the card shows', () => {
    const flow = { stats: { total: 0 }, currentRun: null, lastRunAt: '2026-11-27T06:35:00Z', lastError: 'No tracks found for this flow: discovery has nothing new for its sources yet' };
    expect(m.progressLine(flow, 'queued')).toEqual({ text: 'Queued to run', warn: false });
    expect(m.progressLine(flow, 'waiting')).toEqual({ text: 'Waiting for discovery to finish updating; the run starts then', warn: false });
    expect(m.progressLine(flow, null)).toEqual({ text: flow.lastError, warn: true });
    expect(m.progressLine({ ...flow, lastRunAt: null, lastError: null }, null)).toEqual({ text: 'Not run yet', warn: false });
  });
});
