import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNewsFeedFake, type NewsFeedFake } from '../../../test/fakes/news/index.js';
import { IntegrationError } from '../errors.js';
import { feedId, fetchNewsFeed, htmlToText, parseNewsFeed } from './feed.js';
import { fetchArticleImage, pageImage } from './ogImage.js';
import { activeNewsFeeds, DEFAULT_NEWS_FEEDS } from './sources.js';

let fake: NewsFeedFake;
beforeAll(async () => {
  fake = await startNewsFeedFake();
});
afterAll(async () => {
  await fake.close();
});

const opts = { allowPrivateTargets: ['127.0.0.1'], userAgent: 'Tonearm/test', retryBaseMs: 10 };
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('news feeds', () => {
  it('reads RSS 2.0: plain-text titles, absolute links, dates, categories, pictures from media or the HTML', async () => {
    const feed = await fetchNewsFeed(fake.feedUrl('/feeds/news.rss'), opts);
    expect(feed).toMatchObject({ format: 'rss', title: 'Example Music News', siteUrl: `${fake.url}/`, truncated: false, url: fake.feedUrl('/feeds/news.rss') });
    expect(feed.items).toHaveLength(3);
    const [first, second, third] = feed.items;
    expect(first).toEqual({
      id: `${fake.url}/articles/aurora-lane-glass-tide`,
      title: 'Aurora Lane announce new album “Glass Tide” & world tour',
      description: 'The dream pop band Aurora Lane return with their third album & a tour.',
      url: `${fake.url}/articles/aurora-lane-glass-tide`,
      publishedAt: expect.any(Number),
      categories: ['News', 'Aurora Lane', 'Dream Pop'],
      imageUrl: `${fake.url}/images/aurora-lane.jpg`,
      author: 'Sam Writer',
    });
    expect(Date.now() - first!.publishedAt!).toBeGreaterThan(3600_000);
    expect(second!.imageUrl).toBe('https://news.example.org/wp-content/uploads/velvet-static.jpg');
    expect(second!.url).toBe('https://news.example.org/2026/11/velvet-static-hum');
    expect(third!.imageUrl).toBeNull();
    const sent = fake.requests.at(-1)!.headers;
    expect(sent.accept).toContain('application/rss+xml');
    expect(sent['user-agent']).toBe('Tonearm/test');
  });

  it('reads Atom, RSS 1.0 and a feed in ISO-8859-1', async () => {
    const atom = await fetchNewsFeed(fake.feedUrl('/feeds/news.atom'), opts);
    expect(atom.format).toBe('atom');
    expect(atom.items.map((i) => [i.title, i.url, i.categories[0]])).toEqual([
      ['Aurora Lane announce new album “Glass Tide” & world tour', `${fake.url}/articles/aurora-lane-glass-tide`, 'News'],
      ['Velvet Static share video for “Hum”', 'https://news.example.org/2026/11/velvet-static-hum', 'Video'],
      ['The 50 best albums of the year so far', `${fake.url}/lists/best-albums-2026`, 'Lists'],
    ]);
    expect(atom.items[0]!.description).toBe('The dream pop band Aurora Lane return with their third album & a tour.');
    expect(atom.items[1]!.imageUrl).toBe('https://news.example.org/wp-content/uploads/velvet-static.jpg');
    expect(atom.items[0]!.author).toBe('Sam Writer');
    const rdf = await fetchNewsFeed(fake.feedUrl('/feeds/news.rdf'), opts);
    expect(rdf).toMatchObject({ format: 'rdf', title: 'Old School Zine' });
    expect(rdf.items.map((i) => [i.title, i.categories])).toEqual([['Copper Moth interview', ['Copper Moth']]]);
    const latin = await fetchNewsFeed(fake.feedUrl('/feeds/latin1.xml'), opts);
    expect(latin.items[0]!.title).toBe('Émilie Café sort un nouvel EP');
    expect(latin.items[0]!.description).toBe('Où écouter ?');
  });

  it('broken XML, entity declarations and HTML pages are clear errors that never quote the document', async () => {
    const broken = await failure(fetchNewsFeed(fake.feedUrl('/feeds/broken.xml'), opts));
    expect(broken).toBeInstanceOf(IntegrationError);
    expect(broken.kind).toBe('bad_response');
    expect(broken.message).toMatch(/not valid XML/);
    expect(broken.message).not.toContain('Unclosed & bad');
    const bomb = await failure(fetchNewsFeed(fake.feedUrl('/feeds/entities.xml'), opts));
    expect(bomb.message).toMatch(/entities/);
    const html = await failure(fetchNewsFeed(fake.feedUrl('/index.html'), opts));
    expect(html.kind).toBe('bad_response');
    expect((await failure(fetchNewsFeed(fake.feedUrl('/feeds/missing.xml'), opts))).kind).toBe('not_found');
  });

  it('huge feeds: items capped, long titles, descriptions and category lists cut; a body over the size cap refused', async () => {
    const feed = await fetchNewsFeed(fake.feedUrl('/feeds/huge.xml'), { ...opts, limits: { maxItems: 50 } });
    expect(feed.items).toHaveLength(50);
    expect(feed.truncated).toBe(true);
    const big = feed.items[0]!;
    expect(big.title.length).toBeLessThanOrEqual(300);
    expect(big.title.endsWith('…')).toBe(true);
    expect(big.description!.length).toBeLessThanOrEqual(1000);
    expect(big.categories).toHaveLength(20);
    const tooLarge = await failure(fetchNewsFeed(fake.feedUrl('/feeds/huge.xml'), { ...opts, maxBytes: 64 * 1024 }));
    expect(tooLarge.kind).toBe('bad_response');
    expect(tooLarge.message).toMatch(/larger than/);
  });

  it('the private-address guard: 127.0.0.1 only when allow-listed, redirects to private or metadata addresses refused', async () => {
    expect((await failure(fetchNewsFeed(fake.feedUrl('/feeds/news.rss'), { ...opts, allowPrivateTargets: [] }))).kind).toBe('refused');
    const followed = await fetchNewsFeed(fake.feedUrl(`/redirect?to=${encodeURIComponent('/feeds/news.atom')}`), opts);
    expect(followed.url).toBe(fake.feedUrl('/feeds/news.atom'));
    expect(followed.format).toBe('atom');
    for (const target of ['http://192.168.1.10/feed', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:80/feed']) {
      const before = fake.requests.length;
      const refused = await failure(fetchNewsFeed(fake.feedUrl(`/redirect?to=${encodeURIComponent(target)}`), opts));
      expect(refused.kind).toBe('refused');
      expect(fake.requests.length - before).toBe(1);
    }
    expect((await failure(fetchNewsFeed('file:///etc/passwd', opts))).kind).toBe('refused');
  });

  it('retries a 503 once, then reports it; slow feeds time out', async () => {
    fake.faults.failNext(1, 503);
    expect((await fetchNewsFeed(fake.feedUrl('/feeds/news.rss'), opts)).items).toHaveLength(3);
    fake.faults.failNext(2, 503);
    expect((await failure(fetchNewsFeed(fake.feedUrl('/feeds/news.rss'), opts))).kind).toBe('server_error');
    fake.faults.delayMs = 400;
    try {
      expect((await failure(fetchNewsFeed(fake.feedUrl('/feeds/news.rss'), { ...opts, timeoutMs: 100, retries: 0 }))).kind).toBe('timeout');
    } finally {
      fake.faults.delayMs = 0;
    }
  });

  it('parses without fetching; feed ids; the active feed list', () => {
    const parsed = parseNewsFeed('<rss version="2.0"><channel><title>T</title><item><title>&lt;b&gt;Bold&lt;/b&gt; news</title><link>a/b</link></item></channel></rss>', 'https://example.org/feed/');
    expect(parsed.items[0]).toMatchObject({ title: 'Bold news', url: 'https://example.org/feed/a/b', id: 'https://example.org/feed/a/b', publishedAt: null });
    expect(htmlToText('<p>One&nbsp;&amp;&#160;two</p><script>x()</script><br>three &#x2014; four')).toBe('One & two three — four');
    expect(feedId('https://consequence.net/feed/')).toMatch(/^[0-9a-f]{12}$/);
    const nme = DEFAULT_NEWS_FEEDS.find((f) => f.name === 'NME')!;
    const active = activeNewsFeeds({ feeds: [{ url: 'https://blog.example.org/rss', name: '' }, { url: nme.url, name: 'dup' }], disabledFeeds: [nme.id] });
    expect(active.some((f) => f.id === nme.id)).toBe(false);
    expect(active.at(-1)).toEqual({ id: feedId('https://blog.example.org/rss'), name: 'blog.example.org', url: 'https://blog.example.org/rss', group: 'custom' });
    expect(active).toHaveLength(DEFAULT_NEWS_FEEDS.length);
  });

  it("an article's og:image, for items whose feed names no picture; guarded like the feeds", async () => {
    expect(await fetchArticleImage(`${fake.url}/articles/best-albums`, opts)).toBe(`${fake.url}/images/best-albums.jpg`);
    expect(fake.requests.at(-1)!.headers.accept).toContain('text/html');
    expect(await fetchArticleImage(fake.feedUrl('/index.html'), opts)).toBeNull();
    expect((await failure(fetchArticleImage(`${fake.url}/articles/x`, { ...opts, allowPrivateTargets: [] }))).kind).toBe('refused');
    expect((await failure(fetchArticleImage(fake.feedUrl('/nothing-here'), opts))).kind).toBe('not_found');
    expect(pageImage('<meta content="/a.png" name="twitter:image"><meta property="og:image" content="https://cdn.example.org/b.jpg?x=1&amp;y=2">', 'https://example.org/p')).toBe('https://cdn.example.org/b.jpg?x=1&y=2');
    expect(pageImage('<meta name="twitter:image" content="/a.png">', 'https://example.org/p')).toBe('https://example.org/a.png');
  });
});
