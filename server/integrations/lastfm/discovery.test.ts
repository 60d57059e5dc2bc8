import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLastFmFake, type LastFmFake } from '../../../test/fakes/lastfm/index.js';
import { IntegrationError } from '../errors.js';
import { LastFmClient } from './client.js';

let fake: LastFmFake;
beforeAll(async () => {
  fake = await startLastFmFake([
    { name: 'Aurora Lane', mbid: '00000000-0000-4000-8000-000000000001', listeners: 9000, tags: ['dream pop', 'shoegaze'], topTracks: [{ name: 'Glass Tide', playcount: 5000 }] },
    { name: 'Velvet Static', listeners: 20000, tags: ['shoegaze', 'dream pop'], topTracks: [{ name: 'Hum', playcount: 8000, mbid: '00000000-0000-4000-8000-000000000401' }] },
    { name: 'Copper Moth', listeners: 500, tags: ['dream pop'] },
    { name: 'Low Orbit', listeners: 100, tags: ['techno'] },
  ]);
  fake.addUser({
    name: 'Alice',
    topArtists: {
      overall: [
        { name: 'Copper Moth', playcount: 40 },
        { name: 'Aurora Lane', mbid: '00000000-0000-4000-8000-000000000001', playcount: 300 },
        { name: 'Low Orbit', playcount: 120 },
      ],
      '7day': [{ name: 'Low Orbit', playcount: 12 }],
    },
  });
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof LastFmClient>[0]> = {}) =>
  new LastFmClient({ baseUrl: fake.url, apiKey: fake.apiKey, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('Last.fm discovery methods', () => {
  it('tag.getTopArtists ranks the artists of a tag and pages them', async () => {
    const first = await client().tagTopArtists('Dream Pop', 2, 1);
    expect(first).toMatchObject({ page: 1, perPage: 2, totalPages: 2, total: 3 });
    // Aurora Lane has dream pop as its first tag; Velvet Static and Copper Moth as their second and first.
    expect(first.items.map((a) => [a.name, a.rank])).toEqual([
      ['Aurora Lane', 1],
      ['Copper Moth', 2],
    ]);
    expect(first.items[0]!.mbid).toBe('00000000-0000-4000-8000-000000000001');
    expect(first.items[1]!.mbid).toBeNull();
    const second = await client().tagTopArtists('dream pop', 2, 2);
    // A page of one arrives as an object, not a list.
    expect(second.items.map((a) => a.name)).toEqual(['Velvet Static']);
    expect(await client().tagTopArtists('polka', 10)).toMatchObject({ items: [], total: 0 });
  });

  it('charts: top artists by listeners, top tracks by plays, top tags', async () => {
    const artists = await client().chartTopArtists(3, 1);
    expect(artists.items.map((a) => [a.name, a.listeners])).toEqual([
      ['Velvet Static', 20000],
      ['Aurora Lane', 9000],
      ['Copper Moth', 500],
    ]);
    expect(artists).toMatchObject({ totalPages: 2, total: 4 });
    const tracks = await client().chartTopTracks(10);
    expect(tracks.items.map((t) => [t.name, t.artist.name, t.playcount, t.mbid])).toEqual([
      ['Hum', 'Velvet Static', 8000, '00000000-0000-4000-8000-000000000401'],
      ['Glass Tide', 'Aurora Lane', 5000, null],
    ]);
    const tags = await client().tagTopTags();
    expect(tags.slice(0, 2).map((t) => [t.name, t.reach])).toEqual([
      ['dream pop', 3],
      ['shoegaze', 2],
    ]);
    const chartTags = await client().chartTopTags(1, 3);
    expect(chartTags).toMatchObject({ page: 3, totalPages: 3, total: 3 });
    expect(chartTags.items).toEqual([{ name: 'techno', url: expect.stringContaining('/tag/techno'), reach: 1, count: 100 }]);
  });

  it('user.getTopArtists per period and page; an unknown user is not_found', async () => {
    const overall = await client().userTopArtists('alice', 'overall', 2);
    expect(overall.items.map((a) => [a.name, a.playcount, a.rank])).toEqual([
      ['Aurora Lane', 300, 1],
      ['Low Orbit', 120, 2],
    ]);
    expect(overall).toMatchObject({ totalPages: 2, total: 3 });
    const week = await client().userTopArtists('alice', '7day');
    expect(week.items.map((a) => a.name)).toEqual(['Low Orbit']);
    const seen = fake.requests.at(-1)!.query;
    expect([seen.get('method'), seen.get('user'), seen.get('period')]).toEqual(['user.getTopArtists', 'alice', '7day']);
    const missing = await failure(client().userTopArtists('nobody'));
    expect(missing).toBeInstanceOf(IntegrationError);
    expect(missing.kind).toBe('not_found');
  });

  it('error codes: 10 (invalid key) is unauthorized, 29 (rate limit) rate_limited after its retries, 11 retried', async () => {
    expect((await failure(client({ apiKey: 'nope' }).chartTopArtists())).kind).toBe('unauthorized');
    fake.errorNext(3, 29);
    const limited = await failure(client({ retries: 2 }).chartTopTags());
    expect(limited.kind).toBe('rate_limited');
    expect(limited.status).toBe(429);
    fake.errorNext(1, 11, 200);
    expect((await client().tagTopArtists('techno')).items.map((a) => a.name)).toEqual(['Low Orbit']);
    fake.faults.delayMs = 300;
    try {
      expect((await failure(client({ timeoutMs: 100, retries: 0 }).chartTopTracks())).kind).toBe('timeout');
    } finally {
      fake.faults.delayMs = 0;
    }
  });
});
