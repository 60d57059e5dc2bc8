import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProwlarr, type FakeProwlarr } from '../../../test/fakes/prowlarr/index.js';
import { IntegrationError } from '../errors.js';
import { ProwlarrClient } from './client.js';

let fake: FakeProwlarr;
beforeEach(async () => {
  fake = await startFakeProwlarr();
});
afterEach(() => fake.close());

const client = (over: Partial<ConstructorParameters<typeof ProwlarrClient>[0]> = {}) =>
  new ProwlarrClient({ baseUrl: fake.url, apiKey: fake.apiKey, timeoutMs: 2000, retryDelayMs: 10, ...over });

async function failure(p: Promise<unknown>): Promise<IntegrationError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

describe('ProwlarrClient', () => {
  it('reads the status and the indexers with the X-Api-Key header', async () => {
    expect((await client().status()).version).toBe('1.24.3.4754');
    const indexers = await client().indexers();
    expect(indexers.map((i) => [i.name, i.protocol])).toEqual([['NZBgeek', 'usenet'], ['DrunkenSlug', 'usenet'], ['SomeTracker', 'torrent']]);
    expect(fake.requests.every((r) => r.headers['x-api-key'] === fake.apiKey)).toBe(true);
  });

  it('searches audio categories and keeps usenet releases with absolute NZB URLs that serve an NZB', async () => {
    const results = await client().search({ query: 'radiohead ok computer' });
    const search = fake.requests.find((r) => r.path === '/api/v1/search')!;
    expect(search.query.getAll('categories')).toEqual(['3000']);
    expect(search.query.get('type')).toBe('search');
    expect(results.map((r) => r.guid).sort()).toEqual(['nzb-1', 'nzb-2', 'tor-1']);
    const usenet = await client().searchUsenet({ query: 'radiohead ok computer' });
    expect(usenet.map((r) => [r.guid, r.indexer, r.size])).toEqual([['nzb-1', 'NZBgeek', 110_000_000], ['nzb-2', 'DrunkenSlug', 420_000_000]]);
    expect(usenet[0]!.categories[0]).toEqual({ id: 3010, name: 'Audio/MP3' });
    const nzb = await fetch(usenet[0]!.downloadUrl);
    expect(nzb.status).toBe(200);
    expect(await nzb.text()).toContain('<nzb');
  });

  it('passes indexer ids and paging', async () => {
    const results = await client().search({ query: 'radiohead', indexerIds: [2], limit: 5, offset: 0 });
    expect(results.map((r) => r.indexer)).toEqual(['DrunkenSlug']);
    expect(fake.requests.at(-1)!.query.getAll('indexerIds')).toEqual(['2']);
  });

  it('names a wrong key, a web page, a 5xx (after one retry), a slow and a down server', async () => {
    const wrong = await failure(client({ apiKey: 'nope' }).indexers());
    expect([wrong.kind, wrong.status]).toEqual(['unauthorized', 401]);
    expect(wrong.message).not.toContain('nope');

    const page = await failure(client({ baseUrl: fake.url + '/web' }).status());
    expect(page.kind).toBe('wrong_url');

    fake.faults.failNext(1, 503);
    expect((await client().indexers()).length).toBe(3);
    fake.faults.failNext(2, 500);
    const server = await failure(client().indexers());
    expect(server.kind).toBe('server_error');
    expect(server.message).not.toContain('injected');

    fake.faults.delayMs = 500;
    expect((await failure(client({ timeoutMs: 100 }).status())).kind).toBe('timeout');
    fake.faults.delayMs = 0;

    fake.faults.down = true;
    expect((await failure(client().status())).kind).toBe('unreachable');
  });
});
