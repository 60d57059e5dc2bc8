import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NEWS_FEEDS } from '../../server/integrations/news/sources.js';
import { settingLabel } from '../../server/domain/settings/labels.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** decisions §2 (integrations.ticketmaster, integrations.news) and §7 (ticketmasterConfigured, newsConfigured). */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const admin = (pathname: string, json?: unknown) =>
  server.api(pathname, { method: json === undefined ? 'GET' : 'POST', token: server.admin.token, ...(json !== undefined && { json }) });
const body = async (res: Response) => (await res.json()) as Record<string, any>;
const health = async () => body(await admin('/api/health'));

describe('Ticketmaster and news settings', () => {
  it('have defaults; news works out of the box with the built-in feeds, nearby shows need a key', async () => {
    const settings = await body(await admin('/api/settings'));
    expect(settings.integrations.ticketmaster).toEqual({ apiKey: '', enabled: true, location: '', radiusMiles: 50 });
    expect(settings.integrations.news).toEqual({ apiKey: '', enabled: true, feeds: [], disabledFeeds: [], requestBudget: 100 });
    expect(await health()).toMatchObject({ ticketmasterConfigured: false, newsConfigured: true });
  });

  it('a saved key turns nearby shows on, masked in answers; switching the block off turns it off again', async () => {
    expect((await admin('/api/settings', { integrations: { ticketmaster: { apiKey: 'tm-secret-key' } } })).status).toBe(200);
    expect(JSON.stringify(await body(await admin('/api/settings')))).not.toContain('tm-secret-key');
    expect((await health()).ticketmasterConfigured).toBe(true);
    expect((await admin('/api/settings', { integrations: { ticketmaster: { enabled: false } } })).status).toBe(200);
    expect((await health()).ticketmasterConfigured).toBe(false);
  });

  it('custom feeds are validated; with every feed disabled and no NewsAPI key news is not configured', async () => {
    const bad = await admin('/api/settings', { integrations: { news: { feeds: [{ url: 'http://169.254.169.254/feed' }] } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await body(bad))).toContain('Custom news feeds');
    expect((await admin('/api/settings', { integrations: { news: { feeds: [{ url: 'ftp://x.example/feed' }] } } })).status).toBe(400);
    const twice = [{ url: 'https://blog.example.org/rss' }, { url: 'https://blog.example.org/rss' }];
    expect((await admin('/api/settings', { integrations: { news: { feeds: twice } } })).status).toBe(400);

    const all = DEFAULT_NEWS_FEEDS.map((f) => f.id);
    expect((await admin('/api/settings', { integrations: { news: { disabledFeeds: all } } })).status).toBe(200);
    expect((await health()).newsConfigured).toBe(false);
    expect((await admin('/api/settings', { integrations: { news: { feeds: [{ url: 'https://blog.example.org/rss', name: 'Blog' }] } } })).status).toBe(200);
    expect((await health()).newsConfigured).toBe(true);
    expect((await admin('/api/settings', { integrations: { news: { feeds: [], apiKey: 'newsapi-key' } } })).status).toBe(200);
    expect((await health()).newsConfigured).toBe(true);
    expect((await admin('/api/settings', { integrations: { news: { enabled: false } } })).status).toBe(200);
    expect((await health()).newsConfigured).toBe(false);
  });

  it('labels name the new settings in words', () => {
    expect(settingLabel(['integrations', 'ticketmaster', 'apiKey'])).toBe('Ticketmaster API key');
    expect(settingLabel(['integrations', 'news', 'feeds', 2, 'url'])).toBe('Custom news feeds, entry 3 (url)');
    expect(settingLabel(['integrations', 'news', 'disabledFeeds'])).toBe('Disabled news feeds');
  });
});
