import crypto from 'node:crypto';
import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * Last.fm's read API on 127.0.0.1 (`GET /2.0/?method=…&api_key=…&format=json`) with its quirks:
 * every number is a string, a list of one entry is that entry (an object), missing MBIDs are "",
 * and errors are `{error, message}`, sometimes with HTTP 200 (not found: error 6 with 200, as
 * Last.fm does; a wrong key: error 10 with 403). Methods: artist.getInfo, artist.getTopTags,
 * artist.getSimilar, artist.getTopTracks (paged by `page`/`limit`), album.getInfo (by artist and
 * album name, with `autocorrect` ignoring case; `wiki` only for albums someone wrote about, its
 * summary ending in Last.fm's "Read more on Last.fm" link), and for discovery
 * tag.getTopArtists, chart.getTopArtists, chart.getTopTracks, chart.getTopTags (paged),
 * tag.getTopTags and user.getTopArtists (per period, paged; an unknown user is error 6). Charts and
 * tag rankings are computed from the seeded artists: by listeners, by tag position, by track plays.
 *
 * Scrobbling: the web authorization page `GET /api/auth/?api_key&cb` (outside `/2.0`; it approves
 * at once as `authUser` and redirects the browser to `cb` with `token=` appended), and the signed
 * methods auth.getSession (one use per token: error 14 after), track.updateNowPlaying and
 * track.scrobble (POST only, form-encoded; `sk` checked: error 9). Every signed call's `api_sig` is
 * recomputed from the parameters and `apiSecret`: a mismatch is error 13. Scrobbles and now-playing
 * updates are recorded in `scrobbles` and `nowPlaying`.
 */
export interface FakeLastFmAlbum {
  name: string;
  /** Last.fm's album MBIDs are release ids. */
  mbid?: string;
  /** The wiki text; none: the answer has no `wiki`. */
  wiki?: string;
  tags?: string[];
  tracks?: { name: string; duration: number }[];
}
export interface FakeLastFmArtist {
  name: string;
  mbid?: string;
  bio?: string;
  listeners?: number;
  tags?: string[];
  similar?: { name: string; mbid?: string; match: number }[];
  topTracks?: { name: string; mbid?: string; playcount: number }[];
  albums?: FakeLastFmAlbum[];
}

export type FakeLastFmPeriod = 'overall' | '7day' | '1month' | '3month' | '6month' | '12month';
/** A Last.fm user's scrobbled artists per period (a period not given answers the `overall` list). */
export type FakeLastFmUser = { name: string; topArtists: Partial<Record<FakeLastFmPeriod, { name: string; mbid?: string; playcount: number }[]>> };

export interface LastFmFake extends JsonFake {
  apiKey: string;
  artists: Map<string, FakeLastFmArtist>;
  add(artist: FakeLastFmArtist): void;
  users: Map<string, FakeLastFmUser>;
  addUser(user: FakeLastFmUser): void;
  /** The next `count` answers are `{error: code}` with this HTTP status (Last.fm sends 29 and 16 with 200 too). */
  errorNext(count: number, code: number, status?: number): void;
  apiSecret: string;
  /** The address of the web authorization page (TONEARM_LASTFM_AUTH_URL). */
  authUrl: string;
  /** Who approves on the authorization page. */
  authUser: string;
  /** Session keys handed out → user name. */
  sessions: Map<string, string>;
  scrobbles: FakeLastFmCall[];
  nowPlaying: FakeLastFmCall[];
  /** The web player's stations per user name (lower case): `GET /player/station/user/<name>/<station>`. */
  stations: Map<string, Partial<Record<'library' | 'mix' | 'recommended', FakeStationTrack[]>>>;
  /** The web site's root (TONEARM_LASTFM_WEB_URL). */
  webUrl: string;
}

/** A track of a station as the web player lists it. */
export interface FakeStationTrack {
  name: string;
  artist: string;
  album?: string;
  durationSeconds?: number;
}

/** A scrobble or now-playing update as received (every parameter but the signature). */
export interface FakeLastFmCall {
  user: string;
  params: Record<string, string>;
}

/** Last.fm's signature rule, recomputed independently of the server's code. */
function expectedSignature(params: Record<string, string>, secret: string): string {
  const names = Object.keys(params).filter((k) => k !== 'format' && k !== 'callback' && k !== 'api_sig').sort();
  return crypto.createHash('md5').update(names.map((k) => `${k}${params[k]}`).join('') + secret, 'utf8').digest('hex');
}

const one = <T>(list: T[]): T | T[] => (list.length === 1 ? list[0]! : list);
const images = (name: string) => ['small', 'medium', 'large', 'extralarge', 'mega'].map((size) => ({ '#text': '', size, _for: name })).map(({ _for: _, ...i }) => i);

export async function startLastFmFake(seed: FakeLastFmArtist[] = [], apiKey = 'lastfm-test-key', apiSecret = 'lastfm-test-secret'): Promise<LastFmFake> {
  const tokens = new Map<string, { approvedBy: string }>();
  const artists = new Map<string, FakeLastFmArtist>();
  const users = new Map<string, FakeLastFmUser>();
  const errors: { code: number; status: number }[] = [];
  const error = (code: number, message: string, status = 200): FakeReply => ({ status, body: { error: code, message, links: [] } });

  const albumInfo = (q: URLSearchParams): FakeReply => {
    if (!q.get('mbid') && (!q.get('artist') || !q.get('album'))) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
    let found: { a: FakeLastFmArtist; album: FakeLastFmAlbum } | undefined;
    for (const a of artists.values())
      for (const album of a.albums ?? [])
        if (q.get('mbid') ? album.mbid === q.get('mbid') : a.name.toLowerCase() === q.get('artist')!.toLowerCase() && album.name.toLowerCase() === q.get('album')!.toLowerCase()) found ??= { a, album };
    if (!found) return error(6, 'Album not found');
    const { a, album } = found;
    const url = `https://www.last.fm/music/${encodeURIComponent(a.name)}/${encodeURIComponent(album.name)}`;
    const tracks = (album.tracks ?? []).map((t, i) => ({
      streamable: { fulltrack: '0', '#text': '0' },
      duration: t.duration,
      url: `${url}/_/${encodeURIComponent(t.name)}`,
      name: t.name,
      '@attr': { rank: i + 1 },
      artist: { url: '', name: a.name, mbid: a.mbid ?? '' },
    }));
    return {
      body: {
        album: {
          artist: a.name,
          mbid: album.mbid ?? '',
          tags: (album.tags ?? []).length ? { tag: one((album.tags ?? []).map((t) => ({ url: `https://www.last.fm/tag/${encodeURIComponent(t)}`, name: t }))) } : '',
          name: album.name,
          image: images(album.name),
          tracks: tracks.length ? { track: one(tracks) } : '',
          listeners: '4321',
          playcount: '54321',
          url,
          ...(album.wiki && {
            wiki: { published: '01 Jan 2020, 00:00', summary: `${album.wiki} <a href="${url}">Read more on Last.fm</a>.`, content: `${album.wiki}\n\nUser-contributed text is available under the Creative Commons By-SA License.` },
          }),
        },
      },
    };
  };

  /** The browser's visit to the authorization page: approved at once, back to `cb` with a token. */
  const authPage = (q: URLSearchParams): FakeReply => {
    const html = (text: string, status: number): FakeReply => ({ status, body: `<html><body>${text}</body></html>`, headers: { 'content-type': 'text/html' } });
    if (q.get('api_key') !== fake.apiKey) return html('Invalid API key', 400);
    const cb = q.get('cb');
    if (!cb || !URL.canParse(cb)) return html('No callback URL', 400);
    const token = crypto.randomBytes(16).toString('hex');
    tokens.set(token, { approvedBy: fake.authUser });
    const back = new URL(cb);
    back.searchParams.append('token', token);
    return { status: 302, headers: { location: back.href } };
  };

  /** auth.getSession, track.updateNowPlaying, track.scrobble: signed, the writes POST only. */
  const signedCall = (req: SeenRequest, method: string, p: Record<string, string>): FakeReply => {
    if (!p.api_sig || p.api_sig !== expectedSignature(p, fake.apiSecret)) return error(13, 'Invalid method signature supplied', 403);
    if (method === 'auth.getsession') {
      const t = tokens.get(p.token ?? '');
      if (!t) return error(14, 'Unauthorized Token - This token has not been authorized', 403);
      tokens.delete(p.token!);
      const key = crypto.randomBytes(16).toString('hex');
      fake.sessions.set(key, t.approvedBy);
      return { body: { session: { name: t.approvedBy, key, subscriber: 0 } } };
    }
    if (req.method !== 'POST') return error(3, 'Invalid Method - This method must be called with POST', 405);
    const user = fake.sessions.get(p.sk ?? '');
    if (!user) return error(9, 'Invalid session key - Please re-authenticate', 403);
    if (!p.artist || !p.track) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
    const { api_sig: _sig, format: _format, sk: _sk, ...params } = p;
    const text = (v: string | undefined) => ({ corrected: '0', '#text': v ?? '' });
    const common = { track: text(p.track), artist: text(p.artist), album: text(p.album), albumArtist: text(''), ignoredMessage: { code: '0', '#text': '' } };
    if (method === 'track.updatenowplaying') {
      fake.nowPlaying.push({ user, params });
      return { body: { nowplaying: common } };
    }
    if (!p.timestamp || !/^\d+$/.test(p.timestamp)) return error(6, 'Invalid parameters - timestamp is required', 400);
    fake.scrobbles.push({ user, params });
    return { body: { scrobbles: { '@attr': { accepted: 1, ignored: 0 }, scrobble: { ...common, timestamp: p.timestamp } } } };
  };

  const handler = (req: SeenRequest, raw: Buffer): FakeReply => {
    if (/^\/api\/auth\/?$/.test(req.path)) return authPage(req.query);
    const station = /^\/player\/station\/user\/([^/]+)\/(library|mix|recommended)$/.exec(req.path);
    if (station) {
      const user = fake.stations.get(decodeURIComponent(station[1]!).toLowerCase());
      if (!user) return { status: 404, body: '<html>User not found</html>', headers: { 'content-type': 'text/html' } };
      const tracks = user[station[2] as 'library' | 'mix' | 'recommended'] ?? [];
      return {
        body: {
          playlist: tracks.map((t) => ({
            name: t.name,
            url: `https://www.last.fm/music/${encodeURIComponent(t.artist)}/_/${encodeURIComponent(t.name)}`,
            duration: t.durationSeconds ?? 200,
            artists: [{ name: t.artist, url: `https://www.last.fm/music/${encodeURIComponent(t.artist)}` }],
            playlinks: [],
            ...(t.album && { album: t.album }),
          })),
        },
      };
    }
    const injected = errors.shift();
    if (injected) return error(injected.code, 'Injected failure', injected.status);
    if (req.path !== '/' && req.path !== '') return { status: 404, body: '<html>Not found</html>', headers: { 'content-type': 'text/html' } };
    const form = req.method === 'POST' ? new URLSearchParams(raw.toString('utf8')) : new URLSearchParams();
    const q = new URLSearchParams([...req.query, ...form]);
    if (q.get('api_key') !== fake.apiKey) return error(10, 'Invalid API key - You must be granted a valid key by last.fm', 403);
    const method = (q.get('method') ?? '').toLowerCase();
    if (['auth.getsession', 'track.updatenowplaying', 'track.scrobble'].includes(method)) return signedCall(req, method, Object.fromEntries(q));
    if (method === 'album.getinfo') return albumInfo(q);
    if (!method.startsWith('artist.')) return discovery(method, q);
    const wanted = q.get('mbid') ? [...artists.values()].find((a) => a.mbid === q.get('mbid')) : artists.get((q.get('artist') ?? '').toLowerCase());
    if (!q.get('artist') && !q.get('mbid')) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
    if (!wanted) return error(6, 'The artist you supplied could not be found');
    const a = wanted;
    const tag = (name: string, i: number) => ({ name, count: 100 - i * 10, url: `https://www.last.fm/tag/${encodeURIComponent(name)}` });
    switch (method) {
      case 'artist.getinfo':
        return {
          body: {
            artist: {
              name: a.name,
              mbid: a.mbid ?? '',
              url: `https://www.last.fm/music/${encodeURIComponent(a.name)}`,
              image: images(a.name),
              streamable: '0',
              ontour: '0',
              stats: { listeners: String(a.listeners ?? 1234), playcount: String((a.listeners ?? 1234) * 10) },
              similar: { artist: one((a.similar ?? []).slice(0, 5).map((s) => ({ name: s.name, url: '', image: images(s.name) }))) },
              tags: (a.tags ?? []).length ? { tag: one((a.tags ?? []).map((t, i) => ({ name: t, url: tag(t, i).url }))) } : '',
              bio: { links: { link: { '#text': '', rel: 'original', href: '' } }, published: '01 Jan 2020, 00:00', summary: a.bio ?? '', content: a.bio ?? '' },
            },
          },
        };
      case 'artist.gettoptags':
        return { body: { toptags: { tag: one((a.tags ?? []).map(tag)), '@attr': { artist: a.name } } } };
      case 'artist.getsimilar': {
        const limit = Math.max(1, Number(q.get('limit') ?? 100) || 100);
        const list = (a.similar ?? []).slice(0, limit).map((s) => ({
          name: s.name,
          mbid: s.mbid ?? '',
          match: String(s.match),
          url: `https://www.last.fm/music/${encodeURIComponent(s.name)}`,
          image: images(s.name),
          streamable: '0',
        }));
        return { body: { similarartists: { artist: one(list), '@attr': { artist: a.name } } } };
      }
      case 'artist.gettoptracks': {
        const limit = Math.max(1, Number(q.get('limit') ?? 50) || 50);
        const pageNo = Math.max(1, Number(q.get('page') ?? 1) || 1);
        const all = [...(a.topTracks ?? [])].sort((x, y) => y.playcount - x.playcount);
        const slice = all.slice((pageNo - 1) * limit, pageNo * limit).map((t, i) => ({
          name: t.name,
          playcount: String(t.playcount),
          listeners: String(Math.round(t.playcount / 3)),
          mbid: t.mbid ?? '',
          url: `https://www.last.fm/music/${encodeURIComponent(a.name)}/_/${encodeURIComponent(t.name)}`,
          streamable: '0',
          artist: { name: a.name, mbid: a.mbid ?? '', url: '' },
          image: images(t.name),
          '@attr': { rank: String((pageNo - 1) * limit + i + 1) },
        }));
        return {
          body: {
            toptracks: {
              track: one(slice),
              '@attr': { artist: a.name, page: String(pageNo), perPage: String(limit), totalPages: String(Math.max(1, Math.ceil(all.length / limit))), total: String(all.length) },
            },
          },
        };
      }
      default:
        return error(3, 'Invalid Method - No method with that name in this package', 400);
    }
  };
  /** Last.fm's paging: `limit` (default 50) and 1-based `page`, with the numbers echoed as strings. */
  const paged = <T>(all: T[], q: URLSearchParams, extra: Record<string, string> = {}) => {
    const limit = Math.min(1000, Math.max(1, Number(q.get('limit') ?? 50) || 50));
    const pageNo = Math.max(1, Number(q.get('page') ?? 1) || 1);
    const start = (pageNo - 1) * limit;
    return {
      items: all.slice(start, start + limit),
      start,
      attr: { ...extra, page: String(pageNo), perPage: String(limit), totalPages: String(Math.ceil(all.length / limit)), total: String(all.length) },
    };
  };
  const artistUrl = (name: string) => `https://www.last.fm/music/${encodeURIComponent(name).replace(/%20/g, '+')}`;
  const ranked = (list: { name: string; mbid?: string; playcount?: number; listeners?: number }[], start: number) =>
    list.map((a, i) => ({
      name: a.name,
      ...(a.playcount !== undefined && { playcount: String(a.playcount) }),
      ...(a.listeners !== undefined && { listeners: String(a.listeners) }),
      mbid: a.mbid ?? '',
      url: artistUrl(a.name),
      streamable: '0',
      image: images(a.name),
      '@attr': { rank: String(start + i + 1) },
    }));
  /** Tags across all artists: reach = artists using it, count = their summed weights. */
  const tagTable = () => {
    const table = new Map<string, { name: string; reach: number; count: number }>();
    for (const a of artists.values())
      (a.tags ?? []).forEach((t, i) => {
        const row = table.get(t.toLowerCase()) ?? { name: t, reach: 0, count: 0 };
        row.reach += 1;
        row.count += 100 - i * 10;
        table.set(t.toLowerCase(), row);
      });
    return [...table.values()].sort((x, y) => y.reach - x.reach || y.count - x.count || x.name.localeCompare(y.name));
  };
  const byListeners = () => [...artists.values()].sort((x, y) => (y.listeners ?? 1234) - (x.listeners ?? 1234) || x.name.localeCompare(y.name));

  function discovery(method: string, q: URLSearchParams): FakeReply {
    switch (method) {
      case 'tag.gettopartists': {
        const tag = (q.get('tag') ?? '').trim();
        if (!tag) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
        const weight = (a: FakeLastFmArtist) => (a.tags ?? []).findIndex((t) => t.toLowerCase() === tag.toLowerCase());
        const tagged = byListeners()
          .filter((a) => weight(a) >= 0)
          .sort((x, y) => weight(x) - weight(y));
        const p = paged(tagged, q, { tag });
        return { body: { topartists: { artist: one(ranked(p.items, p.start)), '@attr': p.attr } } };
      }
      case 'chart.gettopartists': {
        const p = paged(byListeners(), q);
        const rows = ranked(p.items.map((a) => ({ ...a, listeners: a.listeners ?? 1234, playcount: (a.listeners ?? 1234) * 10 })), p.start).map(({ '@attr': _, ...r }) => r);
        return { body: { artists: { artist: one(rows), '@attr': p.attr } } };
      }
      case 'chart.gettoptracks': {
        const tracks = [...artists.values()]
          .flatMap((a) => (a.topTracks ?? []).map((t) => ({ ...t, artist: a })))
          .sort((x, y) => y.playcount - x.playcount || x.name.localeCompare(y.name));
        const p = paged(tracks, q);
        const rows = p.items.map((t) => ({
          name: t.name,
          duration: '215',
          playcount: String(t.playcount),
          listeners: String(Math.round(t.playcount / 3)),
          mbid: t.mbid ?? '',
          url: `${artistUrl(t.artist.name)}/_/${encodeURIComponent(t.name)}`,
          streamable: { '#text': '0', fulltrack: '0' },
          artist: { name: t.artist.name, mbid: t.artist.mbid ?? '', url: artistUrl(t.artist.name) },
          image: images(t.name),
        }));
        return { body: { tracks: { track: one(rows), '@attr': p.attr } } };
      }
      case 'tag.gettoptags': {
        const all = tagTable();
        return { body: { toptags: { '@attr': { offset: 0, num_res: all.length, total: all.length }, tag: all.map((t) => ({ name: t.name.toLowerCase(), count: t.count, reach: t.reach })) } } };
      }
      case 'chart.gettoptags': {
        const p = paged(tagTable(), q);
        const rows = p.items.map((t) => ({
          name: t.name.toLowerCase(),
          url: `https://www.last.fm/tag/${encodeURIComponent(t.name.toLowerCase())}`,
          reach: String(t.reach),
          taggings: String(t.count),
          streamable: '1',
          wiki: {},
        }));
        return { body: { tags: { tag: one(rows), '@attr': p.attr } } };
      }
      case 'user.gettopartists': {
        const name = q.get('user') ?? '';
        if (!name) return error(6, 'Invalid parameters - Your request is missing a required parameter', 400);
        const user = users.get(name.toLowerCase());
        if (!user) return error(6, 'User not found');
        const period = (q.get('period') ?? 'overall') as FakeLastFmPeriod;
        if (!['overall', '7day', '1month', '3month', '6month', '12month'].includes(period)) return error(6, 'Invalid period', 400);
        const list = [...(user.topArtists[period] ?? user.topArtists.overall ?? [])].sort((x, y) => y.playcount - x.playcount);
        const p = paged(list, q, { user: user.name });
        return { body: { topartists: { artist: one(ranked(p.items, p.start)), '@attr': p.attr } } };
      }
      default:
        return error(3, 'Invalid Method - No method with that name in this package', 400);
    }
  }

  const fake = (await startJsonFake(handler, '/2.0')) as LastFmFake;
  fake.users = users;
  fake.addUser = (u) => void users.set(u.name.toLowerCase(), u);
  fake.apiKey = apiKey;
  fake.apiSecret = apiSecret;
  fake.authUrl = `${fake.url.replace(/\/2\.0$/, '')}/api/auth/`;
  fake.authUser = 'rj';
  fake.stations = new Map();
  fake.webUrl = fake.url.replace(/\/2\.0$/, '');
  fake.sessions = new Map();
  fake.scrobbles = [];
  fake.nowPlaying = [];
  fake.artists = artists;
  fake.add = (a) => void artists.set(a.name.toLowerCase(), a);
  fake.errorNext = (count, code, status = 200) => {
    for (let i = 0; i < count; i++) errors.push({ code, status });
  };
  seed.forEach(fake.add);
  return fake;
}
