import { click, container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { downloadsRoot } from '../../server/domain/downloads/layout.js';
import type { LastFmFake } from '../fakes/lastfm/index.js';
import type { TestServer } from '../helpers/server.js';
import { startFlowServer } from '../flows/helpers.js';

/**
 * The Flows screen rendered against a real server and the Last.fm fake: templates (one unavailable,
 * with its reason), a flow from scratch refused by the server's validation and then accepted, the
 * enable switch, run now with the planned tracks and live progress from `playlist_status` over /ws,
 * delete with a confirmation, and no flows for a user without the `accessFlow` permission.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  socket: { startSocket(): void; stopSocket(): void; socketState: { get(): string } };
  player: { get(): { queue: { title: string; previewUrl?: string }[]; index: number } };
}

let server: TestServer;
let lastfm: LastFmFake;
let FlowsScreen: FunctionComponent;
let m: Modules;
let admin: Session;
let plain: Session;
let flower: Session;
let root: El | null = null;

async function signIn(username: string, password: string): Promise<Session> {
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username, password } })).json()) as { token: string; user: unknown };
  return { token: s.token, user: s.user };
}

type ServerFlow = { id: string; name: string; enabled: boolean; mix: Record<string, number>; tags: string[]; scheduleDays: number[]; scheduleTime: string; size: number; templateId: string | null };
const serverFlows = async () => ((await (await server.api('/api/playlists/flows', { token: admin.token })).json()) as { flows: ServerFlow[] }).flows;
const flowNamed = async (name: string) => (await serverFlows()).find((f) => f.name === name);

function show(as: Session): El {
  m.session.set({ token: as.token, user: as.user, notice: null });
  root = container();
  render(h(FlowsScreen, {}), root as unknown as Element);
  return root;
}

/** Retries an async check (the DOM harness's waitFor takes synchronous ones). */
async function eventually(check: () => Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** A wall-clock time in the browser's clock format, as the screens show times. */
const clock = (h: number, min: number) => new Date(2000, 0, 1, h, min).toLocaleTimeString(undefined, { timeStyle: 'short' });
const item = (r: El, name: string) => find(r, 'li.flow-item').find((li) => li.getAttribute('data-flow') === name);
const openCreate = async (r: El) => {
  await waitFor(() => one(r, 'button', 'New flow'));
  click(one(r, 'button', 'New flow'));
  return waitFor(() => one(r, 'form', 'Create flow'));
};

beforeAll(async () => {
  ({ server, lastfm } = await startFlowServer());
  server.ctx.db
    .prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, 0, 0, 10, 1)')
    .run('name:lib a', 'Lib A', 'lib a');
  await server.ctx.discovery.refreshUser(1);
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'noflows', password: 'password-123' } });
  expect(created.status).toBe(201);
  const allowed = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'flower', password: 'password-123', permissions: { accessFlow: true } } });
  expect(allowed.status).toBe(201);
  admin = await signIn(server.admin.username, server.admin.password);
  plain = await signIn('noflows', 'password-123');
  flower = await signIn('flower', 'password-123');
  setOrigin(server.url, '/flows');
  m = {
    session: ((await renderer('session.ts')) as { session: Modules['session'] }).session,
    socket: (await renderer('socket.ts')) as Modules['socket'],
    player: ((await renderer('player/player.ts')) as { player: Modules['player'] }).player,
  };
  ({ FlowsScreen } = (await renderer('flows/FlowsScreen.tsx')) as { FlowsScreen: FunctionComponent });
}, 60_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  m?.socket.stopSocket();
  await server?.stop();
  await lastfm?.close();
});

describe('Flows screen', () => {
  it('creates a flow from a template; a template that cannot be used is disabled with the reason', async () => {
    const r = show(admin);
    await waitFor(() => expect(text(r)).toContain('No flows yet'));
    await openCreate(r);
    await waitFor(() => one(r, 'button', 'Create Trending Mix'));
    const history = one(r, 'button', 'Create Listening History');
    expect(history.disabled).toBe(true);
    expect(text(one(r, 'li.flow-template[data-template="focus-listening-history"]'))).toContain('Listening History needs listening history');
    click(one(r, 'button', 'Create Trending Mix'));
    await waitFor(() => expect(item(r, 'Trending Mix')).toBeTruthy());
    const li = item(r, 'Trending Mix')!;
    expect(text(one(li, '[data-testid="flow-schedule"]'))).toBe(`Fridays at ${clock(0, 0)}`);
    expect(text(li)).toContain('Trending 100%');
    expect(text(li)).toContain('Not run yet');
    expect(await flowNamed('Trending Mix')).toMatchObject({ templateId: 'trending-mix', size: 20, enabled: true });
  });

  it('creates a flow from scratch: the server refuses focus without tags next to the form, then accepts it', async () => {
    const r = show(admin);
    const form = await openCreate(r);
    await typeInto(one(form, 'input', 'Name'), 'Evening Gaze');
    await typeInto(one(form, 'input', 'Discover percent'), '0');
    await typeInto(one(form, 'input', 'Library Blend percent'), '0');
    await typeInto(one(form, 'input', 'Trending percent'), '40');
    await typeInto(one(form, 'input', 'Focus percent'), '60');
    await typeInto(one(form, 'input', 'Tracks'), '12');
    click(one(form, 'input', 'Friday'));
    click(one(form, 'input', 'Monday'));
    click(one(form, 'input', 'Wednesday'));
    await typeInto(one(form, 'input', 'At'), '18:30');
    click(one(form, 'button', 'Create flow'));
    await waitFor(() => expect(text(one(form, '[role="alert"]'))).toBe('Focus needs at least one tag or related artist'));
    expect(await flowNamed('Evening Gaze')).toBeUndefined();

    await typeInto(one(form, 'input', 'Focus tags'), 'shoegaze, dream pop');
    click(one(form, 'button', 'Create flow'));
    await waitFor(() => expect(item(r, 'Evening Gaze')).toBeTruthy());
    expect(find(r, 'form', 'Create flow')).toEqual([]);
    expect(text(one(item(r, 'Evening Gaze')!, '[data-testid="flow-schedule"]'))).toBe(`Mon, Wed at ${clock(18, 30)}`);
    expect(await flowNamed('Evening Gaze')).toMatchObject({
      mix: { discover: 0, mix: 0, trending: 40, focus: 60 },
      tags: ['shoegaze', 'dream pop'],
      size: 12,
      scheduleDays: [1, 3],
      scheduleTime: '18:30',
    });
  });

  it('the switch turns a flow off and on again on the server', async () => {
    const r = show(admin);
    await waitFor(() => expect(item(r, 'Trending Mix')).toBeTruthy());
    const sw = () => one(item(r, 'Trending Mix')!, 'input', 'Enabled: Trending Mix');
    expect(sw().checked).toBe(true);
    click(sw());
    await eventually(async () => expect((await flowNamed('Trending Mix'))!.enabled).toBe(false));
    await waitFor(() => expect(sw().checked).toBe(false));
    expect(text(item(r, 'Trending Mix')!)).toContain('switched off');
    click(sw());
    await eventually(async () => expect((await flowNamed('Trending Mix'))!.enabled).toBe(true));
    await waitFor(() => expect(sw().checked).toBe(true));
  });

  it('run now plans the tracks and shows the live progress pushed over /ws and the tracks with their status', async () => {
    const create = await server.api('/api/playlists/flows', {
      method: 'POST',
      token: admin.token,
      json: { name: 'Quick Three', size: 3, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '00:00' },
    });
    expect(create.status).toBe(200);
    m.socket.startSocket();
    try {
      await waitFor(() => m.socket.socketState.get() === 'open');
      const r = show(admin);
      await waitFor(() => expect(item(r, 'Quick Three')).toBeTruthy());
      expect(text(one(item(r, 'Quick Three')!, '[data-testid="flow-progress"]'))).toBe('Not run yet');
      click(one(item(r, 'Quick Three')!, 'button', 'Run Quick Three now'));
      // The worker is stopped: the run plans three tracks that wait to download; the screen hears it from playlist_status (the poll is off while /ws is open).
      await waitFor(() => expect(text(one(item(r, 'Quick Three')!, '[data-testid="flow-progress"]'))).toBe('0 of 3 downloaded · 3 waiting'), 15_000);
      expect(text(one(r, '[data-testid="flows-hint"]'))).toContain('The download worker is stopped');
      click(one(item(r, 'Quick Three')!, 'button', 'Show the tracks of Quick Three'));
      await waitFor(() => expect(find(item(r, 'Quick Three')!, 'li.flow-track')).toHaveLength(3));
      const tracks = find(item(r, 'Quick Three')!, 'li.flow-track');
      expect(tracks.map((t) => t.getAttribute('data-status'))).toEqual(['pending', 'pending', 'pending']);
      expect(tracks.every((t) => text(t).includes('Waiting'))).toBe(true);
      const jobs = (await (await server.api(`/api/playlists/jobs/${(await flowNamed('Quick Three'))!.id}`, { token: admin.token })).json()) as { trackName: string }[];
      expect(tracks.map((t) => text(one(t, '.track-title')))).toEqual(jobs.map((j) => j.trackName));
    } finally {
      m.socket.stopSocket();
    }
  }, 30_000);

  it('a failed track is searched again, a downloaded one plays through the player, and the Lidarr list URL is shown', async () => {
    const flow = (await flowNamed('Quick Three'))!;
    const jobs = (await (await server.api(`/api/playlists/jobs/${flow.id}`, { token: admin.token })).json()) as { id: string; trackName: string; artistName: string }[];
    const [failing, finished] = [jobs[0]!, jobs[1]!];
    const svc = server.ctx.downloads;
    svc.transition(Number(failing.id), { status: 'failed', error: 'No source had it' });
    const file = path.join(downloadsRoot(server.ctx), 'flow-ui-test', `${finished.trackName}.mp3`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.from('ID3 not really audio'));
    svc.transition(Number(finished.id), { status: 'done', finalPath: file, completedAt: Date.now() });

    const r = show(admin);
    await waitFor(() => expect(item(r, 'Quick Three')).toBeTruthy());
    click(one(item(r, 'Quick Three')!, 'button', 'Show the tracks of Quick Three'));
    const again = await waitFor(() => one(item(r, 'Quick Three')!, 'button', `Search again for ${failing.trackName} by ${failing.artistName}`));
    expect(text(again.closest('li')!)).toContain('No source had it');
    click(again);
    await eventually(async () => expect(svc.get(Number(failing.id))!.status).toBe('pending'));
    await waitFor(() => expect(find(item(r, 'Quick Three')!, 'button', /^Search again for /)).toEqual([]));

    click(one(item(r, 'Quick Three')!, 'button', `Play ${finished.trackName} by ${finished.artistName}`));
    await waitFor(() => expect(m.player.get().queue.map((t) => t.title)).toEqual([finished.trackName]));
    const url = m.player.get().queue[0]!.previewUrl!;
    expect(url).toMatch(new RegExp(`^/api/playlists/stream/${finished.id}\\?st=`));
    const streamed = await fetch(new URL(url, server.url));
    expect(streamed.status).toBe(200);
    expect(Buffer.from(await streamed.arrayBuffer()).toString()).toBe('ID3 not really audio');

    // Nothing of this run is in the library yet: keeping it is refused, and the reason is shown.
    click(one(item(r, 'Quick Three')!, 'button', 'Keep Quick Three as a static playlist'));
    await waitFor(() => expect(text(one(item(r, 'Quick Three')!, 'p[role="alert"]'))).toBe('This flow has no completed tracks to keep yet'));

    click(one(item(r, 'Quick Three')!, 'button', 'Lidarr import list of Quick Three'));
    const field = await waitFor(() => one(item(r, 'Quick Three')!, 'input', 'Lidarr import list URL of Quick Three'));
    expect(field.value).toMatch(new RegExp(`/api/feeds/lidarr/flows/${flow.id}\\.json\\?token=[0-9a-f]+$`));
    const feed = await fetch(field.value);
    expect(feed.status).toBe(200);
    expect(Array.isArray(await feed.json())).toBe(true);
  }, 30_000);

  it('edit changes the flow on the server', async () => {
    const r = show(admin);
    await waitFor(() => expect(item(r, 'Trending Mix')).toBeTruthy());
    click(one(item(r, 'Trending Mix')!, 'button', 'Edit Trending Mix'));
    const form = await waitFor(() => one(item(r, 'Trending Mix')!, 'form', 'Save changes'));
    await typeInto(one(form, 'input', 'Name'), 'Trending Mix');
    // 0 is below the field's minimum: the browser itself keeps the form from being sent.
    await typeInto(one(form, 'input', 'Tracks'), '0');
    click(one(form, 'button', 'Save changes'));
    expect((one(form, 'input', 'Tracks') as unknown as HTMLInputElement).validity.rangeUnderflow).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(find(form, '[role="alert"]')).toEqual([]);
    // An empty field passes the browser's check; the server refuses it, and says why next to the form.
    await typeInto(one(form, 'input', 'Tracks'), '');
    click(one(form, 'button', 'Save changes'));
    await waitFor(() => expect(text(one(form, '[role="alert"]'))).toBe('size must be a whole number greater than 0'));
    await typeInto(one(form, 'input', 'Tracks'), '25');
    click(one(form, 'input', 'Sunday'));
    await waitFor(() => one(form, 'input', 'Sunday').checked);
    await new Promise((r) => setTimeout(r, 0)); // a person's next click comes after the render
    click(one(form, 'button', 'Save changes'));
    await waitFor(() => expect(find(item(r, 'Trending Mix')!, 'form')).toEqual([]));
    await waitFor(() => expect(text(one(item(r, 'Trending Mix')!, '[data-testid="flow-schedule"]'))).toBe(`Sun, Fri at ${clock(0, 0)}`));
    expect(await flowNamed('Trending Mix')).toMatchObject({ size: 25, scheduleDays: [0, 5] });
  });

  it('without /ws the screen reads the status again on its own (the fallback poll)', async () => {
    expect(m.socket.socketState.get()).toBe('offline');
    const r = show(admin);
    const sw = () => one(item(r, 'Trending Mix')!, 'input', 'Enabled: Trending Mix');
    await waitFor(() => expect(sw().checked).toBe(true));
    const id = (await flowNamed('Trending Mix'))!.id;
    const res = await server.api(`/api/playlists/flows/${id}/enabled`, { method: 'PUT', token: admin.token, json: { enabled: false } });
    expect(res.status).toBe(200);
    await waitFor(() => expect(sw().checked).toBe(false), 8000);
    await server.api(`/api/playlists/flows/${id}/enabled`, { method: 'PUT', token: admin.token, json: { enabled: true } });
  }, 15_000);

  it('delete asks first, then removes the flow', async () => {
    const r = show(admin);
    await waitFor(() => expect(item(r, 'Evening Gaze')).toBeTruthy());
    click(one(item(r, 'Evening Gaze')!, 'button', 'Delete Evening Gaze'));
    const dialog = await waitFor(() => one(item(r, 'Evening Gaze')!, '[role="alertdialog"]'));
    expect(text(dialog)).toContain('Delete “Evening Gaze”?');
    click(one(dialog, 'button', 'Keep it'));
    await waitFor(() => expect(find(item(r, 'Evening Gaze')!, '[role="alertdialog"]')).toEqual([]));
    expect(await flowNamed('Evening Gaze')).toBeTruthy();
    click(one(item(r, 'Evening Gaze')!, 'button', 'Delete Evening Gaze'));
    click(await waitFor(() => one(item(r, 'Evening Gaze')!, 'button', 'Delete for good')));
    await waitFor(() => expect(item(r, 'Evening Gaze')).toBeUndefined());
    expect(await flowNamed('Evening Gaze')).toBeUndefined();
  });

  it('a user without the flows permission is told so and gets no controls', async () => {
    const r = show(plain);
    expect(text(r)).toContain('Flows are not available');
    expect(find(r, 'button', 'New flow')).toEqual([]);
  });

  it('a user with the flows permission sees only their own flows', async () => {
    const r = show(flower);
    await waitFor(() => expect(text(r)).toContain('No flows yet'));
    expect(item(r, 'Trending Mix')).toBeUndefined();
    expect(one(r, 'button', 'New flow').disabled).toBe(false);
  });
});
