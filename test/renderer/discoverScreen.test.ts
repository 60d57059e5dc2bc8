import { click, container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startLastFmFake, type FakeLastFmArtist, type LastFmFake } from '../fakes/lastfm/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The Discover screen rendered against a real server with the Last.fm and Deezer fakes: the first
 * visit's refresh with live progress over /ws, sections with "In your library" marks, paging, more
 * and less like this (the server's feedback and the tiles change), related artists, a preset's
 * artwork and previews played through the player, tags, tuning, a new user's genre sections, nearby
 * shows without Ticketmaster, and the reduced ListenBrainz mode.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };
interface Modules {
  session: { set(v: { token: string | null; user: unknown; notice: null }): void };
  socket: { startSocket(): void; stopSocket(): void; socketState: { get(): string } };
  player: { player: { get(): { queue: { title: string; previewUrl?: string }[]; index: number } }; audio: { src: string } };
  router: { navigate(to: string): void };
}

let server: TestServer;
let lastfm: LastFmFake;
let deezer: DeezerFake;
let DiscoverRoute: FunctionComponent;
let m: Modules;
let admin: Session;
let root: El | null = null;

const sim = (i: number) => `Sim ${String(i).padStart(2, '0')}`;
const SIMS = 30;

async function signIn(username: string, password: string): Promise<Session> {
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username, password } })).json()) as { token: string; user: unknown };
  return { token: s.token, user: s.user };
}

async function get<T>(path: string, token = admin.token): Promise<T> {
  const res = await server.api(path, { token });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** Renders the Discover screen at `path` (the router's location) as `as`. */
function show(as: Session, path: string): El {
  m.session.set({ token: as.token, user: as.user, notice: null });
  m.router.navigate(path);
  root = container();
  render(h(DiscoverRoute, {}), root as unknown as Element);
  return root;
}

const tiles = (r: El, list: string) => find(one(r, 'ul', list), 'li.discover-tile');
const tileNames = (r: El, list: string) => tiles(r, list).map((li) => li.getAttribute('data-artist'));
const tileOf = (r: El, list: string, name: string) => tiles(r, list).find((li) => li.getAttribute('data-artist') === name)!;
const feedbackOnServer = async (token = admin.token) => (await get<{ feedback: { artistName: string; kind: string; id: number }[] }>('/api/discover/feedback', token)).feedback;

beforeAll(async () => {
  const seed: FakeLastFmArtist[] = [
    { name: 'Lib A', tags: ['indie'], listeners: 5000, similar: [...Array.from({ length: SIMS }, (_, i) => ({ name: sim(i + 1), match: 0.99 - i * 0.01 })), { name: 'Lib B', match: 0.5 }] },
    { name: 'Lib B', tags: ['indie'], listeners: 4000, similar: [{ name: sim(1), match: 0.9 }] },
    ...Array.from({ length: SIMS }, (_, i) => ({ name: sim(i + 1), tags: [i % 2 ? 'dream pop' : 'indie'], listeners: 1000 - i })),
    { name: 'Echo Near', tags: ['indie'], listeners: 10 },
    { name: 'Chart Star', tags: ['pop'], listeners: 99_000 },
  ];
  // Sim 04 has neighbours of its own (the related panel).
  seed.find((a) => a.name === sim(4))!.similar = [
    { name: 'Echo Near', match: 0.9 },
    { name: 'Lib A', match: 0.8 },
  ];
  [lastfm, deezer] = await Promise.all([
    startLastFmFake(seed),
    startDeezerFake([{ id: 11, name: 'Lib A', top: [{ id: 101, title: 'First Song', durationS: 200, rank: 900, album: { id: 1001, title: 'First Album' } }] }]),
  ]);
  server = await startTestServer({
    env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_DEEZER_URL: deezer.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
  });
  expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } })).status).toBe(200);
  const insert = server.ctx.db.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, 0, 0, ?, 1)");
  insert.run('name:lib a', 'Lib A', 'lib a', 100);
  insert.run('name:lib b', 'Lib B', 'lib b', 90);
  setOrigin(server.url, '/discover');
  admin = await signIn(server.admin.username, server.admin.password);
  const [session, socket, player, router, screen] = await Promise.all([renderer('session.ts'), renderer('socket.ts'), renderer('player/player.ts'), renderer('router.tsx'), renderer('discover/DiscoverScreen.tsx')]);
  m = { session: (session as { session: Modules["session"] }).session, socket, player, router } as Modules;
  const { DiscoverScreen } = screen as { DiscoverScreen: FunctionComponent<{ path: string }> };
  const { useLocation } = router as { useLocation(): { path: string } };
  // As App.tsx routes it: the screen follows the location.
  DiscoverRoute = () => h(DiscoverScreen, { path: useLocation().path });
});

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  m?.socket.stopSocket();
  await server?.stop();
  await Promise.all([lastfm?.close(), deezer?.close()]);
});

describe('Discover screen', () => {
  it('the first visit starts a refresh, shows its progress from /ws and then the recommendations, with library marks and images', async () => {
    m.session.set({ token: admin.token, user: admin.user, notice: null });
    m.socket.startSocket();
    await waitFor(() => expect(m.socket.socketState.get()).toBe('open'));
    // Slow Last.fm answers, so the refresh is seen while it runs.
    lastfm.faults.delayMs = 40;
    const r = show(admin, '/discover');
    await waitFor(() => expect(one(r, '.discover-progress')).toBeTruthy());
    expect(text(one(r, '.discover-progress'))).toMatch(/\(\d+%\)/);
    expect(one(r, 'button', 'Updating…').disabled).toBe(true);
    await waitFor(() => expect(tileNames(r, 'Recommended artists').length).toBe(24), 20_000);
    lastfm.faults.delayMs = 0;
    expect(find(r, '.discover-progress')).toEqual([]);
    const view = await get<{ recommendations: { name: string }[]; recommendationCount: number }>('/api/discover?limit=24');
    expect(tileNames(r, 'Recommended artists')).toEqual(view.recommendations.map((e) => e.name));
    expect(tileNames(r, 'Recommended artists')).not.toContain('Lib A');
    expect(text(r)).toContain(`1–24 of ${view.recommendationCount}`);
    // Each links to the artist page (by name without an MBID) and says why it is there.
    const first = tileOf(r, 'Recommended artists', sim(1));
    expect(one(first, 'a').getAttribute('href')).toBe('/search?q=Sim+01');
    expect(text(first)).toContain('Because you like Lib A');
    // Popular everywhere: the library's artist carries the mark, the chart's top does not.
    expect(tileNames(r, 'Popular artists')[0]).toBe('Chart Star');
    expect(text(tileOf(r, 'Popular artists', 'Lib A'))).toContain('In your library');
    expect(text(tileOf(r, 'Popular artists', 'Chart Star'))).not.toContain('In your library');
    // Seeds with their source; taste tags link to tag browsing.
    expect(text(one(r, 'ul', 'Artists your recommendations are based on'))).toContain('Lib A your library');
    expect(find(one(r, 'ul', 'Your top tags'), 'a', 'indie')[0]!.getAttribute('href')).toBe('/discover/tags?tag=indie');
  });

  it('pages through the recommendations with Next and Previous', async () => {
    const r = show(admin, '/discover');
    await waitFor(() => expect(tileNames(r, 'Recommended artists').length).toBe(24));
    const total = (await get<{ recommendationCount: number }>('/api/discover?limit=1')).recommendationCount;
    const second = await get<{ recommendations: { name: string }[] }>('/api/discover?limit=24&offset=24');
    expect(one(r, 'button', 'Previous').disabled).toBe(true);
    click(one(r, 'button', 'Next'));
    await waitFor(() => expect(tileNames(r, 'Recommended artists')).toEqual(second.recommendations.map((e) => e.name)));
    expect(window.location.search).toBe('?offset=24');
    expect(text(r)).toContain(`25–${total} of ${total}`);
    expect(one(r, 'button', 'Next').disabled).toBe(true);
    click(one(r, 'button', 'Previous'));
    await waitFor(() => expect(tileNames(r, 'Recommended artists')[0]).toBe(sim(1)));
  });

  it('"Less" records the feedback and the artist leaves; "More" is pressed, and pressed again takes it back', async () => {
    const r = show(admin, '/discover');
    await waitFor(() => expect(tileNames(r, 'Recommended artists')).toContain(sim(1)));
    const recommended = () => one(r, 'ul', 'Recommended artists');
    click(one(recommended(), 'button', `Less like ${sim(1)}`));
    await waitFor(() => expect(tileNames(r, 'Recommended artists')).not.toContain(sim(1)));
    expect(text(r)).toContain(`${sim(1)}`);
    expect(await feedbackOnServer()).toEqual([expect.objectContaining({ artistName: sim(1), kind: 'less' })]);
    expect((await get<{ recommendations: { name: string }[] }>('/api/discover?limit=200')).recommendations.map((e) => e.name)).not.toContain(sim(1));

    // "More" queues a refresh with the artist as a seed (so it may leave the list): pressed at once, and on the server.
    click(one(recommended(), 'button', `More like ${sim(2)}`));
    await waitFor(() => expect(find(r, 'button', `More like ${sim(2)}`)[0]!.getAttribute('aria-pressed')).toBe('true'));
    expect((await feedbackOnServer()).map((f) => [f.artistName, f.kind])).toEqual([
      [sim(2), 'more'],
      [sim(1), 'less'],
    ]);
    // Pressed again, it takes the feedback back.
    const popular = () => one(r, 'ul', 'Popular artists');
    click(one(popular(), 'button', 'More like Chart Star'));
    await waitFor(() => expect(one(popular(), 'button', 'More like Chart Star').getAttribute('aria-pressed')).toBe('true'));
    expect(text(tileOf(r, 'Popular artists', 'Chart Star'))).toContain('More like this');
    expect((await feedbackOnServer()).map((f) => f.artistName)).toContain('Chart Star');
    click(one(popular(), 'button', 'More like Chart Star'));
    await waitFor(() => expect(one(popular(), 'button', 'More like Chart Star').getAttribute('aria-pressed')).toBe('false'));
    expect((await feedbackOnServer()).map((f) => f.artistName)).toEqual([sim(2), sim(1)]);
  });

  it('"Similar" opens the artists related to one recommendation', async () => {
    const r = show(admin, '/discover');
    await waitFor(() => expect(tileNames(r, 'Recommended artists')).toContain(sim(4)));
    click(one(r, 'button', `Artists like ${sim(4)}`));
    await waitFor(() => expect(tileNames(r, `Artists like ${sim(4)}`)).toEqual(['Echo Near', 'Lib A']));
    expect(text(tileOf(r, `Artists like ${sim(4)}`, 'Lib A'))).toContain('In your library');
    click(one(r, 'button', 'Close'));
    await waitFor(() => expect(find(r, 'ul', `Artists like ${sim(4)}`)).toEqual([]));
  });

  it("a preset shows its generated cover and its previews, which play in the player bar", async () => {
    const r = show(admin, '/discover');
    await waitFor(() => expect(find(r, 'ul', 'Editorial playlists')).toHaveLength(1));
    const preset = one(r, 'button', /^Indie Discoveries/);
    await waitFor(() => expect(preset.querySelector('img')).toBeTruthy());
    const src = preset.querySelector('img')!.getAttribute('src')!; // as written; the `src` property is the resolved absolute URL
    expect(src).toMatch(/^\/api\/discover\/artwork\/indie-discoveries\?size=300&st=/);
    // The address works as an <img> uses it: no Authorization header.
    const art = await fetch(server.url + src);
    expect(art.status).toBe(200);
    expect(art.headers.get('content-type')).toBe('image/png');

    click(preset);
    await waitFor(() => expect(find(r, 'button', 'Play the preview of First Song by Lib A')).toHaveLength(1));
    click(one(r, 'button', 'Play the preview of First Song by Lib A'));
    await waitFor(() => expect(m.player.player.get().queue.map((t) => t.title)).toEqual(['First Song']));
    const playing = m.player.player.get().queue[0]!;
    expect(playing.previewUrl).toContain('/preview/101');
    await waitFor(() => expect(m.player.audio.src).toBe(playing.previewUrl));
  });

  it('tags and genres: the taste tags, and any tag paged from Last.fm', async () => {
    const r = show(admin, '/discover/tags');
    await waitFor(() => expect(find(r, 'ul', 'Your tags')).toHaveLength(1));
    expect(find(one(r, 'ul', 'Your tags'), 'a').map(text)).toEqual(expect.arrayContaining(['indie', 'dream pop']));
    await typeInto(one(r, 'input#discover-tag'), 'dream pop');
    click(one(r, 'button', 'Show artists'));
    await waitFor(() => expect(find(r, 'ul', 'Artists tagged dream pop')).toHaveLength(1));
    expect(window.location.search).toBe('?tag=dream%20pop');
    const expected = await get<{ items: { name: string }[]; total: number }>('/api/discover/by-tag?tag=dream%20pop&limit=24');
    expect(tileNames(r, 'Artists tagged dream pop')).toEqual(expected.items.map((e) => e.name));
    expect(tileNames(r, 'Artists tagged dream pop')[0]).toBe(sim(2));
  });

  it('feedback and preferences: the list, removing one entry, excluded tags and deep dive saved on the server', async () => {
    const r = show(admin, '/discover/tuning');
    await waitFor(() => expect(find(r, 'ul', 'Your feedback')).toHaveLength(1));
    expect(text(one(r, 'ul', 'Your feedback'))).toContain(`${sim(1)} less like this`);
    expect(text(one(r, 'ul', 'Your feedback'))).toContain(`${sim(2)} more like this`);
    click(one(r, 'button', `Remove the feedback on ${sim(1)}`));
    await waitFor(() => expect(find(r, 'button', `Remove the feedback on ${sim(1)}`)).toEqual([]));
    expect((await feedbackOnServer()).map((f) => f.artistName)).toEqual([sim(2)]);
    click(one(r, 'button', 'Clear all feedback'));
    await waitFor(() => expect(text(r)).toContain('No feedback yet'));
    expect(await feedbackOnServer()).toEqual([]);

    await typeInto(one(r, 'input#excluded-tags'), 'Dream Pop');
    click(find(r, 'button', 'Add')[0]!);
    await waitFor(() => expect(find(r, 'button', 'Remove dream pop from excluded tags')).toHaveLength(1));
    click(one(r, 'input[type="checkbox"]'));
    await waitFor(() => expect(text(r)).toContain('Deep dive on'));
    expect(await get('/api/discover/preferences')).toEqual({ excludedTags: ['dream pop'], excludedArtists: [], deepDive: true });
    // Excluded at once: no dream pop artist is recommended any more.
    const recs = (await get<{ recommendations: { name: string; tags: string[] }[] }>('/api/discover?limit=200')).recommendations;
    expect(recs.some((e) => e.tags.includes('dream pop'))).toBe(false);

    click(one(r, 'button', 'Reset preferences'));
    await waitFor(() => expect(find(r, 'button', /from excluded tags$/)).toEqual([]));
    expect(await get('/api/discover/preferences')).toEqual({ excludedTags: [], excludedArtists: [], deepDive: false });
  });

  it('Refresh with Last.fm down keeps the recommendations and says they are out of date', async () => {
    const r = show(admin, '/discover');
    await waitFor(() => expect(tileNames(r, 'Recommended artists').length).toBeGreaterThan(0));
    const before = tileNames(r, 'Recommended artists');
    // Forget the cached similar lists so the refresh has to ask Last.fm.
    server.ctx.db.prepare('DELETE FROM discovery_artist_cache').run();
    lastfm.faults.down = true;
    try {
      click(one(r, 'button', 'Refresh'));
      await waitFor(() => expect(text(r)).toContain('These recommendations are out of date'), 20_000);
    } finally {
      lastfm.faults.down = false;
    }
    expect(tileNames(r, 'Recommended artists')).toEqual(before);
    expect(one(r, 'button', 'Refresh').disabled).toBe(false);
  });

  it('a new user without recommendations sees the genre sections', async () => {
    // No live updates for this one: the first answer (before the user's own refresh) stays on screen.
    m.socket.stopSocket();
    expect((await server.api('/api/users', { method: 'POST', token: admin.token, json: { username: 'newbie', password: 'password-123' } })).status).toBeLessThan(300);
    const newbie = await signIn('newbie', 'password-123');
    const r = show(newbie, '/discover');
    // The first answer comes from the (empty) cache while the refresh it queued waits to run.
    await waitFor(() => expect(text(r)).toContain('Finding artists for you…'));
    expect(find(r, 'ul', 'Recommended artists')).toEqual([]);
    const genres = find(r, 'ul').filter((ul) => (ul.getAttribute('aria-label') ?? '').startsWith('Popular in '));
    expect(genres.length).toBeGreaterThan(0);
    expect(genres[0]!.querySelectorAll('li.discover-tile').length).toBeGreaterThan(0);
    expect(await feedbackOnServer(newbie.token)).toEqual([]);
  });

  it('nearby shows without a Ticketmaster key say where the key goes', async () => {
    const r = show(admin, '/discover/shows');
    await waitFor(() => expect(text(r)).toContain('Nearby shows are not set up'));
    // Said in words with a link that opens the card (it used to show the setting key integrations.ticketmaster.apiKey).
    expect(text(r)).toContain('Add a Ticketmaster API key in Settings → Integrations.');
    expect(text(r)).not.toContain('integrations.');
    expect(one(r, 'a', 'Settings → Integrations').getAttribute('href')).toBe('/settings/integrations#integration-ticketmaster');
  });

  it('without Last.fm the screen says recommendations are reduced and tag search needs Last.fm', async () => {
    expect((await server.api('/api/settings', { method: 'POST', token: admin.token, json: { integrations: { lastfm: { apiKey: '' } } } })).status).toBe(200);
    let r = show(admin, '/discover');
    await waitFor(() => expect(text(r)).toContain('Without Last.fm, recommendations come from ListenBrainz'));
    expect(find(r, 'button', /^Artists like /)).toEqual([]);
    render(null, r as unknown as Element);
    r = show(admin, '/discover/tags?tag=nothing-cached');
    await waitFor(() => expect(text(r)).toContain('Tag search needs Last.fm'));
  });
});
