import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLastFmFake, type LastFmFake } from '../../../test/fakes/lastfm/index.js';
import { IntegrationError } from '../errors.js';
import { LastFmClient, lastFmBodyError } from './client.js';

let fake: LastFmFake;
beforeAll(async () => {
  fake = await startLastFmFake([
    {
      name: 'Aurora Lane',
      mbid: '00000000-0000-4000-8000-000000000001',
      bio: 'A <a href="https://www.last.fm/music/Aurora+Lane">dream pop</a> band.',
      tags: ['dream pop'],
      similar: [{ name: 'Aurora Borealis Choir', mbid: '00000000-0000-4000-8000-000000000002', match: 0.87 }],
      topTracks: Array.from({ length: 7 }, (_, i) => ({ name: `Track ${i}`, playcount: 700 - i * 10, ...(i === 0 && { mbid: '00000000-0000-4000-8000-000000000351' }) })),
      albums: [
        { name: 'Dawn', mbid: '00000000-0000-4000-8000-000000000201', wiki: 'Dawn is the first album.', tags: ['dream pop'], tracks: [{ name: 'First Light', duration: 180 }] },
        { name: 'Dusk' },
      ],
    },
    { name: 'Silent', similar: [], tags: [] },
  ]);
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

describe('Last.fm client', () => {
  it('normalises its quirks: numbers as strings, a one-entry list as an object, "" MBIDs', async () => {
    const similar = await client().similar({ name: 'Aurora Lane' }, 10);
    // The fake sends the single similar artist as an object, its match as "0.87".
    expect(similar).toEqual([{ name: 'Aurora Borealis Choir', mbid: '00000000-0000-4000-8000-000000000002', match: 0.87, url: expect.any(String), image: [], streamable: '0' }]);
    const tags = await client().topTags({ name: 'Aurora Lane' });
    expect(tags.map((t) => [t.name, t.count])).toEqual([['dream pop', 100]]);
    const info = await client().artistInfo({ name: 'aurora lane' });
    expect(info).toMatchObject({ name: 'Aurora Lane', mbid: '00000000-0000-4000-8000-000000000001', stats: { listeners: 1234, playcount: 12340 } });
    expect(info.bio?.content).toContain('dream pop');
    expect(info.tags?.tag.map((t) => t.name)).toEqual(['dream pop']);
    const silent = await client().artistInfo({ name: 'Silent' });
    expect(silent.mbid).toBeNull();
    expect(silent.tags?.tag ?? []).toEqual([]);
    expect(await client().similar({ name: 'Silent' }, 10)).toEqual([]);
  });

  it('reads album.getInfo by artist and title: the wiki, one-entry lists, and no wiki at all', async () => {
    const dawn = await client().albumInfo({ artist: 'aurora lane', album: 'DAWN' });
    expect(dawn).toMatchObject({ name: 'Dawn', artist: 'Aurora Lane', mbid: '00000000-0000-4000-8000-000000000201', url: 'https://www.last.fm/music/Aurora%20Lane/Dawn' });
    expect(dawn.wiki?.summary).toMatch(/^Dawn is the first album\. <a href=".*">Read more on Last\.fm<\/a>\.$/);
    expect(dawn.tags?.tag.map((t) => t.name)).toEqual(['dream pop']);
    expect(dawn.tracks?.track).toMatchObject([{ name: 'First Light', duration: 180 }]);
    const dusk = await client().albumInfo({ artist: 'Aurora Lane', album: 'Dusk' });
    expect(dusk.wiki).toBeUndefined();
    expect(dusk.tracks).toBeUndefined();
    const seen = fake.requests.at(-1)!.query;
    expect([seen.get('method'), seen.get('artist'), seen.get('album'), seen.get('autocorrect')]).toEqual(['album.getInfo', 'Aurora Lane', 'Dusk', '1']);
    expect(await failure(client().albumInfo({ artist: 'Aurora Lane', album: 'Nope' }))).toMatchObject({ kind: 'not_found' });
  });

  it('pages top tracks with page and limit; the page numbers arrive as strings', async () => {
    const first = await client().topTracks({ name: 'Aurora Lane' }, 3, 1);
    expect(first).toMatchObject({ page: 1, totalPages: 3, total: 7 });
    expect(first.tracks.map((t) => [t.name, t.playcount, t.mbid])).toEqual([
      ['Track 0', 700, '00000000-0000-4000-8000-000000000351'],
      ['Track 1', 690, null],
      ['Track 2', 680, null],
    ]);
    const last = await client().topTracks({ name: 'Aurora Lane' }, 3, 3);
    expect(last.tracks.map((t) => t.name)).toEqual(['Track 6']);
  });

  it('reads errors in the body, also with HTTP 200: 6 is not_found, a bad key unauthorized, 29 and 16 retried', async () => {
    const missing = await failure(client().artistInfo({ name: 'Nobody' }));
    expect(missing).toBeInstanceOf(IntegrationError);
    expect(missing.kind).toBe('not_found');
    expect(missing.message).not.toContain('could not be found');
    const badKey = await failure(client({ apiKey: 'wrong' }).artistInfo({ name: 'Aurora Lane' }));
    expect(badKey.kind).toBe('unauthorized');
    fake.errorNext(1, 29);
    fake.errorNext(1, 16, 200);
    const before = fake.requests.length;
    expect((await client().artistInfo({ name: 'Aurora Lane' })).name).toBe('Aurora Lane');
    expect(fake.requests.length - before).toBe(3);
    fake.errorNext(3, 29);
    expect((await failure(client({ retries: 2 }).artistInfo({ name: 'Aurora Lane' }))).kind).toBe('rate_limited');
    expect(lastFmBodyError({ artist: {} })).toBeNull();
    expect(lastFmBodyError({ error: '6', message: 'x' })).toMatchObject({ status: 404 });
  });

  it('retries a 503 and reports a service that stays down', async () => {
    fake.faults.failNext(2, 503);
    expect((await client().topTags({ name: 'Aurora Lane' })).length).toBe(1);
    fake.faults.failNext(3, 503);
    expect((await failure(client({ retries: 2 }).topTags({ name: 'Aurora Lane' }))).kind).toBe('server_error');
    fake.faults.down = true;
    try {
      expect((await failure(client({ retries: 0 }).topTags({ name: 'Aurora Lane' }))).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });

  it('spaces its requests by 200 ms and sends the key, the method and format=json', async () => {
    const before = fake.requests.length;
    const c = client({ spacingMs: 200 });
    const t0 = Date.now();
    await Promise.all([c.topTags({ name: 'Aurora Lane' }), c.similar({ name: 'Aurora Lane' }, 5)]);
    const seen = fake.requests.slice(before);
    // The second request cannot leave before 200 ms have passed; arrival jitter only adds to that.
    expect(seen[1]!.at - t0).toBeGreaterThanOrEqual(199);
    expect(seen.map((r) => [r.query.get('method'), r.query.get('api_key'), r.query.get('format')])).toEqual([
      ['artist.getTopTags', fake.apiKey, 'json'],
      ['artist.getSimilar', fake.apiKey, 'json'],
    ]);
  });
});
