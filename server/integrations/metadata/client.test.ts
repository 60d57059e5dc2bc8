import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetadataFake, type MetadataFake } from '../../../test/fakes/metadata/index.js';
import { catalogue, ids } from '../../../test/fixtures/catalogue.js';
import { IntegrationError } from '../errors.js';
import { artistDocument, releaseDocuments, releaseGroupDocument } from './convert.js';
import { MetadataProviderClient } from './client.js';

let fake: MetadataFake;
let client: MetadataProviderClient;

beforeAll(async () => {
  fake = await startMetadataFake(catalogue);
  client = new MetadataProviderClient({ baseUrl: fake.url, userAgent: 'Tonearm/test', spacingMs: 0, retryBaseMs: 10 });
});
afterAll(() => fake.close());

describe('MetadataProviderClient (Lidarr metadata API)', () => {
  it('reads an artist with its album summaries and converts it to MusicBrainz shapes', async () => {
    const raw = await client.artist(ids.aurora);
    expect(raw).toMatchObject({ id: ids.aurora, artistname: 'Aurora Lane', type: 'Group' });
    expect(raw.Albums.map((a) => a.Title)).toEqual(['Dawn', 'Dusk', 'Tide', 'Live at Nowhere']);
    const doc = artistDocument(raw);
    expect(doc.artist).toMatchObject({ id: ids.aurora, name: 'Aurora Lane', genres: [{ name: 'dream pop', count: 0 }] });
    expect(doc.releaseGroups.find((g) => g.id === ids.rgLive)).toMatchObject({ 'primary-type': 'Album', 'secondary-types': ['Live'], 'first-release-date': '2021-01-01' });
    expect(fake.requests.at(-1)!.headers['user-agent']).toBe('Tonearm/test');
  });

  it('reads an album with its releases and tracks, guest credits included', async () => {
    const album = await client.album(ids.rgBorealis);
    expect(album.artists.map((a) => a.artistname).sort()).toEqual(['Aurora Borealis Choir', 'Aurora Lane']);
    const group = releaseGroupDocument(album);
    expect(group).toMatchObject({ title: 'Northern Songs', 'secondary-types': ['Compilation'], releases: [{ id: ids.relBorealis, status: 'Official', country: 'XW' }] });
    const [release] = releaseDocuments(album);
    expect(release!.media[0]!.tracks.map((t) => [t.position, t.title, t['artist-credit']?.[0]?.name])).toEqual([
      [1, 'Polar Night', 'Aurora Lane'],
      [2, 'Ice Field', 'Aurora Borealis Choir'],
    ]);
  });

  it('searches artists and albums (answers are plain arrays, best match first)', async () => {
    expect((await client.searchArtists('aurora', 10)).map((a) => a.artistname)).toEqual(['Aurora Borealis Choir', 'Aurora Lane']);
    expect((await client.searchArtists('aurora lane', 10)).map((a) => a.artistname)[0]).toBe('Aurora Lane');
    expect((await client.searchAlbums('dawn', 5)).map((a) => a.title)).toEqual(['Dawn']);
    expect(await client.searchAlbums('dawn', 5, 'Borealis')).toEqual([]);
    expect(fake.requests.at(-1)!.path).toBe('/search/album');
  });

  it('reports unknown ids as not_found and a 503 outage as server_error after its one retry', async () => {
    await expect(client.artist('00000000-0000-4000-8000-0000000009ab')).rejects.toMatchObject({ kind: 'not_found', status: 404 });
    fake.faults.failNext(2, 503);
    const before = fake.requests.length;
    const err = await client.album(ids.rgDawn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrationError);
    expect(err).toMatchObject({ kind: 'server_error', status: 503 });
    expect(fake.requests.length - before).toBe(2);
  });
});
