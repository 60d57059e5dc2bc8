import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKoitoFake, type KoitoFake } from '../fakes/koito/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addLibraryArtists, json } from './helpers.js';

/**
 * Without a Last.fm key: the ListenBrainz fallback (sitewide chart and the user's own statistics,
 * 204 while they are not computed) with reduced capabilities. Also the other history sources as
 * seeds: Koito, and local play events.
 */

let server: TestServer;
let lb: ListenBrainzFake;
let koito: KoitoFake;
let lastfm: LastFmFake;
const ADMIN_ID = 1;
const names = (list: { name: string }[]) => list.map((a) => a.name);

beforeAll(async () => {
  [lb, koito, lastfm] = await Promise.all([
    startListenBrainzFake(),
    startKoitoFake([{ name: 'Koito Fave', listens: 40 }, { name: 'Owned Band', listens: 10 }]),
    startLastFmFake([
      { name: 'Koito Fave', similar: [{ name: 'Koito Neighbour', match: 0.9 }] },
      { name: 'Played Loud', similar: [{ name: 'Loud Neighbour', match: 0.8 }] },
    ]),
  ]);
  lb.sitewide = [
    { name: 'Owned Band', listens: 900 },
    { name: 'World Hit', listens: 800 },
    { name: 'Second Hit', listens: 700 },
  ];
  server = await startTestServer({
    env: { TONEARM_LISTENBRAINZ_URL: lb.url, TONEARM_LASTFM_URL: lastfm.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
  });
  addLibraryArtists(server, [{ name: 'Owned Band', tracks: 12 }]);
});
afterAll(async () => {
  await Promise.all([server.stop(), lb.close(), koito.close(), lastfm.close()]);
});

const discover = async () => json(await server.api('/api/discover', { token: server.admin.token }));
const setHistory = async (listeningHistory: Record<string, unknown>) =>
  expect((await server.api(`/api/users/${ADMIN_ID}`, { method: 'PATCH', token: server.admin.token, json: { listeningHistory } })).status).toBe(200);

describe('discovery without Last.fm', () => {
  it('uses ListenBrainz with reduced capabilities; uncomputed user statistics (204) are not an error', async () => {
    lb.addUser('lbuser', [{ name: 'Heard Not Owned', listens: 50 }, { name: 'Owned Band', listens: 30 }], { computed: false });
    await setHistory({ provider: 'listenbrainz', username: 'lbuser' });
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    expect(lb.requests.some((r) => r.path === '/1/stats/user/lbuser/artists')).toBe(true);
    const d = await discover();
    expect(d.provider).toBe('listenbrainz');
    expect(d.capabilities).toEqual({
      arbitraryTagSearch: false,
      flows: { discover: true, focus: false, mix: false, trending: true },
      genreSections: false,
      globalTrending: true,
      personalizedRecommendations: false,
      relatedArtists: false,
    });
    expect(d.stale).toBe(false);
    expect(names(d.recommendations)).toEqual(['World Hit', 'Second Hit']);
    expect(d.recommendations[0]).toMatchObject({ source: 'listenbrainz', inLibrary: false });
    expect(d.globalTop.find((a: { name: string }) => a.name === 'Owned Band')).toMatchObject({ inLibrary: true });
    expect(d.fallbackGenres).toEqual([]);
    const health = await json(await server.api('/api/health', { token: server.admin.token }));
    expect(health.discovery).toMatchObject({ provider: 'listenbrainz', capabilities: { personalizedRecommendations: false }, globalTopCount: 3 });
    // Tag search needs Last.fm.
    const byTag = await server.api('/api/discover/by-tag?tag=rock', { token: server.admin.token });
    expect(byTag.status).toBe(409);
    expect(await byTag.json()).toMatchObject({ code: 'NOT_CONFIGURED' });
  });

  it('once ListenBrainz has computed the statistics, artists the user hears but does not own come first', async () => {
    lb.users.get('lbuser')!.computed = true;
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    const d = await discover();
    expect(names(d.recommendations)).toEqual(['Heard Not Owned', 'World Hit', 'Second Hit']);
    expect(d.basedOn).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Heard Not Owned', source: 'listenbrainz' }), expect.objectContaining({ name: 'Owned Band', source: 'listenbrainz' })]));
  });

  it('Koito history and local play events seed Last.fm similar artists', async () => {
    expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } })).status).toBe(200);
    await setHistory({ provider: 'koito', username: null, url: koito.url });
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    let d = await discover();
    expect(d.provider).toBe('lastfm');
    expect(d.basedOn).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Koito Fave', source: 'koito' })]));
    expect(names(d.recommendations)).toContain('Koito Neighbour');

    const now = server.clock.now();
    const insert = server.ctx.db.prepare('INSERT INTO play_events (user_id, title, artist, played_at, created_at) VALUES (?, ?, ?, ?, ?)');
    for (let i = 0; i < 3; i++) insert.run(ADMIN_ID, `Song ${i}`, 'Played Loud', now - i * 60_000, now);
    await setHistory({ provider: 'local', username: null, url: null });
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    d = await discover();
    expect(d.basedOn).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Played Loud', source: 'local' })]));
    expect(names(d.recommendations)).toContain('Loud Neighbour');
    expect(names(d.recommendations)).not.toContain('Koito Neighbour');
  });
});
