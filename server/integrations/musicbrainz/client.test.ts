import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMusicBrainzFake, type MusicBrainzFake } from '../../../test/fakes/musicbrainz/index.js';
import { catalogue, ids } from '../../../test/fixtures/catalogue.js';
import { IntegrationError } from '../errors.js';
import { MusicBrainzClient, luceneQuote } from './client.js';

let fake: MusicBrainzFake;
beforeAll(async () => {
  fake = await startMusicBrainzFake(catalogue);
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof MusicBrainzClient>[0]> = {}) =>
  new MusicBrainzClient({ baseUrl: fake.url, userAgent: 'Tonearm/test ( tests@example.org )', spacingMs: 0, retryBaseMs: 10, ...over });

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('MusicBrainz client', () => {
  it('searches artists with scores and pages with limit and offset', async () => {
    const first = await client().searchArtists(luceneQuote('aurora'), 1, 0);
    expect(first.count).toBe(2);
    expect(first.artists.map((a) => [a.name, a.score])).toEqual([['Aurora Borealis Choir', 90]]);
    const second = await client().searchArtists(luceneQuote('aurora'), 1, 1);
    expect(second.artists.map((a) => a.name)).toEqual(['Aurora Lane']);
    const exact = await client().searchArtists(luceneQuote('Aurora Lane'), 5, 0);
    expect(exact.artists.map((a) => [a.name, a.score])).toEqual([['Aurora Lane', 100], ['Aurora Borealis Choir', 30]]);
  });

  it('looks up artists, browses their release groups and reads a release with its tracks', async () => {
    const artist = await client().artist(ids.aurora);
    expect(artist).toMatchObject({ name: 'Aurora Lane', country: 'NO', tags: [{ name: 'dream pop' }, { name: 'shoegaze' }] });
    const groups = await client().browseReleaseGroups(ids.aurora, 2, 0);
    expect(groups['release-group-count']).toBe(4);
    expect(groups['release-groups'].map((g) => g.title)).toEqual(['Dawn', 'Dusk']);
    const release = await client().release(ids.relDawn);
    expect(release.media[0]!.tracks.map((t) => [t.title, t.length])).toEqual([
      ['First Light', 180000],
      ['Morning Tide', 181000],
      ['Glass Sky', 182000],
    ]);
  });

  it('keeps one request per spacing interval across concurrent callers of the same service', async () => {
    const c = client({ spacingMs: 200 });
    const other = client({ spacingMs: 200 });
    const before = fake.requests.length;
    await Promise.all([c.artist(ids.aurora), other.artist(ids.guest), c.releaseGroup(ids.rgDawn), other.artist(ids.aurora)]);
    const arrivals = fake.requests.slice(before).map((r) => r.at);
    expect(arrivals).toHaveLength(4);
    // Sent 200 ms apart; arrival adds only the loopback's jitter.
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(150);
  });

  it("retries the service's 503 rate-limit answer with backoff, then reports rate_limited", async () => {
    fake.faults.failNext(1, 503);
    expect((await client().artist(ids.aurora)).name).toBe('Aurora Lane');
    fake.faults.failNext(3, 503);
    const err = await failure(client().artist(ids.aurora));
    expect(err).toMatchObject({ service: 'musicbrainz', kind: 'rate_limited', status: 503 });
  });

  it('maps a missing entity to not_found and an unreachable service to unreachable', async () => {
    expect(await failure(client().artist('00000000-0000-4000-8000-999999999999'))).toMatchObject({ kind: 'not_found', status: 404 });
    expect(await failure(client({ baseUrl: 'http://127.0.0.1:1/ws/2', retries: 0 }).artist(ids.aurora))).toMatchObject({ kind: 'unreachable' });
  });

  it('is refused by the fake without a meaningful User-Agent, as MusicBrainz does', async () => {
    expect(await failure(client({ userAgent: 'node' }).artist(ids.aurora))).toMatchObject({ kind: 'unauthorized', status: 403 });
  });

  it('times out a slow answer', async () => {
    fake.faults.delayMs = 300;
    try {
      expect(await failure(client({ timeoutMs: 100, retries: 0 }).artist(ids.aurora))).toMatchObject({ kind: 'timeout' });
    } finally {
      fake.faults.delayMs = 0;
    }
  });
});
