import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNewsApiFake, type NewsApiFake } from '../../../test/fakes/newsapi/index.js';
import { IntegrationError } from '../errors.js';
import { NewsApiClient, newsApiBodyError } from './client.js';

const hour = 3600_000;
let fake: NewsApiFake;
beforeAll(async () => {
  fake = await startNewsApiFake();
  const now = Date.now();
  fake.articles.push(
    ...Array.from({ length: 30 }, (_, i) => ({
      title: `Aurora Lane story ${i}`,
      description: 'News about the dream pop band Aurora Lane.',
      url: `https://${i % 2 ? 'pitchfork.com' : 'www.nme.com'}/news/aurora-lane-${i}`,
      urlToImage: `https://img.example.org/${i}.jpg`,
      publishedAt: new Date(now - i * hour),
      source: i % 2 ? 'Pitchfork' : 'NME',
    })),
    { title: 'Lane closures on the Aurora bridge', description: 'Traffic news.', url: 'https://local.example.org/traffic', publishedAt: new Date(now - hour), source: 'Local' },
    { title: 'Aurora Lane in 2019', description: 'Old news.', url: 'https://www.nme.com/old', publishedAt: new Date(now - 400 * 24 * hour), source: 'NME' },
    { title: '[Removed]', description: 'Aurora Lane', url: 'https://removed.com', publishedAt: new Date(now - 2 * hour), source: '[Removed]' },
  );
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof NewsApiClient>[0]> = {}) =>
  new NewsApiClient({ baseUrl: fake.url, apiKey: fake.apiKey, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('NewsAPI client', () => {
  it('searches an artist as a phrase in titles and descriptions, newest first, paged; the key only in a header', async () => {
    const week = Date.now() - 7 * 24 * hour;
    const first = await client().everything({ q: '"Aurora Lane"', searchIn: ['title', 'description'], from: week, language: 'en', pageSize: 20 });
    expect(first.totalResults).toBe(31); // 30 stories and the removed placeholder; the old one is outside `from`
    expect(first.articles).toHaveLength(19);
    expect(first.articles[0]).toEqual({
      title: 'Aurora Lane story 0',
      description: 'News about the dream pop band Aurora Lane.',
      url: 'https://www.nme.com/news/aurora-lane-0',
      imageUrl: 'https://img.example.org/0.jpg',
      publishedAt: expect.any(Number),
      source: 'NME',
      sourceId: null,
      author: null,
    });
    const seen = fake.requests.at(-1)!;
    expect(seen.headers['x-api-key']).toBe(fake.apiKey);
    expect(seen.query.get('apiKey')).toBeNull();
    expect(seen.query.get('from')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/);
    expect([seen.query.get('searchIn'), seen.query.get('sortBy'), seen.query.get('pageSize')]).toEqual(['title,description', 'publishedAt', '20']);
    const second = await client().everything({ q: '"Aurora Lane"', from: week, pageSize: 20, page: 2 });
    expect(second.articles.map((a) => a.title).slice(0, 2)).toEqual(['Aurora Lane story 19', 'Aurora Lane story 20']);
    const pitchfork = await client().everything({ q: '"Aurora Lane"', domains: ['pitchfork.com'], pageSize: 100 });
    expect(pitchfork.articles.every((a) => a.source === 'Pitchfork')).toBe(true);
    expect(pitchfork.totalResults).toBe(15);
  });

  it('errors in {status:"error", code, message}: bad key unauthorized, rateLimited, parameters bad_request', async () => {
    const bad = await failure(client({ apiKey: 'wrong' }).everything({ q: 'x' }));
    expect(bad.kind).toBe('unauthorized');
    expect(bad.message).not.toMatch(/newsapi\.org to create/);
    fake.rateLimitNext(2);
    expect((await failure(client({ retries: 1 }).everything({ q: 'x' }))).kind).toBe('rate_limited');
    expect((await failure(client().everything({ q: '' }))).kind).toBe('bad_request');
    expect((await failure(client().everything({ q: 'Aurora', pageSize: 100, page: 2 }))).kind).toBe('bad_request');
    expect(newsApiBodyError({ status: 'error', code: 'apiKeyExhausted', message: 'x' }, 401)).toEqual({ status: 401, message: 'error apiKeyExhausted' });
    expect(newsApiBodyError({ status: 'ok', articles: [] }, 200)).toBeNull();
  });

  it('a daily quota used up stays rate_limited; a 503 is retried once', async () => {
    fake.faults.failNext(1, 503);
    expect((await client().everything({ q: 'traffic' })).articles).toHaveLength(1);
    fake.quota = 1;
    try {
      await client().everything({ q: 'traffic' });
      const before = fake.requests.length;
      expect((await failure(client({ retries: 1 }).everything({ q: 'traffic' }))).kind).toBe('rate_limited');
      expect(fake.requests.length - before).toBe(2);
    } finally {
      fake.quota = null;
    }
  });
});
