import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotConfiguredError } from '../../server/domain/errors.js';
import { IntegrationError } from '../../server/integrations/errors.js';
import { startGeoFake, type GeoFake } from '../fakes/geo/index.js';
import { startLastFmFake, type LastFmFake } from '../fakes/lastfm/index.js';
import { startListenBrainzFake, type ListenBrainzFake } from '../fakes/listenbrainz/index.js';
import { startNewsApiFake, type NewsApiFake } from '../fakes/newsapi/index.js';
import { startNewsFeedFake, type NewsFeedFake } from '../fakes/news/index.js';
import { startTicketmasterFake, type TicketmasterFake } from '../fakes/ticketmaster/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The providers as later discovery, news and inbox code gets them: base URLs from TONEARM_*_URL, keys from settings. */

let server: TestServer;
let lastfm: LastFmFake;
let lb: ListenBrainzFake;
let tm: TicketmasterFake;
let geo: GeoFake;
let feeds: NewsFeedFake;
let newsapi: NewsApiFake;

beforeAll(async () => {
  [lastfm, lb, tm, geo, feeds, newsapi] = await Promise.all([startLastFmFake([{ name: 'Aurora Lane', listeners: 10, tags: ['dream pop'] }]), startListenBrainzFake(), startTicketmasterFake(), startGeoFake(), startNewsFeedFake(), startNewsApiFake()]);
  geo.places.push({ postcode: '11211', countryCode: 'US', country: 'United States', city: 'Brooklyn', state: 'New York', stateCode: 'NY', lat: 40.7122, lon: -73.9535 });
  lb.sitewide = [{ name: 'Big Band', listens: 5 }];
  server = await startTestServer({
    env: {
      TONEARM_LASTFM_URL: lastfm.url,
      TONEARM_LISTENBRAINZ_URL: lb.url,
      TONEARM_TICKETMASTER_URL: tm.url,
      TONEARM_GEOCODER_URL: geo.nominatimUrl,
      TONEARM_ZIPPOPOTAM_URL: geo.zippopotamUrl,
      TONEARM_IPAPI_URL: geo.ipapiUrl,
      TONEARM_NEWSAPI_URL: newsapi.url,
      TONEARM_UPSTREAM_SPACING_MS: '0',
      ALLOW_PRIVATE_TARGETS: '127.0.0.1',
    },
  });
});
afterAll(async () => {
  await Promise.all([server.stop(), lastfm.close(), lb.close(), tm.close(), geo.close(), feeds.close(), newsapi.close()]);
});

const save = async (integrations: unknown) =>
  expect((await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { integrations } })).status).toBe(200);

describe('discovery providers', () => {
  it('without keys: Last.fm and Ticketmaster say which setting is missing, NewsAPI is absent, ListenBrainz and feeds work', async () => {
    const p = server.ctx.discoveryProviders;
    expect(() => p.lastfm()).toThrow(NotConfiguredError);
    expect(() => p.ticketmaster()).toThrow(/integrations\.ticketmaster\.apiKey/);
    expect(p.newsapi()).toBeNull();
    expect((await p.listenbrainz().sitewideArtists()).artists.map((a) => a.name)).toEqual(['Big Band']);
    expect(lb.requests.at(-1)!.headers['user-agent']).toMatch(/^Tonearm\//);
    expect(p.newsFeeds().length).toBeGreaterThan(5);
    expect((await p.fetchFeed(feeds.feedUrl('/feeds/news.rss'))).items).toHaveLength(3);
    expect(await p.locate('11211')).toMatchObject({ city: 'Brooklyn', source: 'zippopotam' });
  });

  it('with keys from the settings: each client talks to its configured base URL', async () => {
    await save({ lastfm: { apiKey: lastfm.apiKey }, ticketmaster: { apiKey: tm.apiKey }, news: { apiKey: newsapi.apiKey, feeds: [{ url: feeds.feedUrl('/feeds/news.atom'), name: 'Local blog' }] } });
    const p = server.ctx.discoveryProviders;
    expect((await p.lastfm().tagTopArtists('dream pop')).items.map((a) => a.name)).toEqual(['Aurora Lane']);
    expect((await p.ticketmaster().events({ latlong: { lat: 40.7, lon: -74 } })).items).toEqual([]);
    expect((await p.newsapi()!.everything({ q: '"Aurora Lane"' })).totalResults).toBe(0);
    expect(p.newsFeeds().at(-1)).toMatchObject({ name: 'Local blog', group: 'custom' });
    // A key changed in the settings is used at once.
    await save({ ticketmaster: { apiKey: 'revoked' } });
    const err = await p.ticketmaster().events({ latlong: { lat: 40.7, lon: -74 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrationError);
    expect((err as IntegrationError).kind).toBe('unauthorized');
  });

  it('a Koito address on the LAN only for administrators (or allowed hosts), a metadata address never', async () => {
    const p = server.ctx.discoveryProviders;
    const err = await p.koito('http://169.254.169.254/apis/listenbrainz/1', 'admin').topArtists().catch((e: unknown) => e);
    expect((err as IntegrationError).kind).toBe('refused');
    const lan = await p.koito('http://192.168.7.7:4110', 'user').topArtists().catch((e: unknown) => e);
    expect((lan as IntegrationError).kind).toBe('refused');
  });
});
