import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NEWS_FEEDS } from '../../server/integrations/news/sources.js';
import { feedId } from '../../server/integrations/news/feed.js';
import { newsApiBudgetOf } from '../../server/domain/news/service.js';
import { startNewsFeedFake, rssDocument, type NewsFeedFake } from '../fakes/news/index.js';
import { startNewsApiFake, type NewsApiFake } from '../fakes/newsapi/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let feeds: NewsFeedFake;
let newsapi: NewsApiFake;
let userToken: string;

const hour = 3600_000;
type NewsBody = {
  configured: boolean;
  articles: { id: number; title: string; description: string | null; source: string; url: string | null; publishedAt: string; imageUrl: string | null; artists: { id: number; name: string }[] }[];
  hasMore: boolean;
  refresh: { checkedArtistCount: number; queuedArtistCount: number; callsRemaining: number; failedFeeds: { id: string; error: string }[]; warning?: string };
};

function addArtist(name: string, tracks = 1): number {
  const now = Date.now();
  return Number(
    server.ctx.db
      .prepare('INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at, track_count) VALUES (?, ?, ?, ?, ?, ?)')
      .run(`test:${name}`, name, name.toLowerCase(), now, now, tracks).lastInsertRowid,
  );
}

const news = async (query = '', token?: string) => {
  const res = await server.api(`/api/news${query}`, { token: token ?? server.admin.token });
  return { res, body: (await res.json()) as NewsBody };
};

beforeAll(async () => {
  feeds = await startNewsFeedFake();
  newsapi = await startNewsApiFake();
  server = await startTestServer({ env: { ALLOW_PRIVATE_TARGETS: '127.0.0.1', TONEARM_NEWSAPI_URL: newsapi.url, TONEARM_UPSTREAM_SPACING_MS: '0' } });
  // Never the real publications: every built-in feed off, the fake's feeds as custom ones.
  const now = Date.now();
  const bigItems = Array.from({ length: 150 }, (_, i) => ({
    title: `Copper Moth live report ${i}`,
    link: `/big/${i}`,
    published: new Date(now - 10 * hour - i * 60_000),
    description: i === 0 ? `<p>${'Copper Moth '.repeat(100_000)}</p>` : `Night ${i}`,
  }));
  feeds.documents.set('/feeds/big.xml', { contentType: 'application/rss+xml', body: rssDocument({ title: 'Firehose', link: feeds.url }, bigItems) });
  feeds.documents.set('/feeds/false.xml', {
    contentType: 'application/rss+xml',
    body: rssDocument({ title: 'Noise', link: feeds.url }, [
      { title: 'The new museum of modern art opens', link: '/noise/1', published: new Date(now - hour), description: 'Low prices and fresh air: yes, it is free.' },
      { title: 'Velvet Staticky radio review', link: '/noise/2', published: new Date(now - hour), description: 'Not a band.' },
      { title: 'Tribute to Mimi Parker', link: '/noise/3', published: new Date(now - hour), description: 'Remembering a drummer.', categories: ['Low'] },
    ]),
  });
  server.ctx.settings.update({
    integrations: {
      news: {
        disabledFeeds: DEFAULT_NEWS_FEEDS.map((f) => f.id),
        feeds: [
          { url: feeds.feedUrl('/feeds/news.rss'), name: 'Example Music News' },
          { url: feeds.feedUrl('/feeds/news.atom'), name: 'Example Music Blog' },
          { url: feeds.feedUrl('/feeds/broken.xml'), name: 'Broken' },
          { url: feeds.feedUrl(`/redirect?to=${encodeURIComponent('http://192.168.1.10/feed')}`), name: 'Sneaky LAN' },
          { url: feeds.feedUrl(`/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`), name: 'Sneaky metadata' },
          { url: feeds.feedUrl('/feeds/big.xml'), name: 'Firehose' },
          { url: feeds.feedUrl('/feeds/false.xml'), name: 'Noise' },
        ],
      },
    },
  });
  for (const name of ['Aurora Lane', 'Velvet Static', 'Copper Moth', 'Low', 'Muse']) addArtist(name);
  const created = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'pat', password: 'password-123' } });
  expect(created.status).toBeLessThan(300);
  userToken = ((await (await server.api('/api/auth/login', { method: 'POST', json: { username: 'pat', password: 'password-123' } })).json()) as { token: string }).token;
});

afterAll(async () => {
  await server?.stop();
  await feeds?.close();
  await newsapi?.close();
});

describe('GET /api/news', () => {
  it('reads the feeds: articles about library artists only, newest first; broken, huge and redirected-to-private feeds do not stop the rest', async () => {
    const before = await news();
    expect(before.res.status).toBe(200);
    expect(before.res.headers.get('cache-control')).toContain('no-store');
    expect(before.res.headers.get('cache-control')).toContain('private');
    await server.ctx.news.refresh();

    const { body } = await news('?limit=100');
    expect(body.configured).toBe(true);
    const titles = body.articles.map((a) => a.title);
    expect(titles.some((t) => t.startsWith('Aurora Lane announce'))).toBe(true);
    expect(titles.some((t) => t.startsWith('Velvet Static share video'))).toBe(true);
    // The same story in the RSS and the Atom feed is one article.
    expect(titles.filter((t) => t.startsWith('Aurora Lane announce'))).toHaveLength(1);
    // False positives: a museum, low prices, fresh air, "Velvet Staticky"; the tagged "Low" tribute counts.
    expect(titles.some((t) => /museum|Staticky/.test(t))).toBe(false);
    const tribute = body.articles.find((a) => a.title === 'Tribute to Mimi Parker');
    expect(tribute?.artists.map((a) => a.name)).toEqual(['Low']);
    // Newest first.
    const times = body.articles.map((a) => Date.parse(a.publishedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The huge feed: at most 100 items read, the 1 MB description cut.
    const big = body.articles.filter((a) => a.title.startsWith('Copper Moth live report'));
    expect(big.length).toBeGreaterThan(0);
    expect(big.length).toBeLessThanOrEqual(100);
    expect(Math.max(...big.map((a) => a.description?.length ?? 0))).toBeLessThanOrEqual(1000);
    // Failed feeds are reported, the private redirects refused (never fetched).
    const failed = body.refresh.failedFeeds.map((f) => f.id);
    expect(failed).toContain(feedId(feeds.feedUrl('/feeds/broken.xml')));
    expect(failed).toContain(feedId(feeds.feedUrl(`/redirect?to=${encodeURIComponent('http://192.168.1.10/feed')}`)));
    expect(failed).toContain(feedId(feeds.feedUrl(`/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`)));
    expect(body.refresh.warning).toMatch(/3 of 7 feeds/);
    expect(body.refresh.checkedArtistCount).toBe(5);
    // No NewsAPI key yet: no calls, nothing queued, the whole budget left.
    expect(newsapi.requests).toHaveLength(0);
    expect(body.refresh.queuedArtistCount).toBe(0);
    expect(body.refresh.callsRemaining).toBe(100);
    // Pictures: from the feed, else the article page's og:image.
    const aurora = body.articles.find((a) => a.title.startsWith('Aurora Lane announce'))!;
    expect(aurora.imageUrl).toMatch(/^\/api\/image-proxy\/[0-9a-f]+$/);
    // Registered with the proxy for the picture the feed named (the content's <img>, made absolute).
    const key = aurora.imageUrl!.split('/').at(-1);
    const remote = server.ctx.db.prepare('SELECT url FROM remote_images WHERE cache_key = ?').pluck().get(key) as string | undefined;
    expect(remote).toBe(feeds.feedUrl('/images/aurora-lane.jpg'));
  });

  it('limit: default 60, 1–100, hasMore', async () => {
    const dflt = await news();
    expect(dflt.body.articles).toHaveLength(60);
    expect(dflt.body.hasMore).toBe(true);
    expect((await news('?limit=100')).body.articles.length).toBe(100);
    expect((await news('?limit=1')).body.articles).toHaveLength(1);
    for (const bad of ['0', '101', 'abc', '-5']) {
      const res = await server.api(`/api/news?limit=${bad}`, { token: server.admin.token });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('VALIDATION_ERROR');
    }
  });

  it('an artist removed from the library takes its articles out of the news', async () => {
    const id = addArtist('Temporary Tigers');
    const feedsBefore = feeds.requests.length;
    feeds.documents.set('/feeds/news.rss', {
      contentType: 'application/rss+xml',
      body: rssDocument({ title: 'Example Music News', link: feeds.url }, [{ title: 'Temporary Tigers split up', link: '/articles/tigers', published: new Date(Date.now() - 60_000), description: 'Sad.' }]),
    });
    await server.ctx.news.refresh();
    expect(feeds.requests.length).toBeGreaterThan(feedsBefore);
    expect((await news('?limit=5')).body.articles[0]?.title).toBe('Temporary Tigers split up');
    server.ctx.db.prepare('DELETE FROM library_artists WHERE id = ?').run(id);
    expect((await news('?limit=100')).body.articles.some((a) => a.title === 'Temporary Tigers split up')).toBe(false);
  });
});

describe('news preferences', () => {
  it('blocks publishers per user; PATCH replaces the list; 400 without an array', async () => {
    expect(await (await server.api('/api/news/preferences', { token: userToken })).json()).toEqual({ blockedPublishers: [] });
    const patched = await server.api('/api/news/preferences', { method: 'PATCH', token: userToken, json: { blockedPublishers: ['example music news', 'Firehose', 'Firehose'] } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('cache-control')).toContain('no-store');
    expect(await patched.json()).toEqual({ blockedPublishers: ['example music news', 'Firehose'] });

    const mine = (await news('?limit=100', userToken)).body.articles;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.some((a) => a.source === 'Example Music News' || a.source === 'Firehose')).toBe(false);
    // The administrator blocked nothing.
    const theirs = (await news('?limit=100')).body.articles;
    expect(theirs.some((a) => a.source === 'Firehose')).toBe(true);

    const replaced = await server.api('/api/news/preferences', { method: 'PATCH', token: userToken, json: { blockedPublishers: ['Noise'] } });
    expect(await replaced.json()).toEqual({ blockedPublishers: ['Noise'] });
    expect((await news('?limit=100', userToken)).body.articles.some((a) => a.source === 'Firehose')).toBe(true);

    for (const bad of [{}, { blockedPublishers: 'Noise' }, { blockedPublishers: [1] }, null]) {
      const res = await server.api('/api/news/preferences', { method: 'PATCH', token: userToken, json: bad });
      expect(res.status).toBe(400);
    }
    expect(await (await server.api('/api/news/preferences', { token: userToken })).json()).toEqual({ blockedPublishers: ['Noise'] });
  });
});

describe('NewsAPI and the shared request budget', () => {
  it('searches due artists from the budget and never goes past it, even when NewsAPI fails', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Budget Band ${String.fromCharCode(65 + i)}${String.fromCharCode(97 + i)}x`);
    for (const n of names) addArtist(n, 10);
    for (const n of names)
      newsapi.articles.push({ title: `${n} announce a tour`, description: 'Dates below.', url: `https://press.example.com/${encodeURIComponent(n)}`, publishedAt: new Date(Date.now() - 2 * hour), source: 'Press Wire', urlToImage: 'https://press.example.com/picture.jpg' });
    server.ctx.settings.update({ integrations: { news: { apiKey: newsapi.apiKey, requestBudget: 5 } } });

    const service = server.ctx.news;
    await Promise.all([service.refresh(), service.refresh()]);
    expect(newsapi.requests).toHaveLength(5);
    let { body } = await news('?limit=100');
    expect(body.refresh.callsRemaining).toBe(0);
    expect(body.refresh.warning).toMatch(/budget/i);
    // 12 budget bands + Aurora Lane, Velvet Static, Copper Moth (Low and Muse are never searched).
    expect(body.refresh.queuedArtistCount).toBe(15 - 5);
    expect(body.articles.filter((a) => a.source === 'Press Wire')).toHaveLength(5);

    // Budget spent: another refresh asks nothing.
    await service.refresh();
    expect(newsapi.requests).toHaveLength(5);

    // A day later the budget refills and the next due artists are searched, again at most 5.
    // Two of those answer 503: paid for, never retried, still at most 5.
    server.clock.advance(24 * hour + 60_000);
    newsapi.faults.failNext(2, 503);
    await service.refresh();
    expect(newsapi.requests).toHaveLength(10);
    body = (await news('?limit=100')).body;
    expect(body.refresh.callsRemaining).toBe(0);
    // Only the three searched successfully are done for 6 hours; the first five are due again.
    expect(body.refresh.queuedArtistCount).toBe(12);
    expect(body.refresh.warning).toMatch(/NewsAPI search failed/);
    const searched = newsapi.requests.map((r) => r.query.get('q'));
    expect(new Set(searched).size).toBe(10);
    expect(searched.every((q) => /^".+"$/.test(q ?? ''))).toBe(true);
    expect(newsapi.requests.every((r) => r.headers['x-api-key'] === newsapi.apiKey && !r.query.has('apiKey'))).toBe(true);
  });

  it('the budget is shared: what another feature takes is gone for news, and it rolls over 24 hours', async () => {
    server.clock.advance(25 * hour);
    server.ctx.settings.update({ integrations: { news: { requestBudget: 3 } } });
    const shared = newsApiBudgetOf(server.ctx);
    expect(shared.remaining()).toBe(3);
    expect(shared.take('inbox')).toBe(true);
    expect(shared.take('inbox')).toBe(true);
    expect((await news()).body.refresh.callsRemaining).toBe(1);
    const before = newsapi.requests.length;
    await server.ctx.news.refresh();
    expect(newsapi.requests.length - before).toBe(1);
    expect(shared.take('inbox')).toBe(false);
    expect((await news()).body.refresh.callsRemaining).toBe(0);
    server.clock.advance(12 * hour);
    expect(shared.remaining()).toBe(0);
    server.clock.advance(12 * hour + 60_000);
    expect(shared.remaining()).toBe(3);
  });

  it('a NewsAPI rate limit stops the searches of that refresh', async () => {
    server.ctx.settings.update({ integrations: { news: { requestBudget: 100 } } });
    server.clock.advance(7 * hour);
    newsapi.quota = 0;
    const before = newsapi.requests.length;
    await server.ctx.news.refresh();
    // One refused request (never retried: each request is paid from the budget), then no more.
    expect(newsapi.requests.length - before).toBe(1);
    expect((await news()).body.refresh.callsRemaining).toBe(99);
    expect((await news()).body.refresh.warning).toMatch(/rate limited/i);
    newsapi.quota = null;
  });
});

describe('switching news off and feeds', () => {
  it('POST /api/news/feeds/disable (administrator) adds the feed id to disabledFeeds', async () => {
    const url = feeds.feedUrl('/feeds/false.xml');
    expect((await server.api('/api/news/feeds/disable', { method: 'POST', token: userToken, json: { url } })).status).toBe(403);
    const res = await server.api('/api/news/feeds/disable', { method: 'POST', token: server.admin.token, json: { url } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; disabledFeeds: string[] };
    expect(body.id).toBe(feedId(url));
    expect(server.ctx.settings.get().integrations.news.disabledFeeds).toContain(feedId(url));
    expect((await server.api('/api/news/feeds/disable', { method: 'POST', token: server.admin.token, json: {} })).status).toBe(400);
  });

  it('no source left: configured false; the feature switched off: 409 NOT_CONFIGURED', async () => {
    const saved = server.ctx.settings.get().integrations.news;
    server.ctx.settings.update({ integrations: { news: { apiKey: '', feeds: [] } } });
    const none = await news();
    expect(none.res.status).toBe(200);
    expect(none.body.configured).toBe(false);
    expect(none.body.refresh.warning).toMatch(/No news source/);

    server.ctx.settings.update({ integrations: { news: { enabled: false } } });
    const off = await server.api('/api/news', { token: server.admin.token });
    expect(off.status).toBe(409);
    expect(((await off.json()) as { code: string }).code).toBe('NOT_CONFIGURED');
    server.ctx.settings.update({ integrations: { news: { enabled: true, feeds: saved.feeds } } });
  });
});
