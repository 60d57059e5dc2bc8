import { startJsonFake, type JsonFake } from '../http.js';

/**
 * The iTunes Search API's `GET /lookup?id=&country=` on 127.0.0.1: artists, collections (albums) and
 * tracks by id, `{resultCount, results}` with an empty list for an unknown id.
 */
export type ItunesEntry =
  | { wrapperType: 'artist'; artistId: number; artistName: string }
  | { wrapperType: 'collection'; collectionId: number; collectionName: string; artistId: number; artistName: string }
  | { wrapperType: 'track'; trackId: number; trackName: string; collectionId: number; collectionName: string; artistId: number; artistName: string };

export interface ItunesFake extends JsonFake {
  entries: ItunesEntry[];
}

const idOf = (e: ItunesEntry) => (e.wrapperType === 'artist' ? e.artistId : e.wrapperType === 'collection' ? e.collectionId : e.trackId);

export async function startItunesFake(): Promise<ItunesFake> {
  const fake = (await startJsonFake((req) => {
    if (req.path !== '/lookup') return { status: 404, body: { errorMessage: 'Invalid request' } };
    const id = Number(req.query.get('id'));
    if (!Number.isInteger(id)) return { status: 400, body: { errorMessage: 'Invalid value(s) for key(s): [id]', queryParameters: {} } };
    const results = fake.entries
      .filter((e) => idOf(e) === id)
      .map((e) => ({ ...e, ...(e.wrapperType === 'artist' ? { artistType: 'Artist' } : { kind: e.wrapperType === 'track' ? 'song' : undefined }), country: (req.query.get('country') ?? 'us').toUpperCase() }));
    return { body: { resultCount: results.length, results } };
  })) as ItunesFake;
  fake.entries = [];
  return fake;
}
