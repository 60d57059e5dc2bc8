import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeezerFake, type DeezerFake } from '../../../test/fakes/deezer/index.js';
import { IntegrationError } from '../errors.js';
import { artistPicture, DeezerClient } from './client.js';

let fake: DeezerFake;
beforeAll(async () => {
  fake = await startDeezerFake([
    { id: 27, name: 'Daft Punk', fans: 5000, top: Array.from({ length: 12 }, (_, i) => ({ id: 1000 + i, title: `Song ${i}`, durationS: 200 + i, rank: 900 - i, preview: i !== 1 })) },
    { id: 28, name: 'Daft Punk Tribute', fans: 10, picture: false, top: [] },
  ]);
});
afterAll(async () => {
  await fake.close();
});

const client = (over: Partial<ConstructorParameters<typeof DeezerClient>[0]> = {}) =>
  new DeezerClient({ baseUrl: fake.url, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10, ...over });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as IntegrationError;
  }
  throw new Error('expected a failure');
};

describe('Deezer client', () => {
  it('searches artists and pages with index and limit', async () => {
    const first = await client().searchArtists('daft punk', 1, 0);
    expect(first.total).toBe(2);
    expect(first.data.map((a) => a.name)).toEqual(['Daft Punk']);
    expect(first.next).toContain('index=1');
    const second = await client().searchArtists('daft punk', 1, 1);
    expect(second.data.map((a) => [a.name, a.picture_xl])).toEqual([['Daft Punk Tribute', null]]);
    expect(second.next).toBeUndefined();
  });

  it('reads an artist with its pictures and its top tracks with previews ("" becomes null)', async () => {
    const artist = await client().artist(27);
    expect(artistPicture(artist)).toBe(`${fake.url}/img/artist/27/1000x1000.jpg`);
    const top = await client().topTracks(27, 5, 0);
    expect(top.total).toBe(12);
    expect(top.data.map((t) => t.title)).toEqual(['Song 0', 'Song 1', 'Song 2', 'Song 3', 'Song 4']);
    expect(top.data[0]!.preview).toBe(`${fake.url}/preview/1000.mp3`);
    expect(top.data[1]!.preview).toBeNull();
    const page3 = await client().topTracks(27, 5, 10);
    expect(page3.data.map((t) => t.title)).toEqual(['Song 10', 'Song 11']);
  });

  it('turns the 200-with-error answers into errors: no data is not_found, the quota is retried', async () => {
    const missing = await failure(client().artist(999));
    expect(missing).toBeInstanceOf(IntegrationError);
    expect(missing.kind).toBe('not_found');
    fake.quotaNext(2);
    const before = fake.requests.length;
    expect((await client().artist(27)).name).toBe('Daft Punk');
    expect(fake.requests.length - before).toBe(3);
    fake.quotaNext(5);
    const limited = await failure(client({ retries: 1 }).artist(27));
    expect(limited.kind).toBe('rate_limited');
    fake.quotaNext(0);
  });

  it('retries a 503 and gives up with server_error after its retries; down is unreachable', async () => {
    fake.faults.failNext(1, 503);
    expect((await client().artist(27)).id).toBe(27);
    fake.faults.failNext(3, 503);
    const failed = await failure(client({ retries: 2 }).artist(27));
    expect(failed.kind).toBe('server_error');
    fake.faults.down = true;
    try {
      expect((await failure(client({ retries: 0 }).artist(27))).kind).toBe('unreachable');
    } finally {
      fake.faults.down = false;
    }
  });

  it('keeps its client-side spacing of 110 ms across callers', async () => {
    const before = fake.requests.length;
    const c = client({ spacingMs: 110 });
    const t0 = Date.now();
    await Promise.all([c.artist(27), c.artist(27), client({ spacingMs: 110 }).artist(28)]);
    const at = fake.requests.slice(before).map((r) => r.at);
    expect(at).toHaveLength(3);
    // The k-th request cannot leave before k × 110 ms; arrival jitter only adds to that.
    for (let i = 1; i < at.length; i++) expect(at[i]! - t0).toBeGreaterThanOrEqual(i * 110 - 1);
  });
});
