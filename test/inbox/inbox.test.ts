import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryRepository, userScope } from '../../server/db/discovery.js';
import { downloads } from '../../server/db/downloads.js';
import { downloadAlbums } from '../../server/db/downloadAlbums.js';
import { NewsRepository } from '../../server/db/news.js';
import { requests } from '../../server/db/requests.js';
import { INBOX_TASK } from '../../server/domain/inbox/service.js';
import { startGeoFake, type FakePlace, type GeoFake } from '../fakes/geo/index.js';
import { startMusicBrainzFake, type MusicBrainzFake } from '../fakes/musicbrainz/index.js';
import { startTicketmasterFake, type TicketmasterFake } from '../fakes/ticketmaster/index.js';
import { catalogue, ids } from '../fixtures/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The per-user inbox against real SQLite and HTTP: release groups from the metadata cache, shows from
 * the Ticketmaster fake, digests of stored news articles and cached recommendations; the add action
 * goes through the library's own album request and artist add (MusicBrainz fake, no Lidarr).
 */

type Item = {
  id: number;
  kind: 'release' | 'show' | 'news' | 'discovery';
  sourceKey: string;
  title: string;
  subtitle: string | null;
  href: string | null;
  metadata: Record<string, unknown>;
  date: string | null;
  isRead: boolean;
  isSaved: boolean;
  isAdded: boolean;
  dismissedUntil: string | null;
  addable: 'album' | 'artist' | null;
};
type Inbox = { enabled: boolean; categories: Record<string, boolean>; items: Item[]; unreadCount: number; total: number; hasMore: boolean; lastRefreshedAt: string | null; warning?: string };

const DAY = 86_400_000;
const brooklyn: FakePlace = { postcode: '11211', countryCode: 'US', country: 'United States', city: 'Brooklyn', state: 'New York', stateCode: 'NY', lat: 40.7128, lon: -73.9533 };

let server: TestServer;
let mb: MusicBrainzFake;
let tm: TicketmasterFake;
let geo: GeoFake;
let pat: { id: number; token: string };
let sam: { id: number; token: string };
const mbid = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

async function call<T = any>(method: string, pathname: string, token: string | undefined, json?: unknown): Promise<{ status: number; body: T }> {
  const res = await server.api(pathname, { method, ...(token ? { token } : { headers: { 'x-api-key': server.apiKey } }), ...(json !== undefined && { json }) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
const inbox = async (token: string, query = '') => {
  const r = await call<Inbox>('GET', `/api/inbox${query}`, token);
  expect(r.status).toBe(200);
  return r.body;
};
const act = (token: string, id: number, json: unknown) => call('PATCH', `/api/inbox/${id}`, token, json);
const byKind = (b: Inbox, kind: Item['kind']) => b.items.filter((i) => i.kind === kind);

async function makeUser(username: string): Promise<{ id: number; token: string }> {
  const created = await call<{ id: number; user?: { id: number } }>('POST', '/api/users', server.admin.token, { username, password: 'password-123' });
  expect(created.status).toBeLessThan(300);
  const login = await call<{ token: string; user: { id: number } }>('POST', '/api/auth/login', server.admin.token, { username, password: 'password-123' });
  return { id: login.body.user.id, token: login.body.token };
}

/** Refreshes through the queue (POST /api/inbox/refresh) and waits until the job has stored its result. */
async function refreshed(user: { id: number; token: string }): Promise<Inbox> {
  const before = server.ctx.inbox.repo.state(user.id)?.refreshed_at ?? null;
  server.clock.advance(1000);
  const r = await call<{ success: boolean; jobId: number }>('POST', '/api/inbox/refresh', user.token);
  expect(r.status).toBe(202);
  for (let i = 0; i < 400; i++) {
    const after = server.ctx.inbox.repo.state(user.id)?.refreshed_at ?? null;
    if (after !== null && after !== before && !server.ctx.inbox.isRefreshing(user.id)) return inbox(user.token, '?limit=200');
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('inbox refresh did not finish');
}

function addArtist(name: string, artistMbid: string | null): number {
  return Number(
    server.ctx.db
      .prepare('INSERT INTO library_artists (identity_key, mbid, name, sort_name, created_at, updated_at, track_count, album_count) VALUES (?, ?, ?, ?, 0, 0, 3, 1)')
      .run(artistMbid ? `mbid:${artistMbid}` : `name:${name.toLowerCase()}`, artistMbid, name, name.toLowerCase()).lastInsertRowid,
  );
}

function addAlbum(artistId: number, title: string, albumMbid: string): void {
  server.ctx.db
    .prepare(
      `INSERT INTO library_albums (identity_key, mbid, artist_id, title, sort_name, album_artist, artist_sort_name, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'x', 'x', 0, 0)`,
    )
    .run(`mbid:${albumMbid}`, albumMbid, artistId, title, title.toLowerCase());
}

let velvetId: number;
let auroraId: number;

beforeAll(async () => {
  mb = await startMusicBrainzFake(catalogue);
  tm = await startTicketmasterFake();
  geo = await startGeoFake([brooklyn]);
  server = await startTestServer({
    env: {
      TONEARM_MUSICBRAINZ_URL: mb.url,
      TONEARM_TICKETMASTER_URL: tm.url,
      TONEARM_GEOCODER_URL: geo.nominatimUrl,
      TONEARM_ZIPPOPOTAM_URL: geo.zippopotamUrl,
      TONEARM_IPAPI_URL: geo.ipapiUrl,
      TONEARM_UPSTREAM_SPACING_MS: '0',
    },
  });
  server.ctx.settings.update({ integrations: { ticketmaster: { apiKey: tm.apiKey, location: 'Brooklyn' } } });
  pat = await makeUser('pat');
  sam = await makeUser('sam');
  const now = server.clock.now();

  // The library: Aurora Lane (the catalogue's MusicBrainz id) and Velvet Static.
  auroraId = addArtist('Aurora Lane', ids.aurora);
  velvetId = addArtist('Velvet Static', mbid(1));
  addAlbum(velvetId, 'Owned Already', mbid(12));

  // Release groups in the metadata cache: recent, upcoming, too old, and one the library owns.
  const cache = server.ctx.metadata.cache;
  cache.setArtistReleaseGroups(ids.aurora, [
    { mbid: ids.rgDusk, title: 'Dusk', primaryType: 'Album', secondaryTypes: [], date: day(now - 20 * DAY) },
    { mbid: ids.rgDawn, title: 'Dawn', primaryType: 'Album', secondaryTypes: [], date: '2019-03-01' },
  ]);
  cache.setArtistReleaseGroups(mbid(1), [
    { mbid: mbid(11), title: 'Static Bloom', primaryType: 'Album', secondaryTypes: [], date: day(now + 40 * DAY) },
    { mbid: mbid(12), title: 'Owned Already', primaryType: 'Album', secondaryTypes: [], date: day(now - 5 * DAY) },
    { mbid: mbid(13), title: 'Live Static', primaryType: 'Album', secondaryTypes: ['Live'], date: day(now - 2 * DAY) },
  ]);

  // Shows near Brooklyn: one by a library artist, one by a stranger.
  tm.venues.set('v1', { id: 'v1', name: 'Warehouse', city: 'Brooklyn', stateCode: 'NY', countryCode: 'US', postalCode: '11211', lat: 40.714, lon: -73.96 });
  tm.attractions.set('a1', { id: 'a1', name: 'Velvet Static' });
  tm.attractions.set('a2', { id: 'a2', name: 'Strangers Nearby' });
  tm.events.push(
    { id: 'e1', name: 'Velvet Static live', start: new Date(now + 10 * DAY), venueId: 'v1', attractionIds: ['a1'] },
    { id: 'e2', name: 'Strangers Nearby live', start: new Date(now + 3 * DAY), venueId: 'v1', attractionIds: ['a2'] },
  );

  // Stored news: two Velvet Static stories this week (one from a publisher pat blocks), one old Aurora story.
  const news = new NewsRepository(server.ctx.db);
  const article = (key: string, title: string, publisher: string, publishedAt: number, artist: { id: number; name: string }) =>
    news.store({ dedupeKey: key, feedId: 'f1', publisher, title, summary: null, url: `https://news.example/${key}`, imageUrl: null, imageProxyUrl: null, publishedAt }, [artist], now);
  article('a', 'Velvet Static announce a tour', 'Example Music News', now - 3600_000, { id: velvetId, name: 'Velvet Static' });
  article('b', 'Velvet Static interview', 'Gossip Weekly', now - 2 * 3600_000, { id: velvetId, name: 'Velvet Static' });
  article('c', 'Aurora Lane in 2019', 'Example Music News', now - 60 * DAY, { id: auroraId, name: 'Aurora Lane' });
  news.setBlockedPublishers(pat.id, ['Gossip Weekly'], now);

  // Pat's cached recommendations: one with a MusicBrainz id, one without, and one now in the library.
  const discovery = discoveryRepository(server.ctx.db);
  const rec = (name: string, m: string | null, score: number) => ({ name_key: name.toLowerCase(), name, mbid: m, score, source: 'lastfm', seeds_json: '["Aurora Lane"]', tags_json: '["dream pop"]', image: null });
  discovery.replaceUser(pat.id, [rec('Aurora Borealis Choir', ids.auroraBorealis, 0.9), rec('Nameless Drift', null, 0.8), rec('Velvet Static', mbid(1), 0.7)], [], []);
  discovery.succeeded(userScope(pat.id), 'lastfm', 3, now);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await mb?.close();
  await tm?.close();
  await geo?.close();
});

describe('who may use the inbox', () => {
  it('the instance API key gets 403 "User account required" on every inbox route', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/inbox', undefined],
      ['POST', '/api/inbox/refresh', undefined],
      ['POST', '/api/inbox/read-all', undefined],
      ['PATCH', '/api/inbox/1', { action: 'read' }],
    ] as const) {
      const r = await call(method, path, undefined, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toMatchObject({ error: 'User account required' });
    }
  });

  it('without a credential: 401 in the contract shape', async () => {
    const res = await server.api('/api/inbox');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'Unauthorized', code: 'AUTH_REQUIRED' });
  });
});

describe('a refresh', () => {
  let first: Inbox;

  it('collects each category: releases the library lacks, library artists’ shows, news digests, discoveries', async () => {
    first = await refreshed(pat);
    expect(first.enabled).toBe(true);
    expect(byKind(first, 'release').map((i) => i.title).sort()).toEqual(['Dusk', 'Live Static', 'Static Bloom']);
    const bloom = byKind(first, 'release').find((i) => i.title === 'Static Bloom')!;
    expect(bloom.metadata).toMatchObject({ upcoming: true, artistName: 'Velvet Static', releaseGroupMbid: mbid(11) });
    expect(bloom.subtitle).toMatch(/^Velvet Static · Album · out \d{4}-\d{2}-\d{2}$/);
    expect(bloom.href).toBe(`/release/${mbid(11)}`);
    expect(bloom.addable).toBe('album');

    expect(byKind(first, 'show').map((i) => i.sourceKey)).toEqual(['e1']);
    expect(byKind(first, 'show')[0]!.subtitle).toMatch(/Warehouse, Brooklyn/);

    const digests = byKind(first, 'news');
    expect(digests).toHaveLength(1);
    expect(digests[0]!.title).toBe('News about Velvet Static');
    // The blocked publisher's story is not in pat's digest; the 60-day-old one is in none.
    expect(digests[0]!.metadata).toMatchObject({ articleCount: 1, artistName: 'Velvet Static' });
    expect(digests[0]!.subtitle).toBe('Velvet Static announce a tour');

    const found = byKind(first, 'discovery');
    expect(found.map((i) => i.title)).toEqual(['Aurora Borealis Choir', 'Nameless Drift']);
    expect(found.map((i) => i.addable)).toEqual(['artist', null]);

    expect(first.unreadCount).toBe(first.items.length);
    expect(first.total).toBe(7);
    expect(first.lastRefreshedAt).not.toBeNull();
  });

  it('lists newest first and pages with limit and offset', async () => {
    const dates = first.items.map((i) => Date.parse(i.date ?? '0'));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    const page1 = await inbox(pat.token, '?limit=3');
    const page2 = await inbox(pat.token, '?limit=3&offset=3');
    expect(page1.items.map((i) => i.id)).toEqual(first.items.slice(0, 3).map((i) => i.id));
    expect(page2.items.map((i) => i.id)).toEqual(first.items.slice(3, 6).map((i) => i.id));
    expect(page1.hasMore).toBe(true);
    expect((await inbox(pat.token, '?limit=3&offset=6')).hasMore).toBe(false);
    expect((await inbox(pat.token, '?kind=show')).items.map((i) => i.sourceKey)).toEqual(['e1']);
    expect((await call('GET', '/api/inbox?limit=0', pat.token)).status).toBe(400);
    expect((await call('GET', '/api/inbox?kind=podcast', pat.token)).body).toMatchObject({ error: 'Invalid request', code: 'VALIDATION_ERROR' });
  });

  it('never duplicates: a second refresh keeps the same rows, and their read and saved state', async () => {
    const dusk = byKind(first, 'release').find((i) => i.title === 'Dusk')!;
    expect((await act(pat.token, dusk.id, { action: 'read' })).status).toBe(200);
    expect((await act(pat.token, dusk.id, { action: 'save' })).status).toBe(200);
    const again = await refreshed(pat);
    expect(again.items.map((i) => i.id).sort()).toEqual(first.items.map((i) => i.id).sort());
    const rows = server.ctx.db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT kind || source_key) AS d FROM inbox_items WHERE user_id = ?').get(pat.id) as { n: number; d: number };
    expect(rows).toEqual({ n: 7, d: 7 });
    const kept = again.items.find((i) => i.id === dusk.id)!;
    expect(kept).toMatchObject({ isRead: true, isSaved: true });
    expect(again.unreadCount).toBe(6);
  });

  it('retires what a refresh no longer finds (a release the library now has), and keeps saved ones', async () => {
    const live = byKind(first, 'release').find((i) => i.title === 'Live Static')!;
    addAlbum(velvetId, 'Live Static', mbid(13));
    const after = await refreshed(pat);
    expect(after.items.some((i) => i.id === live.id)).toBe(false);
    expect(after.items.some((i) => i.title === 'Dusk' && i.isSaved)).toBe(true);
    // Gone from the library again: the same row comes back, still read.
    await act(pat.token, live.id, { action: 'read' });
    server.ctx.db.prepare('DELETE FROM library_albums WHERE mbid = ?').run(mbid(13));
    const back = (await refreshed(pat)).items.find((i) => i.title === 'Live Static');
    expect(back).toMatchObject({ id: live.id, isRead: true });
  });

  it('each user has their own inbox: another user’s item is 404', async () => {
    const samInbox = await refreshed(sam);
    // Sam blocks no publisher (both stories) and has no recommendations.
    expect(byKind(samInbox, 'news')[0]!.metadata).toMatchObject({ articleCount: 2 });
    expect(byKind(samInbox, 'discovery')).toEqual([]);
    const patItem = first.items[0]!;
    const r = await act(sam.token, patItem.id, { action: 'read' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'Inbox item not found', message: `No inbox item ${patItem.id}` });
    expect((await act(pat.token, 999_999, { action: 'read' })).status).toBe(404);
  });
});

describe('item actions', () => {
  const items = async () => (await inbox(pat.token, '?limit=200')).items;

  it('read and unread change the unread count', async () => {
    const start = await inbox(pat.token);
    const target = start.items.find((i) => !i.isRead)!;
    const r = await act(pat.token, target.id, { action: 'read' });
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject({ id: target.id, isRead: true });
    expect(r.body.unreadCount).toBe(start.unreadCount - 1);
    const back = await act(pat.token, target.id, { action: 'unread' });
    expect(back.body.unreadCount).toBe(start.unreadCount);
  });

  it('save and unsave; saved=1 lists only saved items', async () => {
    const show = (await items()).find((i) => i.kind === 'show')!;
    expect((await act(pat.token, show.id, { action: 'save' })).body.item.isSaved).toBe(true);
    const saved = await inbox(pat.token, '?saved=1');
    expect(saved.items.map((i) => i.title).sort()).toEqual(['Dusk', 'Velvet Static live']);
    expect((await act(pat.token, show.id, { action: 'unsave' })).body.item.isSaved).toBe(false);
    expect((await inbox(pat.token, '?saved=1')).items.map((i) => i.title)).toEqual(['Dusk']);
  });

  it('dismiss hides an item for the period given, across refreshes, then it is back', async () => {
    const show = (await items()).find((i) => i.kind === 'show')!;
    const r = await act(pat.token, show.id, { action: 'dismiss', days: 2 });
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.item.dismissedUntil)).toBe(server.clock.now() + 2 * DAY);
    expect((await items()).some((i) => i.id === show.id)).toBe(false);
    server.clock.advance(DAY);
    expect((await refreshed(pat)).items.some((i) => i.id === show.id)).toBe(false);
    server.clock.advance(DAY + 1000);
    const back = (await items()).find((i) => i.id === show.id);
    expect(back).toMatchObject({ dismissedUntil: null, isRead: true });
    expect((await act(pat.token, show.id, { action: 'dismiss', days: 0 })).status).toBe(400);
    expect((await act(pat.token, show.id, { action: 'archive' })).body).toMatchObject({ error: 'Invalid request', code: 'VALIDATION_ERROR' });
  });

  it('add on a release requests the album through the library’s album request (no Lidarr: self-managed)', async () => {
    const dusk = (await items()).find((i) => i.title === 'Dusk')!;
    const r = await act(pat.token, dusk.id, { action: 'add' });
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject({ isAdded: true, isRead: true });
    expect(r.body.result).toMatchObject({ success: true, album: { mbid: ids.rgDusk, managedBy: 'aurral' } });
    const album = downloadAlbums.byMbid(server.ctx.db, ids.rgDusk);
    expect(album?.userId).toBe(pat.id);
  });

  it('add on a discovery adds the artist through the library’s artist add; nothing to add is 400', async () => {
    const all = await items();
    const choir = all.find((i) => i.title === 'Aurora Borealis Choir')!;
    const r = await act(pat.token, choir.id, { action: 'add' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ created: true, artist: { mbid: ids.auroraBorealis, managedBy: 'aurral' } });
    expect(requests.find(server.ctx.db, 'artist', ids.auroraBorealis)).toBeTruthy();
    const nameless = all.find((i) => i.title === 'Nameless Drift')!;
    const bad = await act(pat.token, nameless.id, { action: 'add' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'Invalid request', message: expect.stringMatching(/no MusicBrainz id/) });
    const digest = all.find((i) => i.kind === 'news')!;
    expect((await act(pat.token, digest.id, { action: 'add' })).status).toBe(400);
    expect(all.find((i) => i.id === digest.id)!.isAdded).toBe(false);
  });

  it('read-all marks everything read', async () => {
    const r = await call('POST', '/api/inbox/read-all', pat.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, unreadCount: 0 });
    expect(r.body.updated).toBeGreaterThan(0);
    expect((await inbox(pat.token)).unreadCount).toBe(0);
    // Sam's inbox is untouched.
    expect((await inbox(sam.token)).unreadCount).toBeGreaterThan(0);
  });
});

describe('administrator switches', () => {
  it('a category switched off hides its items and stops collecting it; switched on, they are back with their state', async () => {
    const before = await inbox(sam.token, '?limit=200');
    const shows = byKind(before, 'show');
    expect(shows.length).toBe(1);
    expect((await call('POST', '/api/settings', sam.token, { inbox: { categories: { shows: false } } })).status).toBe(403);
    expect((await call('POST', '/api/settings', server.admin.token, { inbox: { categories: { shows: false } } })).status).toBe(200);
    const off = await inbox(sam.token, '?limit=200');
    expect(off.categories).toEqual({ releases: true, shows: false, news: true, discoveries: true });
    expect(byKind(off, 'show')).toEqual([]);
    expect(off.unreadCount).toBe(before.unreadCount - shows.filter((s) => !s.isRead).length);
    expect((await inbox(sam.token, '?kind=show')).items).toEqual([]);
    await refreshed(sam);
    expect((await call('POST', '/api/settings', server.admin.token, { inbox: { categories: { shows: true } } })).status).toBe(200);
    const on = await inbox(sam.token, '?limit=200');
    expect(byKind(on, 'show').map((i) => i.id)).toEqual(shows.map((i) => i.id));
  });

  it('the whole inbox switched off: inboxEnabled false in health and bootstrap, an empty list, 409 NOT_CONFIGURED on changes', async () => {
    const health = async () => (await call('GET', '/api/health', pat.token)).body.inboxEnabled;
    const boot = async () => (await call('GET', '/api/health/bootstrap', pat.token)).body.inboxEnabled;
    expect(await health()).toBe(true);
    expect(await boot()).toBe(true);
    expect((await call('POST', '/api/settings', server.admin.token, { inbox: { enabled: false } })).status).toBe(200);
    expect(await health()).toBe(false);
    expect(await boot()).toBe(false);
    const list = await inbox(pat.token);
    expect(list).toMatchObject({ enabled: false, items: [], unreadCount: 0, total: 0 });
    const r = await call('POST', '/api/inbox/refresh', pat.token);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'NOT_CONFIGURED' });
    expect((await call('POST', '/api/inbox/read-all', pat.token)).status).toBe(409);
    expect((await call('POST', '/api/settings', server.admin.token, { inbox: { enabled: true } })).status).toBe(200);
    expect((await inbox(pat.token)).total).toBeGreaterThan(0);
  });
});

describe('opening the inbox', () => {
  it('queues a refresh when the last is over an hour old, unless refresh=false (the badge)', async () => {
    const before = server.ctx.inbox.repo.state(pat.id)!.refreshed_at!;
    server.clock.advance(2 * 3600_000);
    await inbox(pat.token, '?limit=1&refresh=false');
    await new Promise((r) => setTimeout(r, 300));
    expect(server.ctx.inbox.repo.state(pat.id)!.refreshed_at).toBe(before);
    await inbox(pat.token, '?limit=1');
    for (let i = 0; i < 400 && server.ctx.inbox.repo.state(pat.id)!.refreshed_at === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.ctx.inbox.repo.state(pat.id)!.refreshed_at).toBe(server.clock.now());
  });
});

describe('the daily task', () => {
  it('is scheduled every day on the job queue and refreshes every active user', async () => {
    const task = server.ctx.scheduler.list().find((t) => t.name === INBOX_TASK)!;
    expect(task).toMatchObject({ queue: 'inbox-refresh', schedule: '@every 1d' });
    const admin = server.ctx.users.findByUsername('admin')!.id;
    expect(server.ctx.inbox.repo.state(admin)).toBeUndefined();
    server.clock.advance(1000);
    const since = server.clock.now();
    expect(server.ctx.scheduler.runNow(INBOX_TASK)).toBe(true);
    for (let i = 0; i < 400; i++) {
      const states = [admin, pat.id, sam.id].map((id) => server.ctx.inbox.repo.state(id)?.refreshed_at ?? 0);
      if (states.every((t) => t >= since)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(server.ctx.inbox.repo.state(admin)?.refreshed_at).toBeGreaterThanOrEqual(since);
    expect(server.ctx.inbox.repo.state(pat.id)?.refreshed_at).toBeGreaterThanOrEqual(since);
  });
});
