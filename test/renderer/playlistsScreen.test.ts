import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click as press, container, find, fire, setOrigin, text as textOf, type as typeInto, type El } from './dom.js';

/**
 * The Playlists screens rendered by preact into the test browser (happy-dom), against a fake of the JSON API
 * (the routes' real behaviour is tested in test/playlists/artwork.test.ts): what they show, and the
 * requests their buttons send.
 */

// The renderer is typechecked by its own tsconfig; here it is loaded by path, typed loosely.
type Component = (props: Record<string, unknown>) => unknown;
let preact: typeof import('preact');
let screens: { PlaylistsScreen: Component; PlaylistScreen: Component };
let playerModule: { player: { get(): { queue: { id: number }[]; index: number } } };
const load = (file: string) => import(/* @vite-ignore */ new URL(`../../renderer/src/${file}`, import.meta.url).href);
const calls: { method: string; path: string; body: unknown }[] = [];

const art = (etag: string) => ({ playlistId: '7', kind: 'static', source: 'generated', etag, width: 600, height: 600, bytes: 1, mime: 'image/jpeg', updatedAt: 1, url: `/api/playlists/artwork/7?v=${etag}` });
const track = (id: number, title: string, durationMs: number) => ({ id, title, artistName: 'Velvet Harbor', artistId: 3, albumId: 4, albumTitle: 'Salt and Iron', durationMs, available: true });
let detail: any;

function reset() {
  detail = {
    id: '7', kind: 'static', name: 'Road trip', comment: '', public: false, owner: 'admin', editable: true, songCount: 3, durationMs: 540_000, artwork: art('e1'),
    tracks: [
      { position: 0, track: track(11, 'Harbor Lights', 180_000) },
      { position: 1, track: track(12, 'Low Tide', 180_000) },
      { position: 2, track: track(13, 'Salt Wind', 180_000) },
    ],
  };
}

const reply = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function fakeApi(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(String(input), 'http://tonearm.test');
  const method = init.method ?? 'GET';
  const body = typeof init.body === 'string' ? JSON.parse(init.body) : init.body ?? null;
  calls.push({ method, path: url.pathname + url.search, body });
  const route = `${method} ${url.pathname}`;
  if (route === 'GET /api/playlists/playlists')
    return reply(200, {
      playlists: [
        { ...detail, tracks: undefined },
        { id: '8', kind: 'static', name: 'Her mix', comment: '', public: true, owner: 'alice', editable: false, songCount: 0, durationMs: 0, artwork: null },
      ],
    });
  if (route === 'GET /api/playlists/shared-playlists') return reply(200, []);
  if (route === 'GET /api/playlists/playlists/7') return reply(200, detail);
  if (route === 'GET /api/playlists/playlists/9') return reply(404, { error: 'Playlist not found' });
  if (route === 'PUT /api/playlists/playlists/7') {
    const b = body as { name?: string; removeIndexes?: number[] };
    if (b.name !== undefined) detail = { ...detail, name: b.name };
    if (b.removeIndexes) {
      const drop = new Set(b.removeIndexes);
      detail = { ...detail, tracks: detail.tracks.filter((e: any) => !drop.has(e.position)).map((e: any, i: number) => ({ ...e, position: i })) };
      detail.songCount = detail.tracks.length;
    }
    return reply(200, detail);
  }
  if (route === 'POST /api/playlists/artwork/7/generate') {
    detail = { ...detail, artwork: art('e2') };
    return reply(200, detail.artwork);
  }
  if (route === 'DELETE /api/playlists/artwork/7') {
    detail = { ...detail, artwork: null };
    return reply(200, { success: true, removed: true });
  }
  if (route === 'PUT /api/playlists/artwork/7') return reply(413, { error: 'Payload too large', code: 'PAYLOAD_TOO_LARGE', message: 'The image is larger than 10 MB; choose a smaller picture' });
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

const buttons = (root: El, text: string | RegExp) =>
  find(root, 'button').filter((el) => (typeof text === 'string' ? textOf(el) === text : text.test(textOf(el)) || text.test(el.getAttribute('aria-label') ?? '')));
const click = async (el: El | undefined) => {
  expect(el, 'element to click').toBeDefined();
  press(el!);
  await settle();
};
const images = (root: El) => find(root, 'img');
/** The address as the screen wrote it (the `src` property is resolved against the page). */
const srcOf = (el: El) => el.getAttribute('src');

const pageFetch = globalThis.fetch;
beforeAll(async () => {
  setOrigin('http://tonearm.test', '/playlists');
  (globalThis as any).fetch = fakeApi;
  preact = await import('preact');
  screens = await load('playlists/PlaylistsScreen.tsx');
  playerModule = await load('player/player.ts');
  const { session } = await load('session.ts');
  session.set({ token: 'tok', user: { id: 1, username: 'admin', role: 'admin', permissions: {} as never }, notice: null });
});
afterAll(() => {
  globalThis.fetch = pageFetch;
});


describe('Playlists screen', () => {
  it('lists the playlists with their artwork, length and owner', async () => {
    reset();
    const root = mount(preact.h(screens.PlaylistsScreen as never, {}));
    await settle();
    const tiles = find(root, 'li');
    expect(tiles.map(textOf)).toEqual(['Road trip3 tracks · 9:00 · Only you', 'HHer mixEmpty · Public · by alice']);
    const links = find(root, 'a').map((a) => a.getAttribute('href'));
    expect(links).toEqual(['/playlists/7', '/playlists/8']);
    // The first has artwork (versioned URL, display size, the session token for <img>); the second a lettered tile.
    expect(images(root).map(srcOf)).toEqual(['/api/playlists/artwork/7?v=e1&size=300&token=tok']);
    preact.render(null, root);
  });

  it('shows one playlist, removes a track, manages artwork, renames, plays', async () => {
    reset();
    calls.length = 0;
    const root = mount(preact.h(screens.PlaylistScreen as never, { id: '7' }));
    await settle();
    expect(textOf(find(root, 'h1')[0]!)).toBe('Road trip');
    const titles = () => find(root, '[class="track-title"]').map(textOf);
    expect(titles()).toEqual(['Harbor Lights', 'Low Tide', 'Salt Wind']);

    await click(buttons(root, /^Remove Low Tide from the playlist$/)[0]);
    expect(calls.at(-1)).toEqual({ method: 'PUT', path: '/api/playlists/playlists/7', body: { removeIndexes: [1] } });
    expect(titles()).toEqual(['Harbor Lights', 'Salt Wind']);

    await click(buttons(root, 'Generate')[0]);
    expect(calls.at(-1)).toMatchObject({ method: 'POST', path: '/api/playlists/artwork/7/generate' });
    expect(srcOf(images(root)[0]!)).toBe('/api/playlists/artwork/7?v=e2&size=400&token=tok');
    expect(textOf(root)).toContain('Artwork generated from the album covers.');

    await click(buttons(root, 'Remove')[0]);
    expect(calls.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/playlists/artwork/7' });
    expect(images(root)).toHaveLength(0);
    expect(textOf(root)).toContain('No artwork yet');

    await click(buttons(root, 'Rename')[0]);
    await typeInto(find(root, 'input#playlist-name')[0]!, 'Coast road');
    await settle();
    await click(buttons(root, 'Save')[0]);
    expect(calls.at(-1)).toEqual({ method: 'PUT', path: '/api/playlists/playlists/7', body: { name: 'Coast road' } });
    expect(textOf(find(root, 'h1')[0]!)).toBe('Coast road');

    await click(buttons(root, 'Play')[0]);
    expect(playerModule.player.get().queue.map((t: { id: number }) => t.id)).toEqual([11, 13]);
    expect(playerModule.player.get().index).toBe(0);
    preact.render(null, root);
  });

  it('asks before deleting, and shows an upload refusal in words', async () => {
    reset();
    calls.length = 0;
    const root = mount(preact.h(screens.PlaylistScreen as never, { id: '7' }));
    await settle();
    await click(buttons(root, 'Delete…')[0]);
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);
    expect(buttons(root, 'Delete “Road trip”')).toHaveLength(1);
    await click(buttons(root, 'Keep it')[0]);
    expect(buttons(root, 'Delete “Road trip”')).toHaveLength(0);

    // A file the browser says is text is refused before any request.
    const input = find(root, 'input[type="file"]')[0]! as unknown as { files: unknown };
    input.files = [new File(['some notes'], 'notes.txt', { type: 'text/plain' })];
    fire(input as unknown as El, 'change');
    await settle();
    expect(textOf(root)).toContain('notes.txt is not a picture');
    expect(calls.some((c) => c.path.startsWith('/api/playlists/artwork/7') && c.method === 'PUT')).toBe(false);

    // A picture the server refuses: its message is shown.
    input.files = [new File([new Uint8Array(10)], 'huge.png', { type: 'image/png' })];
    fire(input as unknown as El, 'change');
    await settle();
    expect(calls.at(-1)).toMatchObject({ method: 'PUT', path: '/api/playlists/artwork/7' });
    expect(textOf(root)).toContain('The image is larger than 10 MB');
    preact.render(null, root);
  });

  it('says so when the playlist is not there', async () => {
    const root = mount(preact.h(screens.PlaylistScreen as never, { id: '9' }));
    await settle();
    expect(textOf(root)).toContain('This playlist does not exist, or it is not shared with you.');
    preact.render(null, root);
  });
});
