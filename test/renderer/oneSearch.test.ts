import { click, container, find, one, press, setOrigin, submit, text, type as typeInto, waitFor, type El } from './dom.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * One search (issue 24, item 8), rendered against a real server with the MusicBrainz fake: the
 * search box suggests the library's artists, albums, tracks and playlists first, then what can be
 * requested from MusicBrainz; arrows, Enter and Escape work as a combobox's; Enter on a track plays
 * it; the full results page keeps the same order.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);

interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  router: { navigate(to: string): void; location: { get(): { path: string; query: URLSearchParams } } };
  player: { player: { get(): { queue: { id: number; title: string }[]; index: number } } };
}

let server: TestServer;
let mb: MusicBrainzFake;
let dir: string;
let m: Modules;
let SearchScreen: FunctionComponent;
let root: El | null = null;
let albumId: string;

async function api<T>(pathname: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const res = await server.api(pathname, { token: server.admin.token, ...init } as never);
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function show(at: string): El {
  unmount();
  m.router.navigate(at);
  root = container();
  render(h(SearchScreen, {}), root as unknown as Element);
  return root;
}

const box = (r: El) => one(r, 'input[role="combobox"]');
const listbox = (r: El) => one(r, '[role="listbox"]');
const groupLabels = (r: El) => find(listbox(r), '[role="group"]').map((g) => text(document.getElementById(g.getAttribute('aria-labelledby')!)));
const optionsOf = (r: El, group: string) => {
  const g = find(listbox(r), '[role="group"]').find((x) => text(document.getElementById(x.getAttribute('aria-labelledby')!)) === group);
  return g ? find(g, '[role="option"]').map((o) => text(o.querySelector('.suggestion-title'))) : [];
};
const activeText = (r: El) => {
  const id = box(r).getAttribute('aria-activedescendant');
  return id ? text(document.getElementById(id)!.querySelector('.suggestion-title')) : null;
};

/** Types into the box as a person does: focused, then the words. */
async function typeWords(r: El, words: string) {
  box(r).focus();
  await typeInto(box(r), words);
}

beforeAll(async () => {
  mb = await startMusicBrainzFake(structuredClone(catalogue));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-one-search-'));
  const music = path.join(dir, 'music');
  const template = makeMp3Template(dir, 1);
  const dawn = catalogue[0]!.releaseGroups[0]!;
  dawn.releases[0]!.tracks.slice(0, 3).forEach((t, i) =>
    writeTaggedMp3(path.join(music, 'Aurora Lane', 'Dawn', `0${i + 1}.mp3`), template, {
      title: t.title, artist: 'Aurora Lane', albumArtist: 'Aurora Lane', album: 'Dawn', track: i + 1, date: '2019',
      musicbrainzArtistId: ids.aurora, musicbrainzAlbumArtistId: ids.aurora, musicbrainzReleaseGroupId: ids.rgDawn, musicbrainzAlbumId: ids.relDawn,
    }),
  );
  server = await startTestServer({ musicDirs: [music], env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' } });
  const { jobId } = await api<{ jobId: string }>('/api/library/refresh', { method: 'POST', json: { mode: 'full' } });
  for (let i = 0; i < 400; i++) {
    if ((await api<{ status: string }>(`/api/library/refresh/${jobId}`)).status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const albums = await api<{ items: { id: number; title: string }[] }>('/api/library/canonical?kind=albums&pageSize=5');
  albumId = String(albums.items.find((a) => a.title === 'Dawn')!.id);
  // A playlist named after the artist, found by name.
  const tracks = await api<{ items: { id: number }[] }>(`/api/library/canonical?kind=tracks&pageSize=5&albumId=${albumId}`);
  await api('/api/playlists/playlists', { method: 'POST', json: { name: 'Aurora mornings', trackIds: [tracks.items[0]!.id] } });
  await api('/api/playlists/playlists', { method: 'POST', json: { name: 'Rainy evenings' } });

  setOrigin(server.url, '/search');
  const [session, router, player, screen] = await Promise.all([renderer('session.ts'), renderer('router.tsx'), renderer('player/player.ts'), renderer('metadata/SearchScreen.tsx')]);
  m = { session: session.session, router, player } as Modules;
  SearchScreen = (screen as { SearchScreen: FunctionComponent }).SearchScreen;
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as { token: string; user: unknown };
  m.session.set({ token: login.token, user: login.user, notice: null });
}, 60_000);

function unmount() {
  if (root) render(null, root as unknown as Element);
  root?.remove();
  root = null;
}

afterEach(unmount);

afterAll(async () => {
  await server?.stop();
  await mb?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the search box', () => {
  it('groups the library first (artists, albums, tracks, playlists), then what MusicBrainz offers that the library lacks', async () => {
    const r = show('/search');
    await typeWords(r, 'auro');
    await waitFor(() => expect(optionsOf(r, 'Request from MusicBrainz')).toEqual(['Aurora Borealis Choir']));
    expect(box(r).getAttribute('aria-expanded')).toBe('true');
    expect(box(r).getAttribute('aria-controls')).toBe(listbox(r).id);
    // The library's artist and album (found by its artist's name), its playlist by name; Aurora Lane
    // is not offered again from MusicBrainz since the library has it.
    expect(groupLabels(r)).toEqual(['Artists', 'Albums', 'Tracks', 'Playlists', 'Request from MusicBrainz']);
    expect(optionsOf(r, 'Artists')).toEqual(['Aurora Lane']);
    expect(optionsOf(r, 'Albums')).toEqual(['Dawn']);
    // Tracks by the artist's name too.
    expect(optionsOf(r, 'Tracks').sort()).toEqual(['First Light', 'Glass Sky', 'Morning Tide']);
    expect(optionsOf(r, 'Playlists')).toEqual(['Aurora mornings']);
  });

  it('finds a track by its title; arrows move the active option and Enter plays the track with its album', async () => {
    const r = show('/search');
    await typeWords(r, 'morning tide');
    await waitFor(() => expect(optionsOf(r, 'Tracks')).toEqual(['Morning Tide']));
    expect(groupLabels(r)[0]).toBe('Tracks');
    expect(box(r).getAttribute('aria-activedescendant')).toBeNull();
    press(box(r), 'ArrowDown');
    await waitFor(() => expect(activeText(r)).toBe('Morning Tide'));
    const active = document.getElementById(box(r).getAttribute('aria-activedescendant')!)!;
    expect(active.getAttribute('role')).toBe('option');
    expect(active.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(box(r));
    press(box(r), 'Enter');
    // The album is queued with the chosen track playing.
    await waitFor(() => expect(m.player.player.get().queue.map((t) => t.title)).toEqual(['First Light', 'Morning Tide', 'Glass Sky']));
    expect(m.player.player.get().index).toBe(1);
    expect(box(r).getAttribute('aria-expanded')).toBe('false');
    expect(box(r).value).toBe('morning tide');
  });

  it('ArrowUp from the box goes to the last option, both arrows wrap, Escape closes the list and keeps the words and the focus', async () => {
    const r = show('/search');
    await typeWords(r, 'auro');
    await waitFor(() => expect(optionsOf(r, 'Request from MusicBrainz')).toEqual(['Aurora Borealis Choir']));
    press(box(r), 'ArrowUp');
    await waitFor(() => expect(activeText(r)).toBe('Aurora Borealis Choir'));
    press(box(r), 'ArrowDown');
    await waitFor(() => expect(activeText(r)).toBe('Aurora Lane'));
    press(box(r), 'ArrowDown');
    await waitFor(() => expect(activeText(r)).toBe('Dawn'));
    press(box(r), 'ArrowUp');
    await waitFor(() => expect(activeText(r)).toBe('Aurora Lane'));
    press(box(r), 'Escape');
    await waitFor(() => expect(box(r).getAttribute('aria-expanded')).toBe('false'));
    expect(listbox(r).hidden).toBe(true);
    expect(box(r).getAttribute('aria-activedescendant')).toBeNull();
    expect(box(r).value).toBe('auro');
    expect(document.activeElement).toBe(box(r));
    // The arrows open it again.
    press(box(r), 'ArrowDown');
    await waitFor(() => expect(activeText(r)).toBe('Aurora Lane'));
    expect(box(r).getAttribute('aria-expanded')).toBe('true');
  });

  it('Enter on an artist opens its library page; Enter with no active option leaves the search to the form', async () => {
    const r = show('/search');
    await typeWords(r, 'auro');
    await waitFor(() => expect(optionsOf(r, 'Artists')).toEqual(['Aurora Lane']));
    press(box(r), 'ArrowDown');
    await waitFor(() => expect(activeText(r)).toBe('Aurora Lane'));
    press(box(r), 'Enter');
    expect(m.router.location.get().path).toMatch(/^\/library\/artists\/\d+$/);

    const again = show('/search');
    await typeWords(again, 'aurora');
    await waitFor(() => expect(optionsOf(again, 'Artists')).toEqual(['Aurora Lane']));
    const enter = new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }) as unknown as Event;
    box(again).dispatchEvent(enter);
    expect(enter.defaultPrevented).toBe(false);
    await waitFor(() => expect(box(again).getAttribute('aria-expanded')).toBe('false'));
    submit(one(again, 'form[role="search"]'));
    expect(m.router.location.get().path).toBe('/search');
    expect(m.router.location.get().query.get('q')).toBe('aurora');
  });
});

describe('the search box with nothing to offer', () => {
  it('says so in words, and that Enter still searches MusicBrainz', async () => {
    const r = show('/search');
    await typeWords(r, 'zzyzx');
    await waitFor(() =>
      expect(text(one(r, '.combo-popup [role="status"]'))).toBe('Nothing in your library matches “zzyzx” and MusicBrainz suggests nothing new. Press Enter to search MusicBrainz.'),
    );
    expect(box(r).getAttribute('aria-expanded')).toBe('false');
    expect(one(r, '.combo-popup').hidden).toBe(false);
  });
});

describe('the grouping rules', () => {
  it('opens the album of a track without a playable file instead of playing it, and leaves out MusicBrainz hits the library has', async () => {
    const { groupsOf } = await renderer('metadata/oneSearch.ts');
    const groups = groupsOf(
      {
        query: 'tide',
        library: {
          artists: [],
          albums: [{ id: '7', title: 'Tide', artistName: 'Aurora Lane', mbid: ids.rgSingle, year: 2018, imageUrl: null }],
          tracks: [
            { id: '1', title: 'Tide', artistName: 'Aurora Lane', albumId: '7', albumTitle: 'Tide', available: true },
            { id: '2', title: 'Morning Tide', artistName: 'Aurora Lane', albumId: '1', albumTitle: 'Dawn', available: false },
          ],
        },
        remote: { status: 'complete', artists: [], albums: [{ id: ids.rgSingle, title: 'Tide', artistName: 'Aurora Lane', releaseDate: '2018-06-01' }, { id: ids.rgDusk, title: 'Dusk', artistName: 'Aurora Lane', releaseDate: '2024-10-11' }] },
      },
      [],
    );
    expect(groups.map((g: { label: string }) => g.label)).toEqual(['Albums', 'Tracks', 'Request from MusicBrainz']);
    const [playable, missing] = groups[1].options;
    expect(playable).toMatchObject({ title: 'Tide', sub: 'Track · Aurora Lane · Tide', track: { id: '1' } });
    expect(playable.href).toBeUndefined();
    expect(missing).toMatchObject({ title: 'Morning Tide', sub: 'Track · Aurora Lane · Dawn · no file yet', href: '/library/albums/1' });
    expect(missing.track).toBeUndefined();
    expect(groups[2].options.map((o: { href: string }) => o.href)).toEqual([`/release/${ids.rgDusk}`]);
  });
});

describe('the full results page', () => {
  it('shows the library first (artists, albums, tracks, playlists), then MusicBrainz', async () => {
    const r = show('/search?q=aurora');
    await waitFor(() => expect(find(r, 'section[aria-labelledby="search-library"] .search-group').map((g) => g.getAttribute('data-group'))).toEqual(['artists', 'albums', 'tracks', 'playlists']));
    const sections = find(r, 'section.search-section').map((s) => text(s.querySelector('h2')));
    expect(sections).toEqual(['In your library', 'Request from MusicBrainz']);
    const library = one(r, 'section[aria-labelledby="search-library"]');
    expect(find(one(library, 'ul', 'Artists'), '.tile-title').map(text)).toEqual(['Aurora Lane']);
    expect(find(one(library, 'ul', 'Playlists'), '.tile-title').map(text)).toEqual(['Aurora mornings']);
    const remote = one(r, 'section[aria-labelledby="search-musicbrainz"]');
    await waitFor(() => expect(find(remote, '.tile-title').map(text)).toEqual(['Aurora Borealis Choir', 'Aurora Lane']));
  });

  it('lists the tracks a title matches, to play from there', async () => {
    const r = show('/search?q=glass%20sky');
    const library = one(r, 'section[aria-labelledby="search-library"]');
    await waitFor(() => expect(find(library, '.search-group').map((g) => g.getAttribute('data-group'))).toEqual(['tracks']));
    click(one(library, 'button', 'Play Glass Sky'));
    await waitFor(() => expect(m.player.player.get().queue.map((t) => t.title)).toEqual(['Glass Sky']));
  });
});
