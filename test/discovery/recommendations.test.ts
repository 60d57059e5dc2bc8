import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallBudget, DISCOVERY_CALL_BUDGET } from '../../server/domain/discovery/refresh.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addLibraryArtists, discoverySubscriber, json, waitFor } from './helpers.js';

/**
 * Recommendations with Last.fm against the fake: seeds from a large library, pooled similar artists
 * without library, blocked and disliked ones, feedback, preferences, the call budget, progress over
 * /ws, and a stale cache when Last.fm is down.
 */

let server: TestServer;
let lastfm: LastFmFake;
let lb: ListenBrainzFake;
const ADMIN_ID = 1;

const names = (list: { name: string }[]) => list.map((a) => a.name);

beforeAll(async () => {
  [lastfm, lb] = await Promise.all([
    startLastFmFake([
      { name: 'Lib A', tags: ['dream pop'], similar: [{ name: 'Sim One', match: 0.9 }, { name: 'Sim Two', match: 0.8 }, { name: 'Lib B', match: 0.7 }, { name: 'Blocked X', match: 0.6 }, { name: 'Sim Noise', match: 0.5 }] },
      { name: 'Lib B', tags: ['shoegaze'], similar: [{ name: 'Sim One', match: 0.6 }, { name: 'Sim Four', match: 0.9 }] },
      { name: 'Sim One', tags: ['dream pop'], listeners: 500, similar: [{ name: 'Sim Three', match: 0.95 }] },
      { name: 'Sim Two', tags: ['dream pop', 'indie'], listeners: 400 },
      { name: 'Sim Three', tags: ['shoegaze'], listeners: 300 },
      { name: 'Sim Four', tags: ['shoegaze'], listeners: 200, similar: [{ name: 'Sim Six', match: 0.9 }] },
      { name: 'Sim Six', tags: ['indie'], listeners: 100 },
      { name: 'Sim Noise', tags: ['noise'], listeners: 50 },
      { name: 'Blocked X', tags: ['indie'], listeners: 10 },
      { name: 'Chart Star', tags: ['pop'], listeners: 99_000 },
    ]),
    startListenBrainzFake(),
  ]);
  server = await startTestServer({
    env: { TONEARM_LASTFM_URL: lastfm.url, TONEARM_LISTENBRAINZ_URL: lb.url, TONEARM_UPSTREAM_SPACING_MS: '0', ALLOW_PRIVATE_TARGETS: '127.0.0.1' },
  });
  expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations: { lastfm: { apiKey: lastfm.apiKey } } } })).status).toBe(200);
  // A large library: two artists that matter, and 300 that Last.fm does not know.
  addLibraryArtists(server, [
    { name: 'Lib A', tracks: 100 },
    { name: 'Lib B', tracks: 90 },
    ...Array.from({ length: 300 }, (_, i) => ({ name: `Filler ${i}`, tracks: 1 })),
  ]);
});
afterAll(async () => {
  await Promise.all([server.stop(), lastfm.close(), lb.close()]);
});

const discover = async (token = server.admin.token, query = '') => json(await server.api(`/api/discover${query}`, { token }));

describe('discovery with Last.fm', () => {
  it('a refresh stays within the call budget however large the library, and excludes library artists', async () => {
    const before = lastfm.requests.length;
    const result = await server.ctx.discovery.refreshUser(ADMIN_ID);
    const made = lastfm.requests.length - before;
    expect(result.calls).toBeLessThanOrEqual(DISCOVERY_CALL_BUDGET);
    expect(made).toBe(result.calls);
    expect(made).toBeLessThanOrEqual(DISCOVERY_CALL_BUDGET);
    // The two known artists were asked first (most tracks first).
    const similarAsked = lastfm.requests.slice(before).filter((r) => r.query.get('method') === 'artist.getSimilar').map((r) => r.query.get('artist'));
    expect(similarAsked.slice(0, 2)).toEqual(['Lib A', 'Lib B']);

    const d = await discover();
    expect(d.provider).toBe('lastfm');
    expect(d.configured).toBe(true);
    expect(d.capabilities).toMatchObject({ personalizedRecommendations: true, relatedArtists: true, arbitraryTagSearch: true, genreSections: true });
    expect(d.stale).toBe(false);
    expect(d.lastUpdated).toEqual(expect.any(String));
    const recs = names(d.recommendations);
    expect(recs).toEqual(expect.arrayContaining(['Sim One', 'Sim Two', 'Sim Four', 'Blocked X', 'Sim Noise']));
    expect(recs).not.toContain('Lib B');
    expect(recs).not.toContain('Lib A');
    // Found from both seeds: first.
    expect(recs[0]).toBe('Sim One');
    expect(d.recommendations[0]).toMatchObject({ type: 'artist', inLibrary: false, source: 'lastfm', tags: ['dream pop'], basedOn: expect.arrayContaining(['Lib A', 'Lib B']) });
    expect(d.recommendationCount).toBe(recs.length);
    expect(d.basedOn.slice(0, 2)).toEqual([expect.objectContaining({ name: 'Lib A', source: 'library' }), expect.objectContaining({ name: 'Lib B', source: 'library' })]);
    expect(d.topTags).toContain('dream pop');
    expect(d.globalTop[0]).toMatchObject({ name: 'Chart Star', inLibrary: false });
    expect(d.globalTop.find((a: { name: string }) => a.name === 'Lib A')).toMatchObject({ inLibrary: true });
    expect(d.discoverPlaylists.length).toBeGreaterThan(3);
    expect(d.discoverPlaylists[0]).toEqual(expect.objectContaining({ id: expect.any(String), name: expect.any(String), description: expect.any(String), tags: expect.any(Array) }));
    expect(d.fallbackGenres.length).toBeGreaterThan(0);
    // The refresh fields the Pocket app reads: this run's id, its enrichment (the tags step) done.
    expect(d).toMatchObject({ discoveryMode: 'balanced', discoveryRunId: expect.stringMatching(/^[0-9a-f-]{36}$/), isEnriching: false, enrichmentProgressMessage: null, recommendationQuality: 'enriched', playlistsUpdating: false });
    expect(Date.parse(d.enrichmentStartedAt)).toBeLessThanOrEqual(Date.parse(d.enrichmentCompletedAt));
    expect(Date.parse(d.enrichmentCompletedAt)).toBeLessThanOrEqual(Date.parse(d.lastUpdated));
    const runId = d.discoveryRunId;
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    expect((await discover()).discoveryRunId).not.toBe(runId);

    // Paging.
    const page = await discover(server.admin.token, '?limit=1&offset=1');
    expect(names(page.recommendations)).toEqual([recs[1]]);
    expect((await server.api('/api/discover?limit=201', { token: server.admin.token })).status).toBe(400);
  });

  it('the discover feature and the health block are real', async () => {
    const boot = await json(await server.api('/api/health/bootstrap'));
    expect(boot.api.features).toContain('discover');
    const health = await json(await server.api('/api/health', { token: server.admin.token }));
    expect(health.discovery).toMatchObject({ provider: 'lastfm', isUpdating: false, globalTopCount: 10, updatePhase: null });
    expect(health.discovery.recommendationsCount).toBeGreaterThan(4);
    expect(health.discovery.lastUpdated).toEqual(expect.any(String));
  });

  it('blocked artists and excluded tags leave at once and stay out after a refresh', async () => {
    const prefs = await json(await server.api('/api/discover/preferences', { method: 'POST', token: server.admin.token, json: { excludedArtists: ['Blocked X'], excludedTags: ['Noise'] } }));
    expect(prefs).toEqual({ excludedArtists: ['Blocked X'], excludedTags: ['noise'], deepDive: false });
    expect(names((await discover()).recommendations)).not.toEqual(expect.arrayContaining(['Blocked X']));
    expect(names((await discover()).recommendations)).not.toContain('Sim Noise');
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    const recs = names((await discover()).recommendations);
    expect(recs).not.toContain('Blocked X');
    expect(recs).not.toContain('Sim Noise');
    expect(recs).toContain('Sim Two');
  });

  it('"less like this" removes the artist and its neighbours at once; "more" brings new ones after the refresh it queues', async () => {
    const less = await json(await server.api('/api/discover/feedback', { method: 'POST', token: server.admin.token, json: { artistName: 'Sim One', kind: 'less' } }), 201);
    expect(less).toMatchObject({ success: true, feedback: { artistName: 'Sim One', kind: 'less' } });
    let recs = names((await discover()).recommendations);
    expect(recs).not.toContain('Sim One');
    expect(recs).toContain('Sim Two');
    // Sim Three was never recommended, and as Sim One's neighbour it is kept out of later refreshes too.
    await server.ctx.discovery.refreshUser(ADMIN_ID);
    recs = names((await discover()).recommendations);
    expect(recs).not.toContain('Sim One');
    expect(recs).not.toContain('Sim Three');
    expect(recs).not.toContain('Sim Six');

    await json(await server.api('/api/discover/feedback', { method: 'POST', token: server.admin.token, json: { artistName: 'Sim Four', kind: 'more' } }), 201);
    await waitFor(async () => names((await discover()).recommendations).includes('Sim Six'), 'Sim Six recommended after "more like Sim Four"');
    const d = await discover();
    expect(d.basedOn[0]).toMatchObject({ name: 'Sim Four', source: 'feedback' });
    expect(names(d.recommendations)).not.toContain('Sim Four');

    const list = await json(await server.api('/api/discover/feedback', { token: server.admin.token }));
    expect(list.feedback.map((f: { artistName: string; kind: string }) => `${f.kind} ${f.artistName}`)).toEqual(['more Sim Four', 'less Sim One']);
    const id = list.feedback[1].id;
    expect(await json(await server.api(`/api/discover/feedback/${id}`, { method: 'DELETE', token: server.admin.token }))).toEqual({ success: true });
    expect(await json(await server.api(`/api/discover/feedback/${id}`, { method: 'DELETE', token: server.admin.token }), 404)).toMatchObject({ error: 'Feedback not found' });
  });

  it('reports refresh progress over /ws channel discovery', async () => {
    await waitFor(() => !server.ctx.discovery.current(ADMIN_ID), 'queued refresh finished');
    const sub = await discoverySubscriber(server, server.admin.token);
    try {
      await json(await server.api('/api/discover/refresh', { method: 'POST', token: server.admin.token }));
      await waitFor(() => sub.messages.some((m) => m.type === 'discovery_update' && m.updatePhase === 'done'), 'refresh done');
      const updates = sub.messages.filter((m) => m.type === 'discovery_update');
      expect(updates.every((m) => m.channel === 'discovery')).toBe(true);
      const phases = updates.map((m) => m.updatePhase);
      expect(phases[0]).toBe('queued');
      expect(phases).toEqual(expect.arrayContaining(['seeds', 'saving', 'done']));
      const progress = updates.map((m) => m.updateProgress).filter((p): p is number => typeof p === 'number');
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(updates.at(-1)).toMatchObject({ isUpdating: false, updateProgress: 100, provider: 'lastfm', recommendationsCount: expect.any(Number) });
    } finally {
      sub.close();
    }
  });

  it('a new user with no history sees the genre sections and the chart', async () => {
    await json(await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'newbie', password: 'password-123' } }), 201).catch(async () => undefined);
    const login = await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'newbie', password: 'password-123' } }));
    const d = await discover(login.token);
    expect(d.recommendations).toEqual([]);
    expect(d.fallbackGenres.length).toBeGreaterThan(0);
    const dreamPop = d.fallbackGenres.find((g: { name: string }) => g.name === 'dream pop');
    expect(names(dreamPop.artists)).toEqual(expect.arrayContaining(['Lib A', 'Sim One']));
    expect(dreamPop.artists.find((a: { name: string }) => a.name === 'Lib A').inLibrary).toBe(true);
    expect(d.globalTop.length).toBeGreaterThan(0);
  });

  it('tags, by-tag, related, similar and filtered answer from the cache and Last.fm', async () => {
    const tags = await json(await server.api('/api/discover/tags', { token: server.admin.token }));
    expect(tags.arbitraryTagSearch).toBe(true);
    expect(tags.genres.length).toBeGreaterThan(0);
    const byTag = await json(await server.api('/api/discover/by-tag?tag=indie', { token: server.admin.token }));
    expect(names(byTag.items)).toContain('Sim Six');
    expect(names(byTag.items)).not.toContain('Blocked X');
    const related = await json(await server.api('/api/discover/related?artist=Lib%20A', { token: server.admin.token }));
    expect(related.items.find((a: { name: string }) => a.name === 'Lib B')).toMatchObject({ inLibrary: true });
    const grouped = await json(await server.api('/api/discover/related', { token: server.admin.token }));
    expect(grouped.sections.length).toBeGreaterThan(0);
    const similar = await json(await server.api('/api/discover/similar', { token: server.admin.token }));
    expect(similar.seeds.length).toBeGreaterThan(0);
    const filtered = await json(await server.api('/api/discover/filtered?tag=indie', { token: server.admin.token }));
    expect(filtered.items.every((a: { tags: string[] }) => a.tags.includes('indie'))).toBe(true);
    expect(filtered.total).toBeGreaterThan(0);
  });

  it('Last.fm down: the previous recommendations are served with stale:true', async () => {
    const before = await discover();
    expect(before.stale).toBe(false);
    // Forget the cached similar lists so the refresh has to ask Last.fm.
    server.ctx.db.prepare('DELETE FROM discovery_artist_cache').run();
    lastfm.faults.down = true;
    try {
      await server.ctx.discovery.refreshUser(ADMIN_ID);
    } finally {
      lastfm.faults.down = false;
    }
    const after = await discover();
    expect(after.stale).toBe(true);
    expect(names(after.recommendations)).toEqual(names(before.recommendations));
    expect(after.lastUpdated).toBe(before.lastUpdated);
  });

  it('clear-discovery empties the cache but keeps feedback and preferences', async () => {
    expect(await json(await server.api('/api/discover/clear-discovery', { method: 'POST', token: server.admin.token }))).toMatchObject({ success: true });
    const d = await discover();
    expect(d.recommendations).toEqual([]);
    expect((await json(await server.api('/api/discover/preferences', { token: server.admin.token }))).excludedArtists).toEqual(['Blocked X']);
    expect((await json(await server.api('/api/discover/feedback', { token: server.admin.token }))).feedback.length).toBe(1);
  });

  it('a smaller budget is honoured exactly, counted at the fake', async () => {
    // Let the refresh queued by reading the emptied cache finish first: only this refresh may talk to the fake.
    const busy = server.ctx.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE queue = 'discovery-user-refresh' AND status IN ('pending', 'running')");
    await waitFor(() => (busy.get() as { n: number }).n === 0, 'queued refreshes finished');
    server.ctx.db.prepare('DELETE FROM discovery_artist_cache').run();
    server.ctx.db.prepare("DELETE FROM discovery_state WHERE scope = 'global'").run();
    const before = lastfm.requests.length;
    const result = await server.ctx.discovery.refreshUser(ADMIN_ID, new AbortController().signal, new CallBudget(5));
    expect(lastfm.requests.length - before).toBe(5);
    expect(result.calls).toBe(5);
  });
});
