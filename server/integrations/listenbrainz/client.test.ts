import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListenBrainzFake, type ListenBrainzFake } from '../../../test/fakes/listenbrainz/index.js';
import { IntegrationError } from '../errors.js';
import { ListenBrainzClient } from './client.js';

let fake: ListenBrainzFake;
beforeAll(async () => {
  fake = await startListenBrainzFake();
  fake.addUser(
    'alice',
    Array.from({ length: 7 }, (_, i) => ({ name: `Artist ${i}`, listens: 100 - i, ...(i === 0 && { mbid: '00000000-0000-4000-8000-000000000010' }) })),
    { ranges: { week: [{ name: 'Artist 6', listens: 9 }] } },
  );
  fake.addUser('newcomer', [], { computed: false });
  fake.sitewide = [
    { name: 'Big Band', listens: 50_000, mbid: '00000000-0000-4000-8000-000000000020' },
    { name: 'Small Band', listens: 10 },
  ];
  fake.tokens.set('good-token', 'alice');
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof ListenBrainzClient>[0]> = {}) =>
  new ListenBrainzClient({ baseUrl: fake.url, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('ListenBrainz client', () => {
  it("pages a user's top artists with range, count and offset", async () => {
    const first = await client().userArtists('alice', { count: 3 });
    expect(first).toMatchObject({ ready: true, offset: 0, total: 7, range: 'all_time' });
    if (!first.ready) throw new Error('expected stats');
    expect(first.artists.map((a) => [a.name, a.listenCount, a.mbid])).toEqual([
      ['Artist 0', 100, '00000000-0000-4000-8000-000000000010'],
      ['Artist 1', 99, null],
      ['Artist 2', 98, null],
    ]);
    expect(first.lastUpdated).toEqual(expect.any(Number));
    const last = await client().userArtists('alice', { count: 3, offset: 6 });
    expect(last.artists.map((a) => a.name)).toEqual(['Artist 6']);
    const week = await client().userArtists('alice', { range: 'week' });
    expect(week).toMatchObject({ range: 'week', total: 1 });
    const seen = fake.requests.at(-1)!;
    expect([seen.path, seen.query.get('range'), seen.query.get('count'), seen.query.get('offset')]).toEqual(['/1/stats/user/alice/artists', 'week', '25', '0']);
    // ListenBrainz answers at most 100 per request; the client never asks for more.
    await client().userArtists('alice', { count: 500 });
    expect(fake.requests.at(-1)!.query.get('count')).toBe('100');
  });

  it('204 (statistics not computed yet) is an explicit not-ready result, not an error', async () => {
    expect(await client().userArtists('newcomer')).toEqual({ ready: false, artists: [], offset: 0, total: 0, range: 'all_time' });
    expect(fake.requests.at(-1)!.path).toBe('/1/stats/user/newcomer/artists');
  });

  it('sitewide artists accept artist_mbid as well as artist_mbids', async () => {
    const site = await client().sitewideArtists({ range: 'month', count: 10 });
    expect(site.artists).toEqual([
      { name: 'Big Band', mbid: '00000000-0000-4000-8000-000000000020', mbids: ['00000000-0000-4000-8000-000000000020'], listenCount: 50_000 },
      { name: 'Small Band', mbid: null, mbids: [], listenCount: 10 },
    ]);
  });

  it('errors in {code, error}: unknown user not_found, bad token unauthorized, a 503 retried, down unreachable', async () => {
    expect((await failure(client().userArtists('ghost'))).kind).toBe('not_found');
    expect((await failure(client({ token: 'bad' }).userArtists('alice'))).kind).toBe('unauthorized');
    expect((await client({ token: 'good-token' }).userArtists('alice', { count: 1 })).total).toBe(7);
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Token good-token');
    fake.faults.failNext(2, 503);
    expect((await client().sitewideArtists()).ready).toBe(true);
    fake.faults.down = true;
    try {
      expect((await failure(client({ retries: 0 }).sitewideArtists())).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });

  it('honours X-RateLimit-Remaining / Reset-In: waits for the reset instead of hitting 429', async () => {
    fake.rateLimit.limit = 2;
    fake.rateLimit.windowSeconds = 1;
    fake.resetWindow();
    const before = fake.requests.length;
    const c = client();
    for (let i = 0; i < 3; i++) expect((await c.sitewideArtists({ count: 1 })).ready).toBe(true);
    const seen = fake.requests.slice(before);
    expect(seen).toHaveLength(3);
    // The second answer said 0 remaining; the third request waited for the window to reset.
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(800);
  });

  it('a quota reset further away than maxHoldMs fails at once as rate_limited, without a request', async () => {
    fake.rateLimit.limit = 1;
    fake.rateLimit.windowSeconds = 120;
    fake.resetWindow();
    const c = client({ maxHoldMs: 1000 });
    await c.sitewideArtists();
    const before = fake.requests.length;
    const err = await failure(c.sitewideArtists());
    expect(err.kind).toBe('rate_limited');
    expect(fake.requests.length).toBe(before);
  });
});
