import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click as press, container, find, fire, press as press_, setOrigin, text as textOf, type as typeInto, type El } from './dom.js';

/**
 * Filling playlists from the web UI (issue 24 §1), rendered by preact into the test browser against a
 * fake of the JSON API that keeps its playlists in memory: "Add to playlist" on an album's track rows
 * (one track, "New playlist…", several selected tracks), "Save queue as playlist" in the player's queue
 * panel, and removing and reordering a playlist's tracks (buttons, Alt+Arrow keys, drag and drop).
 */

type Component = (props: Record<string, unknown>) => unknown;
let preact: typeof import('preact');
let library: { AlbumScreen: Component };
let playlists: { PlaylistScreen: Component; PlaylistsScreen: Component };
let playerBar: { PlayerBar: Component };
let playerModule: { playTracks(tracks: unknown[], start?: number): void; resetPlayer(): void };
const load = (file: string) => import(/* @vite-ignore */ new URL(`../../renderer/src/${file}`, import.meta.url).href);
const calls: { method: string; path: string; body: unknown }[] = [];

const track = (id: number, title: string, durationMs: number, trackNumber: number) => ({
  id, title, artistName: 'Velvet Harbor', artistId: 3, albumId: 4, albumTitle: 'Salt and Iron', durationMs, trackNumber, available: true,
});
const albumTracks = [track(11, 'Harbor Lights', 4_000, 1), track(12, 'Low Tide', 5_000, 2), track(13, 'Salt Wind', 3_000, 3)];
const album = { id: 4, title: 'Salt and Iron', artistName: 'Velvet Harbor', artistId: 3, year: 2020, imageUrl: null, statistics: { trackCount: 3 } };

interface Stored { id: string; name: string; owner: string; editable: boolean; public: boolean; trackIds: number[] }
let stored: Stored[];
let nextId: number;

function reset() {
  stored = [
    { id: '7', name: 'Road trip', owner: 'admin', editable: true, public: false, trackIds: [] },
    { id: '8', name: 'Her mix', owner: 'alice', editable: false, public: true, trackIds: [12] },
  ];
  nextId = 20;
  calls.length = 0;
}

const byId = new Map(albumTracks.map((t) => [t.id, t]));
const summary = (p: Stored) => ({
  id: p.id, kind: 'static', name: p.name, comment: '', public: p.public, owner: p.owner, editable: p.editable,
  songCount: p.trackIds.length, durationMs: p.trackIds.reduce((sum, id) => sum + (byId.get(id)?.durationMs ?? 0), 0), artwork: null,
});
const detailOf = (p: Stored) => ({ ...summary(p), tracks: p.trackIds.map((id, position) => ({ position, track: byId.get(id) })) });
const reply = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function fakeApi(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(String(input), 'http://tonearm.test');
  const method = init.method ?? 'GET';
  const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body ?? null;
  calls.push({ method, path: url.pathname, body });
  const route = `${method} ${url.pathname}`;
  if (route === 'GET /api/library/canonical') {
    const kind = url.searchParams.get('kind');
    const items = kind === 'albums' ? [album] : kind === 'tracks' ? albumTracks : [];
    return reply(200, { kind, page: 1, pageSize: 100, total: items.length, hasMore: false, items });
  }
  if (route === 'GET /api/playlists/playlists') return reply(200, { playlists: stored.map(summary) });
  if (route === 'POST /api/playlists/playlists') {
    const b = body as { name: string; trackIds?: number[] };
    const p = { id: String(nextId++), name: b.name, owner: 'admin', editable: true, public: false, trackIds: b.trackIds ?? [] };
    stored.push(p);
    return reply(201, summary(p));
  }
  const one = /^\/api\/playlists\/playlists\/(\d+)$/.exec(url.pathname);
  const p = one ? stored.find((s) => s.id === one[1]) : undefined;
  if (one && !p) return reply(404, { error: 'Playlist not found' });
  if (p && method === 'GET') return reply(200, detailOf(p));
  if (p && method === 'PUT') {
    if (!p.editable) return reply(403, { error: 'Not your playlist' });
    const b = body as { addTrackIds?: number[]; trackIds?: number[]; removeIndexes?: number[] };
    if (b.trackIds) p.trackIds = [...b.trackIds];
    if (b.removeIndexes) p.trackIds = p.trackIds.filter((_, i) => !b.removeIndexes!.includes(i));
    if (b.addTrackIds) p.trackIds.push(...b.addTrackIds);
    return reply(200, detailOf(p));
  }
  if (route === 'POST /api/health/stream-token') return reply(200, { token: 'st-1', expiresIn: 120 });
  return reply(404, { error: 'Not found' });
}

async function settle() {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
}
function mount(vnode: import('preact').VNode<any>): El {
  const root = container();
  preact.render(vnode, root);
  return root;
}
const named = (root: El, selector: string, name: string) =>
  find(root, selector).filter((el) => el.getAttribute('aria-label') === name || (!el.getAttribute('aria-label') && textOf(el) === name));
const click = async (el: El | undefined) => {
  expect(el, 'element to click').toBeDefined();
  press(el!);
  await settle();
};
const pickerChoices = (root: El) => find(root, '.playlist-picker button').map(textOf);
const status = (root: El) => find(root, '[role="status"]').map(textOf);
const writes = () => calls.filter((c) => c.method !== 'GET' && !c.path.startsWith('/api/health') && !c.path.startsWith('/api/player'));

const pageFetch = globalThis.fetch;
beforeAll(async () => {
  setOrigin('http://tonearm.test', '/library/albums/4');
  (globalThis as any).fetch = fakeApi;
  preact = await import('preact');
  library = await load('library/LibraryScreen.tsx');
  playlists = await load('playlists/PlaylistsScreen.tsx');
  playerBar = await load('player/PlayerBar.tsx');
  playerModule = await load('player/player.ts');
  const { session } = await load('session.ts');
  session.set({ token: 'tok', user: { id: 1, username: 'admin', role: 'admin', permissions: {} as never }, notice: null });
});
afterAll(() => {
  globalThis.fetch = pageFetch;
});

describe('Add to playlist on an album page', () => {
  it('adds one track from its row to an existing playlist of mine (not to someone else’s)', async () => {
    reset();
    const root = mount(preact.h(library.AlbumScreen as never, { id: 4 }));
    await settle();
    expect(find(root, '.track-title').map(textOf)).toEqual(['Harbor Lights', 'Low Tide', 'Salt Wind']);

    const toggle = named(root, 'button', 'Add Low Tide to a playlist')[0];
    await click(toggle);
    expect(toggle!.getAttribute('aria-expanded')).toBe('true');
    expect(pickerChoices(root)).toEqual(['Road trip', 'New playlist…']);
    // Escape closes it, and so does a press elsewhere on the page.
    press_(find(root, '.playlist-picker button')[0]!, 'Escape');
    await settle();
    expect(find(root, '.playlist-picker')).toHaveLength(0);
    await click(toggle);
    document.body.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    await settle();
    expect(find(root, '.playlist-picker')).toHaveLength(0);
    await click(toggle);

    await click(named(root, '.playlist-picker button', 'Road trip')[0]);
    expect(writes()).toEqual([{ method: 'PUT', path: '/api/playlists/playlists/7', body: { addTrackIds: [12] } }]);
    expect(stored[0]!.trackIds).toEqual([12]);
    expect(status(root)).toContain('Added 1 track to Road trip.');
    expect(find(root, '.playlist-picker')).toHaveLength(0);
    preact.render(null, root);
  });

  it('"New playlist…" asks a name and creates the playlist with the track', async () => {
    reset();
    const root = mount(preact.h(library.AlbumScreen as never, { id: 4 }));
    await settle();
    await click(named(root, 'button', 'Add Harbor Lights to a playlist')[0]);
    await click(named(root, '.playlist-picker button', 'New playlist…')[0]);

    // An empty name is refused before any request.
    await click(named(root, '.playlist-picker button', 'Create')[0]);
    expect(writes()).toEqual([]);
    expect(status(root)).toContain('A playlist needs a name.');

    await typeInto(named(root, 'input', 'Name of the new playlist')[0]!, '  Night drive ');
    await click(named(root, '.playlist-picker button', 'Create')[0]);
    expect(writes()).toEqual([{ method: 'POST', path: '/api/playlists/playlists', body: { name: 'Night drive', trackIds: [11] } }]);
    expect(stored.at(-1)).toMatchObject({ name: 'Night drive', trackIds: [11] });
    expect(status(root)).toContain('Added 1 track to Night drive.');
    preact.render(null, root);
  });

  it('adds several selected tracks at once, in album order, then clears the selection', async () => {
    reset();
    const root = mount(preact.h(library.AlbumScreen as never, { id: 4 }));
    await settle();
    expect(find(root, '.selection-bar')).toHaveLength(0);
    await click(named(root, 'input', 'Select Salt Wind')[0]);
    await click(named(root, 'input', 'Select Harbor Lights')[0]);
    expect(textOf(find(root, '.selection-bar')[0])).toContain('2 tracks selected');

    await click(named(root, 'button', 'Add 2 to playlist')[0]);
    await click(named(root, '.playlist-picker button', 'Road trip')[0]);
    expect(writes()).toEqual([{ method: 'PUT', path: '/api/playlists/playlists/7', body: { addTrackIds: [11, 13] } }]);
    expect(stored[0]!.trackIds).toEqual([11, 13]);
    expect(find(root, '.selection-bar')).toHaveLength(0);
    // The confirmation outlives the selection bar it came from.
    expect(status(root)).toContain('Added 2 tracks to Road trip.');
    expect(find(root, 'input[type="checkbox"]').filter((c) => c.checked)).toHaveLength(0);

    // "Select all" ticks every row.
    await click(named(root, 'input', 'Select all tracks')[0]);
    expect(textOf(find(root, '.selection-bar')[0])).toContain('3 tracks selected');
    await click(named(root, 'button', 'Clear selection')[0]);
    expect(find(root, '.selection-bar')).toHaveLength(0);
    preact.render(null, root);
  });
});

describe('Save queue as playlist', () => {
  it('creates a playlist with the queue’s tracks from the queue panel', async () => {
    reset();
    playerModule.playTracks(albumTracks, 1);
    const root = mount(preact.h(playerBar.PlayerBar as never, {}));
    await settle();
    await click(named(root, 'button', 'Show the queue')[0]);
    await click(named(root, 'button', 'Save queue as playlist')[0]);
    expect(pickerChoices(root)).toEqual(['Road trip', 'New playlist…']);
    await click(named(root, '.playlist-picker button', 'New playlist…')[0]);
    await typeInto(named(root, 'input', 'Name of the new playlist')[0]!, 'Queue of today');
    await click(named(root, '.playlist-picker button', 'Create')[0]);
    expect(writes()).toEqual([{ method: 'POST', path: '/api/playlists/playlists', body: { name: 'Queue of today', trackIds: [11, 12, 13] } }]);
    expect(status(root)).toContain('Added 3 tracks to Queue of today.');
    preact.render(null, root);
    playerModule.resetPlayer();
  });
});

describe('A playlist’s tracks', () => {
  it('reorders by Move buttons, Alt+Arrow keys and drag and drop, and removes, saving each change', async () => {
    reset();
    stored[0]!.trackIds = [11, 12, 13];
    const root = mount(preact.h(playlists.PlaylistScreen as never, { id: '7' }));
    await settle();
    const titles = () => find(root, '.track-title').map(textOf);
    expect(titles()).toEqual(['Harbor Lights', 'Low Tide', 'Salt Wind']);
    // The first cannot go up, the last cannot go down.
    expect(named(root, 'button', 'Move Harbor Lights up')[0]!.disabled).toBe(true);
    expect(named(root, 'button', 'Move Salt Wind down')[0]!.disabled).toBe(true);

    await click(named(root, 'button', 'Move Harbor Lights down')[0]);
    expect(writes().at(-1)).toEqual({ method: 'PUT', path: '/api/playlists/playlists/7', body: { trackIds: [12, 11, 13] } });
    expect(titles()).toEqual(['Low Tide', 'Harbor Lights', 'Salt Wind']);
    // The focus follows the moved track's button.
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Move Harbor Lights down');

    // Alt+ArrowUp on a focused row moves it up; the focus stays on that row.
    const row = find(root, 'tbody tr')[2]!;
    row.focus();
    row.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', altKey: true, bubbles: true, cancelable: true }));
    await settle();
    expect(writes().at(-1)!.body).toEqual({ trackIds: [12, 13, 11] });
    expect(titles()).toEqual(['Low Tide', 'Salt Wind', 'Harbor Lights']);
    expect(textOf(document.activeElement as unknown as Node)).toContain('Salt Wind');
    // A plain ArrowUp does nothing.
    const count = writes().length;
    find(root, 'tbody tr')[1]!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true, cancelable: true }));
    await settle();
    expect(writes()).toHaveLength(count);

    // Dragging the last row onto the first.
    fire(find(root, 'tbody tr')[2]!, 'dragstart');
    await settle();
    fire(find(root, 'tbody tr')[0]!, 'dragover');
    fire(find(root, 'tbody tr')[0]!, 'drop');
    await settle();
    expect(writes().at(-1)!.body).toEqual({ trackIds: [11, 12, 13] });
    expect(titles()).toEqual(['Harbor Lights', 'Low Tide', 'Salt Wind']);
    expect(stored[0]!.trackIds).toEqual([11, 12, 13]);

    await click(named(root, 'button', 'Remove Low Tide from the playlist')[0]);
    expect(writes().at(-1)!.body).toEqual({ removeIndexes: [1] });
    expect(titles()).toEqual(['Harbor Lights', 'Salt Wind']);
    // 4 s + 3 s: seconds, not "1 min".
    expect(textOf(root)).toContain('2 tracks · 0:07');
    preact.render(null, root);
  });

  it('offers "Add to playlist" on its rows, and points an empty playlist at album pages', async () => {
    reset();
    const root = mount(preact.h(playlists.PlaylistScreen as never, { id: '7' }));
    await settle();
    expect(textOf(root)).toContain('use “Add to playlist” on its tracks');
    expect(textOf(root)).not.toContain('Subsonic');
    preact.render(null, root);

    stored[1]!.trackIds = [12];
    const theirs = mount(preact.h(playlists.PlaylistScreen as never, { id: '8' }));
    await settle();
    // Someone else's public playlist: no reordering, but its tracks can go into one of mine.
    expect(named(theirs, 'button', 'Move Low Tide up')).toHaveLength(0);
    await click(named(theirs, 'button', 'Add Low Tide to a playlist')[0]);
    await click(named(theirs, '.playlist-picker button', 'Road trip')[0]);
    expect(writes().at(-1)).toEqual({ method: 'PUT', path: '/api/playlists/playlists/7', body: { addTrackIds: [12] } });
    expect(textOf(theirs)).toContain('1 track · 0:05');
    preact.render(null, theirs);
  });
});
