import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import { submitListensProblem, type FakeSubmission } from '../listenbrainz/index.js';

/**
 * A Koito server on 127.0.0.1: `GET /apis/web/v1/top/artists?period&page&limit` (limit ≤ 100,
 * items as `{item:{id, name, musicbrainz_id, listen_count, image}}`, `has_next_page`), 400
 * `{error}` for a bad period, and the ListenBrainz-compatible `GET /apis/listenbrainz/1/validate-token`
 * (`Authorization: Token <api key>`; 401 `{code, error}` for a wrong key) and `POST
 * /apis/listenbrainz/1/submit-listens` (ListenBrainz's bodies and checks; accepted ones recorded in
 * `submissions`).
 */
export interface FakeKoitoArtist {
  name: string;
  mbid?: string;
  listens: number;
  /** Listens per period when they differ from `listens`. */
  periods?: Partial<Record<'week' | 'month' | 'year' | 'all_time', number>>;
}

export interface KoitoFake extends JsonFake {
  artists: FakeKoitoArtist[];
  /** API key → user name. */
  apiKeys: Map<string, string>;
  submissions: FakeSubmission[];
}

const PERIODS = new Set(['day', 'week', 'month', 'year', 'all_time']);

export async function startKoitoFake(artists: FakeKoitoArtist[] = []): Promise<KoitoFake> {
  const handler = (req: SeenRequest, raw: Buffer): FakeReply => {
    if (req.path === '/apis/listenbrainz/1/submit-listens') {
      const token = /^Token\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const user = token ? fake.apiKeys.get(token) : undefined;
      if (!user) return { status: 401, body: { code: 401, error: 'Invalid authorization token.' } };
      if (req.method !== 'POST') return { status: 405, body: { code: 405, error: 'method not allowed' } };
      const checked = submitListensProblem(raw);
      if ('problem' in checked) return { status: 400, body: { code: 400, error: checked.problem } };
      fake.submissions.push({ user, ...checked });
      return { body: { status: 'ok' } };
    }
    if (req.path === '/apis/listenbrainz/1/validate-token') {
      const token = /^Token\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const user = token ? fake.apiKeys.get(token) : undefined;
      if (!user) return { status: 401, body: { code: 401, error: 'Invalid authorization token.' } };
      return { body: { code: 200, message: 'Token valid.', valid: true, user_name: user } };
    }
    if (req.path !== '/apis/web/v1/top/artists') return { status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain' } };
    const period = req.query.get('period') ?? 'day';
    if (!PERIODS.has(period)) return { status: 400, body: { error: 'invalid period' } };
    const limit = Number(req.query.get('limit') ?? 100);
    const page = Number(req.query.get('page') ?? 1);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { status: 400, body: { error: 'limit must be between 1 and 100' } };
    if (!Number.isInteger(page) || page < 1) return { status: 400, body: { error: 'invalid page' } };
    const counted = fake.artists
      .map((a, i) => ({ a, id: i + 1, listens: a.periods?.[period as 'week'] ?? a.listens }))
      .filter((x) => x.listens > 0)
      .sort((x, y) => y.listens - x.listens);
    const slice = counted.slice((page - 1) * limit, page * limit);
    return {
      body: {
        items: slice.map(({ a, id, listens }) => ({
          item: { id, name: a.name, musicbrainz_id: a.mbid ?? null, listen_count: listens, image: null, aliases: [a.name], time_listened: listens * 200 },
          rank: 0,
        })),
        total_record_count: counted.length,
        items_per_page: limit,
        has_next_page: page * limit < counted.length,
        current_page: page,
      },
    };
  };
  const fake = (await startJsonFake(handler)) as KoitoFake;
  fake.artists = artists;
  fake.apiKeys = new Map();
  fake.submissions = [];
  return fake;
}
