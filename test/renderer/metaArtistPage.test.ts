import { container, find, one, setOrigin, text, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startDeezerFake, type DeezerFake } from '../fakes/deezer/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The metadata artist page against a real server with the MusicBrainz, Deezer and Last.fm fakes: its
 * Previews and Similar artists sections read the routes' own answers (the types generated from
 * their schemas), not a lenient guess at their shape.
 */

// Renderer modules are loaded by a computed specifier so the server's typecheck does not follow them into TSX.
const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);

let server: TestServer;
let mb: MusicBrainzFake;
let dz: DeezerFake;
let lf: LastFmFake;
let Screen: FunctionComponent<{ mbid: string }>;
let root: El | null = null;

const track = (id: number, title: string, rank: number, preview = true) => ({ id, title, durationS: 200, rank, preview, album: { id: id * 10, title: 'Dawn' } });

beforeAll(async () => {
  mb = await startMusicBrainzFake(structuredClone(catalogue));
  dz = await startDeezerFake([{ id: 501, name: 'Aurora Lane', fans: 9000, top: [track(5011, 'First Light', 900), track(5012, 'Morning Tide', 800, false)] }]);
  lf = await startLastFmFake([
    {
      name: 'Aurora Lane',
      mbid: ids.aurora,
      similar: [
        { name: 'Aurora Borealis Choir', mbid: ids.auroraBorealis, match: 0.9 },
        { name: 'Band Without Id', match: 0.2 },
      ],
    },
  ]);
  server = await startTestServer({
    env: { TONEARM_MUSICBRAINZ_URL: mb.url, TONEARM_DEEZER_URL: dz.url, TONEARM_LASTFM_URL: lf.url, TONEARM_UPSTREAM_SPACING_MS: '0', TONEARM_LIBRARY_WATCH: '0' },
  });
  server.ctx.settings.update({ integrations: { lastfm: { apiKey: lf.apiKey } } });
  setOrigin(server.url, `/artist/${ids.aurora}`);
  const [session, page] = await Promise.all([renderer('session.ts'), renderer('metadata/ArtistPage.tsx')]);
  Screen = (page as { MetaArtistScreen: FunctionComponent<{ mbid: string }> }).MetaArtistScreen;
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as { token: string; user: unknown };
  (session as { session: { set(v: unknown): void } }).session.set({ token: login.token, user: login.user, notice: null });
}, 60_000);

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root?.remove();
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([mb?.close(), dz?.close(), lf?.close()]);
});

it('plays the previews Deezer has (album and length beside each) and links the similar artists MusicBrainz knows', async () => {
  root = container();
  render(h(Screen, { mbid: ids.aurora }), root as unknown as Element);
  const previews = await waitFor(() => one(root!, 'ol', 'Previews of Aurora Lane'));
  const items = find(previews, 'li');
  expect(items.map((li) => text(li.querySelector('.track-title')))).toEqual(['First Light']);
  expect(text(items[0]!.querySelector('.small'))).toBe('Dawn · 3:20');
  expect(one(items[0]!, 'audio').getAttribute('src')).toBeTruthy();

  const similar = await waitFor(() => one(root!, 'ul', 'Similar artists'));
  const tiles = find(similar, 'li');
  expect(tiles.map((t) => text(t.querySelector('.tile-title')))).toEqual(['Aurora Borealis Choir', 'Band Without Id']);
  expect(tiles[0]!.querySelector('a')?.getAttribute('href')).toContain(`/artist/${ids.auroraBorealis}`);
  expect(tiles[1]!.querySelector('a')).toBeNull();
}, 30_000);
