import crypto from 'node:crypto';
import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import { UNAUTHORIZED_PAGE, xmlDocument } from './xml.js';

/**
 * A Plex Media Server on 127.0.0.1: `GET /identity` (no token needed), `GET /library/sections`
 * (Directory with Location), `GET /library/sections/:key/refresh`, `GET /library/sections/:key/all?type=10`
 * paged by `X-Plex-Container-Start/Size` (query or header) with `totalSize`, and audio playlists:
 * `GET /playlists?playlistType=audio`, `POST /playlists?type=audio&title&smart=0&uri=server://…`,
 * `GET /playlists/:rk/items` (paged), `PUT /playlists/:rk/items?uri=`, `DELETE /playlists/:rk/items/:playlistItemID`,
 * `PUT /playlists/:rk?title&summary`, `DELETE /playlists/:rk`. JSON when the client sends
 * `Accept: application/json`, XML otherwise (or always, with `xmlOnly`). A missing or unknown
 * `X-Plex-Token` gets Plex's small HTML 401 page.
 *
 * Playlists belong to users, as on a real server: the owner's tokens (`tokens`) and each user's own
 * server token (`userTokens`, what plex.tv's resources hand a shared or Plex Home user) see, change
 * and delete only their own playlists (another user's is 404); only the owner may start a scan.
 */
export interface FakePlexSection {
  key: string;
  title: string;
  type: 'artist' | 'movie' | 'show' | 'photo';
  locations: string[];
}

export interface FakePlexTrack {
  ratingKey: string;
  sectionKey: string;
  title: string;
  artist: string;
  album: string;
  index?: number;
  durationMs?: number;
  file: string;
}

export interface FakePlexPlaylist {
  ratingKey: string;
  /** Whose playlist it is: OWNER for the server owner, else the user named in `userTokens`. */
  owner: string;
  title: string;
  summary: string;
  items: { playlistItemID: string; ratingKey: string }[];
  addedAt: number;
  updatedAt: number;
}

export interface PlexServerFake extends JsonFake {
  machineIdentifier: string;
  /** Tokens of the server's owner. */
  tokens: Set<string>;
  /** Other users' own tokens for this server → the user (shared friends, Plex Home and managed users). */
  userTokens: Map<string, string>;
  /** The playlists of one user (OWNER for the server owner). */
  playlistsOf(user: string): FakePlexPlaylist[];
  sections: FakePlexSection[];
  tracks: FakePlexTrack[];
  playlists: Map<string, FakePlexPlaylist>;
  /** Answer XML whatever the Accept header says. */
  xmlOnly: boolean;
  /** The next `count` requests answer `status` with an HTML error page. */
  htmlErrorNext(count: number, status: number): void;
  /** Sections refreshed (scans started), in order. */
  refreshed: string[];
}

/** The user the server owner's playlists belong to. */
export const OWNER = 'owner';

const LIBRARY_URI = /^server:\/\/([^/]+)\/com\.plexapp\.plugins\.library\/library\/metadata\/([\w,]+)$/;

export async function startPlexServerFake(options: { machineIdentifier?: string } = {}): Promise<PlexServerFake> {
  let nextKey = 50_000;
  let nextItem = 1;
  const htmlErrors: number[] = [];

  const reply = (req: SeenRequest, root: Record<string, unknown>, status = 200): FakeReply => {
    const json = !fake.xmlOnly && (req.headers.accept ?? '').includes('application/json');
    if (json) return { status, body: { MediaContainer: root } };
    return { status, headers: { 'content-type': 'text/xml;charset=utf-8' }, body: xmlDocument('MediaContainer', root) };
  };
  const paging = (req: SeenRequest, total: number) => {
    const pick = (name: string) => req.query.get(name) ?? (req.headers[name.toLowerCase()] as string | undefined);
    const start = Math.max(0, Number(pick('X-Plex-Container-Start') ?? 0) || 0);
    const size = Math.max(0, Number(pick('X-Plex-Container-Size') ?? total) || 0);
    return { start, end: Math.min(total, start + size) };
  };
  const trackJson = (t: FakePlexTrack, extra: Record<string, unknown> = {}) => ({
    ratingKey: t.ratingKey,
    key: `/library/metadata/${t.ratingKey}`,
    parentRatingKey: `${t.ratingKey}0`,
    type: 'track',
    title: t.title,
    grandparentTitle: t.artist,
    parentTitle: t.album,
    index: t.index ?? 1,
    duration: t.durationMs ?? 200_000,
    addedAt: 1700000000,
    ...extra,
    Media: [
      {
        id: Number(t.ratingKey) * 10,
        duration: t.durationMs ?? 200_000,
        bitrate: 320,
        audioChannels: 2,
        audioCodec: t.file.endsWith('.flac') ? 'flac' : 'mp3',
        container: t.file.split('.').pop(),
        Part: [{ id: Number(t.ratingKey) * 100, key: `/library/parts/${Number(t.ratingKey) * 100}/file`, duration: t.durationMs ?? 200_000, file: t.file, size: 5_000_000, container: t.file.split('.').pop() }],
      },
    ],
  });
  const playlistJson = (p: FakePlexPlaylist) => ({
    ratingKey: p.ratingKey,
    key: `/playlists/${p.ratingKey}/items`,
    guid: `com.plexapp.agents.none://${p.ratingKey}`,
    type: 'playlist',
    title: p.title,
    summary: p.summary,
    smart: false,
    playlistType: 'audio',
    leafCount: p.items.length,
    duration: p.items.reduce((sum, i) => sum + (fake.tracks.find((t) => t.ratingKey === i.ratingKey)?.durationMs ?? 200_000), 0),
    addedAt: p.addedAt,
    updatedAt: p.updatedAt,
  });
  /** The ratingKeys of a `uri=` parameter, or a reason it is refused. */
  const uriKeys = (uri: string | null): string[] | string => {
    const m = uri ? LIBRARY_URI.exec(uri) : null;
    if (!m) return 'bad uri';
    if (m[1] !== fake.machineIdentifier) return 'unknown server in uri';
    const keys = m[2]!.split(',').filter(Boolean);
    if (keys.some((k) => !fake.tracks.some((t) => t.ratingKey === k))) return 'unknown item in uri';
    return keys;
  };
  const badRequest = (req: SeenRequest, why: string) => reply(req, { size: 0, message: why }, 400);

  const handler = (req: SeenRequest): FakeReply => {
    const failing = htmlErrors.shift();
    if (failing) return { status: failing, headers: { 'content-type': 'text/html' }, body: `<!DOCTYPE html><html><head><title>${failing} Internal Server Error</title><style>body{}</style></head><body><h1>Something broke</h1><p>secret stack trace at line 42</p></body></html>` };
    if (req.path === '/identity') return reply(req, { size: 0, claimed: true, machineIdentifier: fake.machineIdentifier, version: '1.41.3.9314-a0bfb8370' });
    const token = req.headers['x-plex-token'] ?? req.query.get('X-Plex-Token');
    const user = typeof token !== 'string' ? undefined : fake.tokens.has(token) ? OWNER : fake.userTokens.get(token);
    if (user === undefined) return { status: 401, headers: { 'content-type': 'text/html' }, body: UNAUTHORIZED_PAGE };
    const notFound: FakeReply = { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>Not Found</title></head><body><h1>404 Not Found</h1></body></html>' };
    /** A playlist this token may see: its own. */
    const own = (rk: string) => {
      const p = fake.playlists.get(rk);
      return p && p.owner === user ? p : undefined;
    };

    if (req.path === '/library/sections' && req.method === 'GET') {
      return reply(req, {
        size: fake.sections.length,
        allowSync: false,
        title1: 'Plex Library',
        Directory: fake.sections.map((s) => ({
          allowSync: true,
          art: `/:/resources/${s.type}-fanart.jpg`,
          key: s.key,
          type: s.type,
          title: s.title,
          agent: s.type === 'artist' ? 'tv.plex.agents.music' : 'tv.plex.agents.movie',
          scanner: s.type === 'artist' ? 'Plex Music' : 'Plex Movie',
          language: 'en-US',
          uuid: `uuid-${s.key}`,
          updatedAt: 1700000000,
          createdAt: 1690000000,
          scannedAt: 1700000000,
          refreshing: false,
          Location: s.locations.map((path, i) => ({ id: Number(s.key) * 10 + i, path })),
        })),
      });
    }
    const section = /^\/library\/sections\/(\w+)\/(all|refresh)$/.exec(req.path);
    if (section && req.method === 'GET') {
      if (!fake.sections.some((s) => s.key === section[1])) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>Not Found</title></head><body><h1>404 Not Found</h1></body></html>' };
      if (section[2] === 'refresh') {
        if (user !== OWNER) return { status: 403, headers: { 'content-type': 'text/html' }, body: '<html><head><title>Forbidden</title></head><body><h1>403 Forbidden</h1></body></html>' };
        fake.refreshed.push(section[1]!);
        return { status: 200 };
      }
      if (req.query.get('type') !== '10') return badRequest(req, 'only type=10 is faked');
      const all = fake.tracks.filter((t) => t.sectionKey === section[1]);
      const { start, end } = paging(req, all.length);
      return reply(req, { size: end - start, totalSize: all.length, offset: start, librarySectionID: Number(section[1]), Metadata: all.slice(start, end).map((t) => trackJson(t)) });
    }
    if (req.path === '/playlists' && req.method === 'GET') {
      const list = fake.playlistsOf(user);
      return reply(req, { size: list.length, Metadata: list.map(playlistJson) });
    }
    if (req.path === '/playlists' && req.method === 'POST') {
      if (req.query.get('type') !== 'audio' || req.query.get('smart') !== '0' || !req.query.get('title')) return badRequest(req, 'type=audio, smart=0 and a title are required');
      const keys = uriKeys(req.query.get('uri'));
      if (typeof keys === 'string') return badRequest(req, keys);
      const p: FakePlexPlaylist = { ratingKey: String(nextKey++), owner: user, title: req.query.get('title')!, summary: '', items: keys.map((ratingKey) => ({ ratingKey, playlistItemID: String(nextItem++) })), addedAt: 1700000000, updatedAt: 1700000000 };
      fake.playlists.set(p.ratingKey, p);
      return reply(req, { size: 1, Metadata: [playlistJson(p)] });
    }
    const items = /^\/playlists\/(\d+)\/items(?:\/(\d+))?$/.exec(req.path);
    if (items) {
      const p = own(items[1]!);
      if (!p) return notFound;
      if (req.method === 'GET' && !items[2]) {
        const { start, end } = paging(req, p.items.length);
        const slice = p.items.slice(start, end);
        return reply(req, {
          size: slice.length,
          totalSize: p.items.length,
          offset: start,
          leafCount: p.items.length,
          ratingKey: p.ratingKey,
          title: p.title,
          Metadata: slice.map((i) => trackJson(fake.tracks.find((t) => t.ratingKey === i.ratingKey)!, { playlistItemID: Number(i.playlistItemID) })),
        });
      }
      if (req.method === 'PUT' && !items[2]) {
        const keys = uriKeys(req.query.get('uri'));
        if (typeof keys === 'string') return badRequest(req, keys);
        for (const ratingKey of keys) p.items.push({ ratingKey, playlistItemID: String(nextItem++) });
        p.updatedAt++;
        return reply(req, { size: 1, leafCountAdded: keys.length, leafCountRequested: keys.length, Metadata: [playlistJson(p)] });
      }
      if (req.method === 'DELETE' && items[2]) {
        const at = p.items.findIndex((i) => i.playlistItemID === items[2]);
        if (at === -1) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>Not Found</title></head><body><h1>404 Not Found</h1></body></html>' };
        p.items.splice(at, 1);
        p.updatedAt++;
        return reply(req, { size: 1, Metadata: [playlistJson(p)] });
      }
    }
    const one = /^\/playlists\/(\d+)$/.exec(req.path);
    if (one) {
      const p = own(one[1]!);
      if (!p) return notFound;
      if (req.method === 'PUT') {
        if (req.query.get('title')) p.title = req.query.get('title')!;
        if (req.query.has('summary')) p.summary = req.query.get('summary') ?? '';
        p.updatedAt++;
        return { status: 200 };
      }
      if (req.method === 'DELETE') {
        fake.playlists.delete(p.ratingKey);
        return { status: 200 };
      }
      if (req.method === 'GET') return reply(req, { size: 1, Metadata: [playlistJson(p)] });
    }
    return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>Not Found</title></head><body><h1>404 Not Found</h1></body></html>' };
  };

  const fake = (await startJsonFake(handler)) as PlexServerFake;
  fake.machineIdentifier = options.machineIdentifier ?? crypto.randomBytes(20).toString('hex');
  fake.tokens = new Set();
  fake.sections = [];
  fake.tracks = [];
  fake.playlists = new Map();
  fake.userTokens = new Map();
  fake.playlistsOf = (who) => [...fake.playlists.values()].filter((p) => p.owner === who);
  fake.xmlOnly = false;
  fake.refreshed = [];
  fake.htmlErrorNext = (count, status) => {
    for (let i = 0; i < count; i++) htmlErrors.push(status);
  };
  return fake;
}
