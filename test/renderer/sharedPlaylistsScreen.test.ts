import { click, container, find, fire, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pausedRetryCycles } from '../../server/domain/playlists/retryCycle.js';
import { startJsonFake, type JsonFake } from '../fakes/http.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUser, mbids, musicbrainzCatalogue, scanLibrary, writeLibrary } from '../imports/helpers.js';

/**
 * The shared playlists of the Playlists screen, rendered against a real server (library of two owned
 * tracks, ListenBrainz and MusicBrainz fakes, a web page serving a playlist): the list with counts
 * and sync state, create, import from a file and from a web address with sync options, the tracks
 * with their owned / downloading / missing state, search again, retries, add, remove, export, edit,
 * delete, live updates over /ws, read-only for others; and the import dialog's choice of target.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { id: number; token: string; user: unknown };
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  socket: { startSocket(): void; stopSocket(): void; socketState: { get(): string } };
  player: { get(): { queue: { id: number }[]; index: number } };
}

let dir: string;
let server: TestServer;
let lb: ListenBrainzFake;
let mb: MusicBrainzFake;
let source: JsonFake;
let sourceBody = '';
let m: Modules;
let PlaylistsScreen: FunctionComponent;
let SharedPlaylistScreen: FunctionComponent<{ id: string }>;
let ImportScreen: FunctionComponent;
let eve: Session;
let reader: Session;
let root: El | null = null;
const downloaded: { blob: Blob }[] = [];

async function session(username: string, permissions: Record<string, boolean>): Promise<Session> {
  const u = await createUser(server, username, permissions);
  const me = (await (await server.api('/api/auth/me', { token: u.token })).json()) as { user?: unknown };
  return { id: u.id, token: u.token, user: me.user ?? me };
}

const api = async (p: string, as: Session, init: { method?: string; json?: unknown } = {}) => {
  const res = await server.api(p, { token: as.token, ...init });
  const body = await res.text();
  return { status: res.status, body: body ? JSON.parse(body) : null };
};
const sharedRows = () => server.ctx.db.prepare('SELECT id, name, sync_enabled, sync_interval_hours, keep_removed_tracks, source_url FROM shared_playlists ORDER BY seq').all() as any[];
const rowNamed = (name: string) => sharedRows().find((r) => r.name === name);
/** The playlist's row once the server has it (waitFor retries on false). */
const madeRow = (name: string) => waitFor(() => rowNamed(name) ?? false);
const trackIdOf = (title: string) => server.ctx.db.prepare('SELECT id FROM library_tracks WHERE title = ?').pluck().get(title) as number;
const jspf = (title: string, tracks: [string, string][]) => JSON.stringify({ playlist: { title, track: tracks.map(([creator, t]) => ({ creator, title: t })) } });

function show(as: Session, vnode: ReturnType<typeof h<any>>, at: string): El {
  m.session.set({ token: as.token, user: as.user, notice: null });
  window.history.replaceState(null, '', at);
  root = container();
  render(vnode, root as unknown as Element);
  return root;
}
const button = (r: El, name: string | RegExp) => one(r, 'button', name);
const rowOf = (r: El, title: string) => find(r, 'tbody tr').find((tr) => text(tr.querySelector('.track-title')) === title);
const stateOf = (r: El, title: string) => rowOf(r, title)?.getAttribute('data-state');

/** A shared playlist made through the API as `as`, with these tracks. */
async function made(as: Session, name: string, tracks: [string, string][], extra: Record<string, unknown> = {}) {
  const res = await api('/api/playlists/shared-playlists', as, { method: 'POST', json: { name, tracks: tracks.map(([artistName, trackName]) => ({ artistName, trackName })), ...extra } });
  expect(res.status).toBe(201);
  return res.body as { id: string; tracks: { jobId: string; trackName: string }[] };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-shared-ui-'));
  const music = writeLibrary(dir);
  [lb, mb, source] = await Promise.all([
    startListenBrainzFake(),
    startMusicBrainzFake(musicbrainzCatalogue),
    startJsonFake(() => ({ body: sourceBody, headers: { 'content-type': 'application/json' } })),
  ]);
  lb.tokens.set('lb-token-eve', 'eve_lb');
  lb.playlists.set('11111111-1111-4111-8111-111111111111', {
    id: '11111111-1111-4111-8111-111111111111',
    title: 'Harbor Mix',
    creator: 'eve_lb',
    public: false,
    tracks: [
      { title: 'Anchor', artist: 'Velvet Harbor', recordingMbid: mbids.anchor },
      { title: 'Undertow', artist: 'Velvet Harbor', album: 'Salt and Iron', recordingMbid: mbids.undertow, durationMs: 3000 },
    ],
  });
  server = await startTestServer({
    musicDirs: [music],
    env: {
      TONEARM_LISTENBRAINZ_URL: lb.url,
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      TONEARM_LIBRARY_WATCH: '0',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1',
    },
  });
  await scanLibrary(server);
  // Downloads stay where they are: no source is set up, and the worker must not fail them meanwhile.
  expect((await server.api('/api/playlists/worker/stop', { method: 'POST', token: server.admin.token })).status).toBe(200);
  eve = await session('eve', { accessFlow: true });
  reader = await session('rita', {});
  setOrigin(server.url, '/playlists');
  m = {
    session: ((await renderer('session.ts')) as { session: Modules['session'] }).session,
    socket: (await renderer('socket.ts')) as Modules['socket'],
    player: ((await renderer('player/player.ts')) as { player: Modules['player'] }).player,
  };
  ({ PlaylistsScreen } = (await renderer('playlists/PlaylistsScreen.tsx')) as { PlaylistsScreen: FunctionComponent });
  ({ SharedPlaylistScreen } = (await renderer('playlists/SharedPlaylistScreen.tsx')) as { SharedPlaylistScreen: FunctionComponent<{ id: string }> });
  ({ ImportScreen } = (await renderer('imports/ImportScreen.tsx')) as { ImportScreen: FunctionComponent });
  // What the browser would save: the export's blob (the anchor's click itself goes nowhere here).
  const create = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob: Blob) => {
    downloaded.push({ blob });
    return create(blob);
  };
}, 60_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root?.remove();
  root = null;
});

afterAll(async () => {
  m?.socket.stopSocket();
  await server?.stop();
  await Promise.all([lb?.close(), mb?.close(), source?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('shared playlists on the Playlists screen', () => {
  it('creates one from the list and lists each with its track count, missing count and sync state', async () => {
    const r = show(eve, h(PlaylistsScreen, {}), '/playlists');
    await waitFor(() => expect(text(r)).toContain('No shared playlists yet.'));
    click(button(r, 'New shared playlist'));
    const form = await waitFor(() => one(r, 'form', 'New shared playlist'));
    await typeInto(one(form, 'input#shared-name'), 'Kitchen radio');
    click(button(form, 'Create shared playlist'));
    const row = await madeRow('Kitchen radio');
    await waitFor(() => expect(window.location.pathname).toBe(`/playlists/shared/${row.id}`));

    sourceBody = jspf('Harbor feed', [
      ['Velvet Harbor', 'Anchor'],
      ['Nobody Known', 'Lost Song'],
      ['Nobody Known', 'Other Song'],
    ]);
    const imported = await api('/api/playlists/shared-playlists/import', eve, { method: 'POST', json: { url: `${source.url}/feed.jspf`, syncEnabled: true, syncIntervalHours: 6 } });
    expect(imported.status).toBe(201);
    render(null, r as unknown as Element);
    render(h(PlaylistsScreen, {}), r as unknown as Element);
    const list = await waitFor(() => one(r, 'ul', 'Shared playlists'));
    await waitFor(() => expect(find(list, 'li')).toHaveLength(2));
    const tile = (name: string) => find(list, 'li').find((li) => li.getAttribute('data-playlist') === name)!;
    expect(text(one(tile('Kitchen radio'), '[data-testid="shared-counts"]'))).toBe('Empty · Yours');
    expect(find(tile('Kitchen radio'), '[data-testid="shared-sync"]')).toHaveLength(0);
    expect(text(one(tile('Harbor feed'), '[data-testid="shared-counts"]'))).toBe('3 tracks · 2 missing · Yours');
    expect(text(one(tile('Harbor feed'), '[data-testid="shared-sync"]'))).toBe('Syncs every 6 hours · synced just now');
    expect(one(tile('Harbor feed'), 'a').getAttribute('href')).toBe(`/playlists/shared/${imported.body.id}`);
  });

  it('imports a JSPF file by its own name, and an M3U file by the file name', async () => {
    const r = show(eve, h(PlaylistsScreen, {}), '/playlists');
    const openImport = async () => {
      await waitFor(() => button(r, 'Import a playlist…'));
      click(button(r, 'Import a playlist…'));
      return waitFor(() => one(r, 'form', 'Import a shared playlist'));
    };
    let form = await openImport();
    const input = one(form, 'input#import-file') as unknown as { files: unknown };
    input.files = [new File([jspf('LB picks', [['Velvet Harbor', 'Old Pier'], ['Nobody Known', 'Far Away']])], 'export.jspf', { type: 'application/json' })];
    fire(input as unknown as El, 'change');
    await new Promise((res) => setTimeout(res, 0));
    click(button(form, 'Import'));
    const picks = await madeRow('LB picks');
    await waitFor(() => expect(window.location.pathname).toBe(`/playlists/shared/${picks.id}`));
    const detail = await api(`/api/playlists/shared-playlists/${picks.id}`, eve);
    expect(detail.body.tracks.map((t: any) => [t.trackName, t.status])).toEqual([
      ['Old Pier', 'available'],
      ['Far Away', 'pending'],
    ]);

    render(null, r as unknown as Element);
    render(h(PlaylistsScreen, {}), r as unknown as Element);
    form = await openImport();
    const m3u = one(form, 'input#import-file') as unknown as { files: unknown };
    m3u.files = [new File(['#EXTM3U\n#EXTINF:180,Velvet Harbor - Anchor\nanchor.mp3\n'], 'Sunday morning.m3u8', { type: 'audio/x-mpegurl' })];
    fire(m3u as unknown as El, 'change');
    await new Promise((res) => setTimeout(res, 0));
    click(button(form, 'Import'));
    await waitFor(() => expect(rowNamed('Sunday morning')).toBeTruthy());

    // A broken file: the server's words, and nothing made.
    render(null, r as unknown as Element);
    render(h(PlaylistsScreen, {}), r as unknown as Element);
    form = await openImport();
    const broken = one(form, 'input#import-file') as unknown as { files: unknown };
    broken.files = [new File(['{"playlist": '], 'broken.json', { type: 'application/json' })];
    fire(broken as unknown as El, 'change');
    await new Promise((res) => setTimeout(res, 0));
    const before = sharedRows().length;
    click(button(form, 'Import'));
    await waitFor(() => expect(text(one(r, '[role="alert"]'))).toContain('The playlist is not valid JSON'));
    expect(sharedRows()).toHaveLength(before);
  });

  it('imports from a web address with its sync options, then syncs the changes', async () => {
    sourceBody = jspf('Radio list', [['Velvet Harbor', 'Anchor']]);
    const r = show(eve, h(PlaylistsScreen, {}), '/playlists');
    await waitFor(() => button(r, 'Import a playlist…'));
    click(button(r, 'Import a playlist…'));
    const form = await waitFor(() => one(r, 'form', 'Import a shared playlist'));
    click(find(form, 'label.check').find((l) => text(l) === 'A web address')!.querySelector('input')!);
    await new Promise((res) => setTimeout(res, 0));
    await typeInto(one(form, 'input#import-url'), `${source.url}/radio.jspf`);
    await typeInto(one(form, 'input#import-hours'), '12');
    click(find(form, 'label.check').find((l) => text(l) === 'Keep tracks the source removed')!.querySelector('input')!);
    await new Promise((res) => setTimeout(res, 0));
    click(button(form, 'Import'));
    const row = await madeRow('Radio list');
    expect(row).toMatchObject({ sync_enabled: 1, sync_interval_hours: 12, keep_removed_tracks: 1, source_url: `${source.url}/radio.jspf` });

    render(null, r as unknown as Element);
    const d = show(eve, h(SharedPlaylistScreen, { id: row.id }), `/playlists/shared/${row.id}`);
    await waitFor(() => expect(text(one(d, 'h1'))).toBe('Radio list'));
    expect(text(one(d, '[data-testid="shared-sync"]'))).toContain('Syncs every 12 hours · synced just now');
    sourceBody = jspf('Radio list', [['Nobody Known', 'New Song']]);
    click(button(d, 'Sync now'));
    await waitFor(() => expect(text(d)).toContain('Synced: 1 added, 0 removed, 1 kept; 2 tracks now.'));
    await waitFor(() => expect(stateOf(d, 'New Song')).toBe('downloading'));
    expect(text(rowOf(d, 'Anchor'))).toContain('gone from the source');
  });

  it('shows owned, downloading and missing tracks; searches again for one and for all; pauses retries', async () => {
    const p = await made(eve, 'Mixed bag', [
      ['Velvet Harbor', 'Anchor'],
      ['Nobody Known', 'Lost Song'],
      ['Nobody Known', 'Gone Song'],
      ['Nobody Known', 'Waiting Song'],
    ]);
    const job = (title: string) => Number(p.tracks.find((t) => t.trackName === title)!.jobId);
    for (const t of ['Lost Song', 'Gone Song']) server.ctx.downloads.transition(job(t), { status: 'failed', error: 'No source has it' });
    const r = show(eve, h(SharedPlaylistScreen, { id: p.id }), `/playlists/shared/${p.id}`);
    await waitFor(() => expect(find(r, 'tbody tr')).toHaveLength(4));
    expect(['Anchor', 'Lost Song', 'Gone Song', 'Waiting Song'].map((t) => stateOf(r, t))).toEqual(['owned', 'missing', 'missing', 'downloading']);
    expect(text(one(rowOf(r, 'Lost Song')!, '.entry-state'))).toBe('Not found: No source has it');
    expect(text(one(rowOf(r, 'Waiting Song')!, '.entry-state'))).toBe('Waiting to download');
    expect(text(one(r, '[data-testid="shared-counts"]'))).toBe('4 tracks · 3 missing · Yours');
    // Only a search that is over can be started again; only owned tracks play.
    expect(find(rowOf(r, 'Waiting Song')!, 'button', 'Search again for Waiting Song')).toHaveLength(0);
    expect(one(rowOf(r, 'Lost Song')!, 'button', 'Play Lost Song').disabled).toBe(true);

    click(button(rowOf(r, 'Lost Song')!, 'Search again for Lost Song'));
    await waitFor(() => expect(stateOf(r, 'Lost Song')).toBe('downloading'));
    expect(server.ctx.downloads.get(job('Lost Song'))?.status).toBe('pending');
    expect(text(r)).toContain('Searching again for “Lost Song”.');

    click(button(r, 'Search again for missing'));
    await waitFor(() => expect(text(r)).toContain('Searching again for 1 missing track.'));
    await waitFor(() => expect(stateOf(r, 'Gone Song')).toBe('downloading'));
    expect(server.ctx.downloads.get(job('Gone Song'))?.status).toBe('pending');
    expect(button(r, 'Search again for missing').disabled).toBe(true);

    click(button(r, 'Pause retries'));
    await waitFor(() => button(r, 'Resume retries'));
    expect(pausedRetryCycles(server.ctx)[p.id]).toBe(true);
    click(button(r, 'Resume retries'));
    await waitFor(() => button(r, 'Pause retries'));
    expect(pausedRetryCycles(server.ctx)[p.id]).toBeUndefined();

    click(button(r, 'Play'));
    await waitFor(() => expect(m.player.get().queue.map((t) => t.id)).toEqual([trackIdOf('Anchor')]));
  });

  it('hears download changes over /ws and shows them without a reload', async () => {
    const p = await made(eve, 'Live one', [['Nobody Known', 'Slow Song']]);
    m.socket.startSocket();
    try {
      m.session.set({ token: eve.token, user: eve.user, notice: null });
      await waitFor(() => m.socket.socketState.get() === 'open');
      const r = show(eve, h(SharedPlaylistScreen, { id: p.id }), `/playlists/shared/${p.id}`);
      await waitFor(() => expect(text(one(rowOf(r, 'Slow Song')!, '.entry-state'))).toBe('Waiting to download'));
      // Give the subscription a moment to reach the server before the change.
      await new Promise((res) => setTimeout(res, 200));
      server.ctx.downloads.transition(Number(p.tracks[0]!.jobId), { status: 'downloading', progress: 10 });
      await waitFor(() => expect(text(one(rowOf(r, 'Slow Song')!, '.entry-state'))).toBe('Downloading'), 8000);
    } finally {
      m.socket.stopSocket();
    }
  });

  it('adds a track by artist and title, removes one, exports, edits and deletes after asking', async () => {
    const p = await made(eve, 'Workbench', [['Nobody Known', 'Drop Me']]);
    const r = show(eve, h(SharedPlaylistScreen, { id: p.id }), `/playlists/shared/${p.id}`);
    await waitFor(() => expect(find(r, 'tbody tr')).toHaveLength(1));

    const add = one(r, 'form', 'Add a track');
    await typeInto(one(add, 'input#add-artist'), 'Velvet Harbor');
    await typeInto(one(add, 'input#add-title'), 'Old Pier');
    click(button(add, 'Add track'));
    await waitFor(() => expect(stateOf(r, 'Old Pier')).toBe('owned'));
    expect(text(r)).toContain('“Old Pier” was added from your library.');

    click(button(rowOf(r, 'Drop Me')!, 'Remove Drop Me from the playlist'));
    await waitFor(() => expect(rowOf(r, 'Drop Me')).toBeUndefined());
    const after = await api(`/api/playlists/shared-playlists/${p.id}`, eve);
    expect(after.body.tracks.map((t: any) => t.trackName)).toEqual(['Old Pier']);
    expect(server.ctx.downloads.get(Number(p.tracks[0]!.jobId))?.status).toBe('cancelled');

    downloaded.length = 0;
    click(button(r, 'Export'));
    await waitFor(() => expect(text(r)).toContain('Exported as Workbench.json.'));
    expect(downloaded).toHaveLength(1);
    const exported = JSON.parse(await downloaded[0]!.blob.text());
    expect(exported).toMatchObject({ format: 'tonearm-playlist', name: 'Workbench' });
    expect(exported.tracks.map((t: any) => [t.artistName, t.trackName])).toEqual([['Velvet Harbor', 'Old Pier']]);
    const format = one(r, 'select#export-format');
    format.value = 'm3u';
    fire(format, 'change');
    await new Promise((res) => setTimeout(res, 0));
    click(button(r, 'Export'));
    await waitFor(() => expect(text(r)).toContain('Exported as Workbench.m3u8.'));
    expect(await downloaded[1]!.blob.text()).toContain('Velvet Harbor - Old Pier');

    click(button(r, 'Edit…'));
    const edit = await waitFor(() => one(r, 'form', 'Edit the shared playlist'));
    await typeInto(one(edit, 'input#edit-name'), 'Workbench two');
    await typeInto(one(edit, 'input#edit-description'), 'Tools of the trade');
    click(button(edit, 'Save'));
    await waitFor(() => expect(text(one(r, 'h1'))).toBe('Workbench two'));
    expect(rowNamed('Workbench two')).toBeTruthy();
    expect(text(r)).toContain('Tools of the trade');

    click(button(r, 'Delete…'));
    expect(rowNamed('Workbench two')).toBeTruthy();
    click(await waitFor(() => button(r, 'Delete “Workbench two”')));
    await waitFor(() => expect(window.location.pathname).toBe('/playlists'));
    expect((await api(`/api/playlists/shared-playlists/${p.id}`, eve)).status).toBe(404);
  });

  it('is read-only for a user who may not change it: play and export, nothing else', async () => {
    const p = await made(eve, 'Eve only', [['Velvet Harbor', 'Anchor'], ['Nobody Known', 'Far Song']]);
    const list = show(reader, h(PlaylistsScreen, {}), '/playlists');
    await waitFor(() => one(list, 'ul', 'Shared playlists'));
    expect(find(list, 'button', 'New shared playlist')).toHaveLength(0);
    expect(find(list, 'button', 'Import a playlist…')).toHaveLength(0);
    const tile = find(list, 'li').find((li) => li.getAttribute('data-playlist') === 'Eve only')!;
    expect(text(one(tile, '[data-testid="shared-counts"]'))).toBe('2 tracks · 1 missing · By eve · read-only');
    render(null, list as unknown as Element);

    const r = show(reader, h(SharedPlaylistScreen, { id: p.id }), `/playlists/shared/${p.id}`);
    await waitFor(() => expect(find(r, 'tbody tr')).toHaveLength(2));
    expect(text(r)).toContain('Read-only: only its owner or an administrator can change this playlist.');
    for (const name of ['Edit…', 'Delete…', 'Pause retries', 'Search again for missing', 'Generate']) expect(find(r, 'button', name)).toHaveLength(0);
    expect(find(r, 'form', 'Add a track')).toHaveLength(0);
    expect(find(r, 'button', /^Remove /)).toHaveLength(0);
    expect(button(r, 'Play').disabled).toBe(false);
    expect(button(r, 'Export').disabled).toBe(false);
  });
});

describe('the import dialog', () => {
  it('imports as a static playlist by default, as a shared one when chosen, and links to what it made', async () => {
    expect((await api('/api/scrobbling/listenbrainz/link', eve, { method: 'PUT', json: { token: 'lb-token-eve' } })).status).toBe(200);
    const r = show(eve, h(ImportScreen, {}), '/import');
    const pick = async () => {
      click(one(r, 'button[role="tab"]', 'ListenBrainz'));
      const choice = await waitFor(() => one(r, 'ul.import-playlists button', /^Harbor Mix/));
      click(choice);
      const dialog = await waitFor(() => one(r, '[role="dialog"]'));
      await waitFor(() => expect(text(dialog)).toContain('Harbor Mix (2 tracks)'), 10_000);
      return dialog;
    };

    let dialog = await pick();
    const radio = (value: string) => one(dialog, `input[type="radio"][value="${value}"]`);
    expect(radio('static').checked).toBe(true);
    expect(radio('shared').checked).toBe(false);
    click(button(dialog, 'Import as a playlist'));
    let link = await waitFor(() => one(dialog, '[role="status"] a'));
    const staticId = server.ctx.db.prepare("SELECT id FROM static_playlists WHERE name = 'Harbor Mix'").pluck().get() as number;
    expect(staticId).toBeGreaterThan(0);
    expect(link.getAttribute('href')).toBe(`/playlists/${staticId}`);
    expect(text(link)).toBe('Open “Harbor Mix”');

    // A second time, as a shared playlist.
    click(one(r, 'button[role="tab"]', 'Spotify'));
    await waitFor(() => expect(find(r, '[role="dialog"]')).toHaveLength(0));
    dialog = await pick();
    click(radio('shared'));
    await new Promise((res) => setTimeout(res, 0));
    expect(radio('shared').checked).toBe(true);
    click(button(dialog, 'Import as a shared playlist'));
    link = await waitFor(() => one(dialog, '[role="status"] a'));
    const shared = await madeRow('Harbor Mix');
    expect(link.getAttribute('href')).toBe(`/playlists/shared/${shared.id}`);
    const detail = await api(`/api/playlists/shared-playlists/${shared.id}`, eve);
    expect(detail.body).toMatchObject({ ownerUserId: eve.id, canEdit: true });
    expect(detail.body.tracks.map((t: any) => t.trackName)).toContain('Anchor');
  });
});
