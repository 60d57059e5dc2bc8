import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * ListenBrainz's API on 127.0.0.1: `/1/stats/user/<user>/artists` and `/1/stats/sitewide/artists`
 * (`range`, `count` ≤ 100, `offset`), 204 with no body while a user's statistics are not computed,
 * errors as `{code, error}` (404 unknown user, 400 bad range or count, 401 bad token), and the
 * rate-limit headers on every answer: X-RateLimit-Limit/Remaining/Reset-In/Reset, with 429 once the
 * window's requests are used up. Also `/1/validate-token` and `POST /1/submit-listens` (token
 * required; `listen_type` single/playing_now/import, checked as ListenBrainz does: one listen with
 * `listened_at` for single, one without for playing_now, artist and track names required), whose
 * accepted submissions are recorded in `submissions`.
 */
export interface FakeListenBrainzArtist {
  name: string;
  mbid?: string;
  listens: number;
}

/** A playlist as the fake keeps it; served as JSPF. */
export interface FakeListenBrainzPlaylist {
  id: string;
  title: string;
  creator: string;
  /** Set for playlists made for a user ("weekly-jams", "weekly-exploration"). */
  sourcePatch?: string;
  createdFor?: string;
  public?: boolean;
  tracks: { title: string; artist: string; album?: string; durationMs?: number; recordingMbid?: string; artistMbid?: string; releaseMbid?: string }[];
}

export interface ListenBrainzFake extends JsonFake {
  /** Playlists by id: a user's own (by `creator`) and those made for them (`createdFor`). */
  playlists: Map<string, FakeListenBrainzPlaylist>;
  /** Per user name, the artists with their listen counts (the same for every range unless `ranges` says otherwise). */
  users: Map<string, { name: string; artists: FakeListenBrainzArtist[]; ranges?: Record<string, FakeListenBrainzArtist[]>; computed: boolean }>;
  addUser(name: string, artists: FakeListenBrainzArtist[], options?: { computed?: boolean; ranges?: Record<string, FakeListenBrainzArtist[]> }): void;
  sitewide: FakeListenBrainzArtist[];
  /** Valid tokens and their user names. */
  tokens: Map<string, string>;
  /** Requests allowed per window (default 1000) and the window length in seconds (default 10). */
  rateLimit: { limit: number; windowSeconds: number };
  /** Starts a fresh window now. */
  resetWindow(): void;
  /** Accepted submit-listens calls, in order. */
  submissions: FakeSubmission[];
}

/** One accepted submit-listens call: whose token, the type, and the listens as sent. */
export interface FakeSubmission {
  user: string;
  listenType: string;
  payload: { listened_at?: number; track_metadata: { artist_name: string; track_name: string; release_name?: string; additional_info?: Record<string, unknown> } }[];
}

/**
 * ListenBrainz's checks of a submit-listens body (also Koito's, which takes the same bodies): the
 * error text, or null when the body is acceptable.
 */
export function submitListensProblem(raw: Buffer): { problem: string } | { listenType: string; payload: FakeSubmission['payload'] } {
  let body: { listen_type?: unknown; payload?: unknown };
  try {
    body = JSON.parse(raw.toString('utf8')) as typeof body;
  } catch {
    return { problem: 'Cannot parse JSON document.' };
  }
  const type = body.listen_type;
  if (type !== 'single' && type !== 'playing_now' && type !== 'import') return { problem: 'JSON document does not contain a valid listen_type key.' };
  if (!Array.isArray(body.payload) || body.payload.length === 0) return { problem: 'JSON document does not contain any listens' };
  if (type !== 'import' && body.payload.length !== 1) return { problem: `JSON document should contain exactly one listen for listen_type ${type}` };
  for (const listen of body.payload as Record<string, unknown>[]) {
    const meta = listen.track_metadata as Record<string, unknown> | undefined;
    if (!meta || typeof meta.artist_name !== 'string' || !meta.artist_name || typeof meta.track_name !== 'string' || !meta.track_name)
      return { problem: 'JSON document does not contain required track_metadata.artist_name and track_name' };
    if (type === 'playing_now' && 'listened_at' in listen) return { problem: 'JSON document should not contain listened_at for playing_now' };
    if (type !== 'playing_now' && !Number.isInteger(listen.listened_at)) return { problem: 'JSON document must contain listened_at as an integer' };
  }
  return { listenType: type, payload: body.payload as FakeSubmission['payload'] };
}

const RANGES = new Set(['this_week', 'this_month', 'this_year', 'week', 'month', 'quarter', 'year', 'half_yearly', 'all_time']);

export async function startListenBrainzFake(): Promise<ListenBrainzFake> {
  const users: ListenBrainzFake['users'] = new Map();
  const tokens = new Map<string, string>();
  const rateLimit = { limit: 1000, windowSeconds: 10 };
  let windowStart = Date.now();
  let used = 0;

  const err = (code: number, error: string): FakeReply => ({ status: code, body: { code, error } });

  const route = (req: SeenRequest, raw: Buffer): FakeReply => {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const token = /^Token\s+(.+)$/i.exec(auth)?.[1];
      if (!token || !tokens.has(token)) return req.path === '/1/validate-token' ? { body: { code: 200, message: 'Token invalid.', valid: false } } : err(401, 'Invalid authorization token.');
      if (req.path === '/1/validate-token') return { body: { code: 200, message: 'Token valid.', valid: true, user_name: tokens.get(token) } };
      if (req.path === '/1/submit-listens') {
        if (req.method !== 'POST') return err(405, 'The method is not allowed for the requested URL.');
        const checked = submitListensProblem(raw);
        if ('problem' in checked) return err(400, checked.problem);
        fake.submissions.push({ user: tokens.get(token)!, ...checked });
        return { body: { status: 'ok' } };
      }
    }
    if (req.path === '/1/submit-listens') return err(401, 'You need to provide an Authorization header.');
    const caller = auth ? tokens.get(/^Token\s+(.+)$/i.exec(auth)?.[1] ?? '') : undefined;
    const lists = /^\/1\/user\/([^/]+)\/playlists(\/createdfor)?$/.exec(req.path);
    if (lists) {
      const user = decodeURIComponent(lists[1]!).toLowerCase();
      const all = [...fake.playlists.values()].filter((p) =>
        lists[2] ? p.createdFor?.toLowerCase() === user : p.creator.toLowerCase() === user && !p.createdFor,
      ).filter((p) => p.public !== false || caller?.toLowerCase() === user);
      const count = Math.min(100, Number(req.query.get('count') ?? 25) || 25);
      const offset = Number(req.query.get('offset') ?? 0) || 0;
      return { body: { playlists: all.slice(offset, offset + count).map((p) => ({ playlist: jspf(p, false) })), playlist_count: all.length, count, offset } };
    }
    const one = /^\/1\/playlist\/([0-9a-f-]{36})$/.exec(req.path);
    if (one) {
      const p = fake.playlists.get(one[1]!);
      if (!p || (p.public === false && caller?.toLowerCase() !== (p.createdFor ?? p.creator).toLowerCase())) return err(404, 'Cannot find playlist');
      return { body: { playlist: jspf(p, true) } };
    }
    if (req.path === '/1/validate-token') return err(400, 'You need to provide an Authorization token.');
    const user = /^\/1\/stats\/user\/([^/]+)\/artists$/.exec(req.path);
    if (!user && req.path !== '/1/stats/sitewide/artists') return err(404, 'Not found');
    const range = req.query.get('range') ?? 'all_time';
    if (!RANGES.has(range)) return err(400, `Invalid range: ${range}`);
    const count = Number(req.query.get('count') ?? 25);
    const offset = Number(req.query.get('offset') ?? 0);
    if (!Number.isInteger(count) || count < 0) return err(400, "'count' should be a non-negative integer");
    if (!Number.isInteger(offset) || offset < 0) return err(400, "'offset' should be a non-negative integer");
    const limit = Math.min(count, 100);
    const now = Math.floor(Date.now() / 1000);
    if (user) {
      const name = decodeURIComponent(user[1]!);
      const u = users.get(name.toLowerCase());
      if (!u) return err(404, `Cannot find user: ${name}`);
      if (!u.computed) return { status: 204 };
      const all = [...(u.ranges?.[range] ?? u.artists)].sort((a, b) => b.listens - a.listens);
      return {
        body: {
          payload: {
            user_id: u.name,
            artists: all.slice(offset, offset + limit).map((a) => ({ artist_name: a.name, artist_mbids: a.mbid ? [a.mbid] : [], listen_count: a.listens })),
            count: Math.min(limit, Math.max(0, all.length - offset)),
            offset,
            range,
            total_artist_count: all.length,
            from_ts: now - 30 * 86400,
            to_ts: now,
            last_updated: now - 3600,
          },
        },
      };
    }
    const all = [...fake.sitewide].sort((a, b) => b.listens - a.listens);
    return {
      body: {
        payload: {
          artists: all.slice(offset, offset + limit).map((a) => ({ artist_name: a.name, artist_mbid: a.mbid ?? null, listen_count: a.listens })),
          count: Math.min(limit, Math.max(0, all.length - offset)),
          offset,
          range,
          total_artist_count: all.length,
          from_ts: now - 30 * 86400,
          to_ts: now,
          last_updated: now - 7200,
        },
      },
    };
  };

  const jspf = (p: FakeListenBrainzPlaylist, withTracks: boolean) => ({
    title: p.title,
    identifier: `https://listenbrainz.org/playlist/${p.id}`,
    creator: p.creator,
    date: '2026-11-17T00:00:00+00:00',
    track: withTracks
      ? p.tracks.map((t) => ({
          title: t.title,
          creator: t.artist,
          ...(t.album && { album: t.album }),
          identifier: t.recordingMbid ? [`https://musicbrainz.org/recording/${t.recordingMbid}`] : [],
          ...(t.durationMs && { duration: t.durationMs }),
          extension: {
            'https://musicbrainz.org/doc/jspf#track': {
              artist_identifiers: t.artistMbid ? [`https://musicbrainz.org/artist/${t.artistMbid}`] : [],
              ...(t.releaseMbid && { release_identifier: `https://musicbrainz.org/release/${t.releaseMbid}` }),
              added_at: '2026-11-17T00:00:00+00:00',
              added_by: p.creator,
              additional_metadata: {},
            },
          },
        }))
      : [],
    extension: {
      'https://musicbrainz.org/doc/jspf#playlist': {
        creator: p.creator,
        ...(p.createdFor && { created_for: p.createdFor }),
        public: p.public !== false,
        last_modified_at: '2026-11-17T00:00:00+00:00',
        ...(p.sourcePatch && { additional_metadata: { algorithm_metadata: { source_patch: p.sourcePatch } } }),
      },
    },
  });

  const handler = (req: SeenRequest, raw: Buffer): FakeReply => {
    const nowMs = Date.now();
    if (nowMs - windowStart >= rateLimit.windowSeconds * 1000) {
      windowStart = nowMs;
      used = 0;
    }
    used += 1;
    const resetIn = Math.max(0, Math.ceil((windowStart + rateLimit.windowSeconds * 1000 - nowMs) / 1000));
    const headers = {
      'X-RateLimit-Limit': String(rateLimit.limit),
      'X-RateLimit-Remaining': String(Math.max(0, rateLimit.limit - used)),
      'X-RateLimit-Reset-In': String(resetIn),
      'X-RateLimit-Reset': String(Math.floor(nowMs / 1000) + resetIn),
    };
    const reply = used > rateLimit.limit ? err(429, 'Too many requests. Please wait and try again.') : route(req, raw);
    return { ...reply, headers: { ...headers, ...reply.headers } };
  };

  const fake = (await startJsonFake(handler)) as ListenBrainzFake;
  fake.users = users;
  fake.tokens = tokens;
  fake.sitewide = [];
  fake.submissions = [];
  fake.playlists = new Map();
  fake.rateLimit = rateLimit;
  fake.resetWindow = () => {
    windowStart = Date.now();
    used = 0;
  };
  fake.addUser = (name, artists, options = {}) =>
    void users.set(name.toLowerCase(), { name, artists, computed: options.computed ?? true, ...(options.ranges && { ranges: options.ranges }) });
  return fake;
}
