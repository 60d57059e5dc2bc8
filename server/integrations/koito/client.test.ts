import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKoitoFake, type KoitoFake } from '../../../test/fakes/koito/index.js';
import { IntegrationError } from '../errors.js';
import { KoitoClient, koitoBaseUrl, koitoPeriod } from './client.js';

let fake: KoitoFake;
beforeAll(async () => {
  fake = await startKoitoFake(
    Array.from({ length: 230 }, (_, i) => ({
      name: `Artist ${String(i).padStart(3, '0')}`,
      listens: 1000 - i,
      ...(i % 2 === 0 && { mbid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }),
      ...(i === 229 && { periods: { week: 5000 } }),
    })),
  );
  fake.apiKeys.set('koito-key', 'alice');
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof KoitoClient>[0]> = {}) =>
  new KoitoClient({ baseUrl: fake.url, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('Koito client', () => {
  it('normalises the address the user typed and maps Last.fm periods', () => {
    expect(koitoBaseUrl('http://nas:4110/apis/listenbrainz/1/')).toBe('http://nas:4110');
    expect(koitoBaseUrl('https://music.example.org/koito/apis/listenbrainz')).toBe('https://music.example.org/koito');
    expect(koitoBaseUrl('ftp://nas')).toBeNull();
    expect(koitoBaseUrl('not a url')).toBeNull();
    expect(() => new KoitoClient({ baseUrl: 'nas:4110', userAgent: 'x' })).toThrow(IntegrationError);
    expect(['7day', '1month', '3month', '12month', 'overall'].map(koitoPeriod)).toEqual(['week', 'month', 'year', 'year', 'all_time']);
  });

  it('pages top artists with page and limit while has_next_page', async () => {
    const first = await client().topArtists({ period: 'all_time', limit: 2 });
    expect(first).toEqual({
      page: 1,
      hasNextPage: true,
      items: [
        { name: 'Artist 000', mbid: '00000000-0000-4000-8000-000000000000', listenCount: 1000, koitoId: '1' },
        { name: 'Artist 001', mbid: null, listenCount: 999, koitoId: '2' },
      ],
    });
    const before = fake.requests.length;
    const all = await client({ baseUrl: `${fake.url}/apis/listenbrainz/1` }).allTopArtists({ period: 'all_time', max: 1000 });
    expect(all).toHaveLength(230);
    expect(fake.requests.slice(before).map((r) => [r.path, r.query.get('page'), r.query.get('limit')])).toEqual([
      ['/apis/web/v1/top/artists', '1', '100'],
      ['/apis/web/v1/top/artists', '2', '100'],
      ['/apis/web/v1/top/artists', '3', '100'],
    ]);
    const capped = await client().allTopArtists({ period: 'all_time', max: 150 });
    expect(capped).toHaveLength(150);
    const week = await client().topArtists({ period: 'week', limit: 1 });
    expect(week.items[0]!.name).toBe('Artist 229');
  });

  it('checks the API key on the ListenBrainz-compatible API', async () => {
    expect(await client({ token: 'koito-key' }).validateToken()).toBe('alice');
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Token koito-key');
    expect(await client({ token: 'wrong' }).validateToken()).toBeNull();
  });

  it('refuses link-local addresses, and private ones outside an allow-list; a server that stays down is unreachable', async () => {
    const metadata = await failure(new KoitoClient({ baseUrl: 'http://169.254.169.254', userAgent: 'x', retries: 0 }).topArtists());
    expect(metadata.kind).toBe('refused');
    const strict = await failure(client({ allowPrivateTargets: ['koito.example'], retries: 0 }).topArtists());
    expect(strict.kind).toBe('refused');
    fake.faults.failNext(1, 503);
    expect((await client().topArtists({ limit: 1 })).items).toHaveLength(1);
    fake.faults.down = true;
    try {
      expect((await failure(client({ retries: 1 }).topArtists())).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });
});
