import { randomUUID } from 'node:crypto';
import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * A Jellyfin stand-in on 127.0.0.1: the API key checked in `Authorization: MediaBrowser … Token="…"`,
 * `X-Emby-Token` or `X-MediaBrowser-Token` (401 with an empty body otherwise, as Jellyfin answers),
 * `/System/Info`, `/Users`, `/Items` (audio and playlists, `searchTerm`, `ids`, `fields` deciding
 * whether `Path`, `ProviderIds` and `Overview` are sent, paged by `startIndex`/`limit` with
 * `TotalRecordCount`), a whole item read and written back (`GET`/`POST /Items/{id}`; an update
 * without the item's lists is refused, as Jellyfin fails on them), `DELETE /Items/{id}`,
 * `/Playlists` (create with `Ids` and `UserId`, entries with `PlaylistItemId`, add by `ids`, remove
 * by `entryIds`, move) and a library scan (`POST /Library/Refresh`, the `RefreshLibrary` task in
 * `/ScheduledTasks`) that indexes the files added with `addFiles` after `scanMs`. 404s carry
 * Jellyfin's problem details. Down, slow and failing modes come from the shared `FakeFaults`;
 * `failAfter` makes a call fail after it did its work.
 */
export interface JellyfinFakeOptions {
  apiKey?: string;
  version?: string;
  serverName?: string;
  /** How long a library scan runs (default 50 ms). */
  scanMs?: number;
}

export interface FakeAudio {
  Id: string;
  Name: string;
  Album: string;
  AlbumArtist: string;
  Artists: string[];
  /** Where Jellyfin sees the file. */
  Path: string;
  RunTimeTicks: number;
  ProviderIds: Record<string, string>;
}

export interface FakeJellyfinPlaylist {
  id: string;
  name: string;
  ownerId: string;
  overview: string;
  entries: Array<{ playlistItemId: string; itemId: string }>;
}

export interface FakeJellyfinUser {
  Id: string;
  Name: string;
  Policy: { IsAdministrator: boolean };
}

export interface JellyfinFake extends JsonFake {
  apiKey: string;
  users: FakeJellyfinUser[];
  items: Map<string, FakeAudio>;
  /** Files the next library scan indexes. */
  unscanned: Array<Omit<FakeAudio, 'Id'>>;
  playlists: Map<string, FakeJellyfinPlaylist>;
  scans: number;
  scanning: boolean;
  /** `METHOD /path` of calls whose next one is carried out, then answered 500 (a failure after the change). */
  failAfter: Set<string>;
  addUser(name: string, admin?: boolean): FakeJellyfinUser;
  addSongs(songs: Array<Omit<FakeAudio, 'Id'>>): FakeAudio[];
  addFiles(songs: Array<Omit<FakeAudio, 'Id'>>): void;
  /** Item names of a playlist, in order. */
  titles(playlistId: string): string[];
  byName(name: string): FakeJellyfinPlaylist[];
}

const newId = () => randomUUID().replace(/-/g, '');
const problem = (status: number, title: string, detail?: string): FakeReply => ({
  status,
  body: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.' + (status === 404 ? '5' : '1'), title, status, ...(detail && { detail }), traceId: `00-${newId()}-${newId().slice(0, 16)}-00` },
  headers: { 'content-type': 'application/problem+json; charset=utf-8' },
});
const notFound = () => problem(404, 'Not Found');

/** The token of a request, wherever Jellyfin reads one. */
function tokenOf(req: SeenRequest): string | null {
  const auth = req.headers.authorization ?? req.headers['x-emby-authorization'];
  if (typeof auth === 'string') {
    const m = /^(MediaBrowser|Emby)\s+(.*)$/i.exec(auth);
    if (m) {
      const token = /(?:^|,\s*)Token="([^"]*)"/i.exec(m[2]!)?.[1];
      if (token) return token;
    }
  }
  for (const h of ['x-emby-token', 'x-mediabrowser-token']) {
    const v = req.headers[h];
    if (typeof v === 'string' && v) return v;
  }
  return req.query.get('api_key') ?? req.query.get('ApiKey');
}

export async function startJellyfinFake(options: JellyfinFakeOptions = {}): Promise<JellyfinFake> {
  const apiKey = options.apiKey ?? 'jf-api-key-0123456789abcdef';
  const version = options.version ?? '10.10.3';
  const serverId = newId();
  const users: FakeJellyfinUser[] = [];
  const items = new Map<string, FakeAudio>();
  const unscanned: Array<Omit<FakeAudio, 'Id'>> = [];
  const playlists = new Map<string, FakeJellyfinPlaylist>();
  const scanMs = options.scanMs ?? 50;

  const fields = (req: SeenRequest) => new Set((req.query.get('fields') ?? req.query.get('Fields') ?? '').split(',').map((f) => f.trim().toLowerCase()));
  const q = (req: SeenRequest, name: string) => req.query.get(name) ?? req.query.get(name[0]!.toUpperCase() + name.slice(1));
  const audioDto = (a: FakeAudio, f: Set<string>) => ({
    Name: a.Name,
    ServerId: serverId,
    Id: a.Id,
    RunTimeTicks: a.RunTimeTicks,
    IsFolder: false,
    Type: 'Audio',
    Artists: a.Artists,
    ArtistItems: a.Artists.map((n) => ({ Name: n, Id: newId() })),
    Album: a.Album,
    AlbumArtist: a.AlbumArtist,
    MediaType: 'Audio',
    ...(f.has('path') && { Path: a.Path }),
    ...(f.has('providerids') && { ProviderIds: a.ProviderIds }),
  });
  const playlistDto = (p: FakeJellyfinPlaylist, f: Set<string>) => ({
    Name: p.name,
    ServerId: serverId,
    Id: p.id,
    IsFolder: true,
    Type: 'Playlist',
    MediaType: 'Audio',
    ChildCount: p.entries.length,
    ...(f.has('overview') && { Overview: p.overview }),
  });
  /** A whole item, as GET /Items/{id} answers it (every list present). */
  const fullDto = (id: string) => {
    const p = playlists.get(id);
    const a = items.get(id);
    if (!p && !a) return null;
    const base = p ? { ...playlistDto(p, new Set(['overview'])), Path: `/config/data/playlists/${p.name}/playlist.xml` } : audioDto(a!, new Set(['path', 'providerids']));
    return {
      ...base,
      Overview: p ? p.overview : '',
      Genres: [],
      GenreItems: [],
      Tags: [],
      Studios: [],
      People: [],
      Taglines: [],
      RemoteTrailers: [],
      LockedFields: [],
      ProviderIds: a ? a.ProviderIds : {},
      LockData: false,
      DateCreated: new Date(0).toISOString(),
    };
  };
  const userExists = (id: string | null) => id === null || users.some((u) => u.Id === id);
  const normalized = (s: string) => s.toLowerCase();

  let scanTimer: NodeJS.Timeout | null = null;
  const handler = (req: SeenRequest, raw: Buffer): FakeReply => {
    const path = req.path.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/System/Info/Public') return { body: { ServerName: options.serverName ?? 'Den', Version: version, ProductName: 'Jellyfin Server', Id: serverId } };
    if (tokenOf(req) !== apiKey) return { status: 401 };
    const json = (): Record<string, unknown> => {
      try {
        return raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        return {};
      }
    };
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/System/Info') {
      return { body: { ServerName: options.serverName ?? 'Den', Version: version, ProductName: 'Jellyfin Server', Id: serverId, OperatingSystem: 'Linux', StartupWizardCompleted: true } };
    }
    if (req.method === 'GET' && path === '/Users') return { body: users };
    if (req.method === 'GET' && path === '/Items') {
      const userId = q(req, 'userId');
      if (!userExists(userId)) return notFound();
      const types = (q(req, 'includeItemTypes') ?? '').split(',').filter(Boolean);
      const f = fields(req);
      const ids = q(req, 'ids')?.split(',').filter(Boolean);
      const term = q(req, 'searchTerm');
      let found: Array<Record<string, unknown>> = [];
      if (types.length === 0 || types.includes('Audio')) {
        found.push(...[...items.values()].filter((a) => (!term || normalized(a.Name).includes(normalized(term))) && (!ids || ids.includes(a.Id))).map((a) => audioDto(a, f)));
      }
      if (types.length === 0 || types.includes('Playlist')) {
        found.push(
          ...[...playlists.values()]
            .filter((p) => (userId === null || p.ownerId === userId) && (!term || normalized(p.name).includes(normalized(term))) && (!ids || ids.includes(p.id)))
            .map((p) => playlistDto(p, f)),
        );
      }
      const total = found.length;
      const start = Math.max(0, Number(q(req, 'startIndex') ?? 0) || 0);
      const limit = q(req, 'limit') === null ? total : Math.max(0, Number(q(req, 'limit')) || 0);
      found = found.slice(start, start + limit);
      return { body: { Items: found, TotalRecordCount: total, StartIndex: start } };
    }
    if ((m = /^\/(?:Users\/([^/]+)\/)?Items\/([0-9a-f]{32})$/i.exec(path))) {
      const id = m[2]!.toLowerCase();
      if (req.method === 'GET') {
        if (!userExists(m[1] ?? q(req, 'userId'))) return notFound();
        const dto = fullDto(id);
        return dto ? { body: dto } : notFound();
      }
      if (req.method === 'POST' && !m[1]) {
        const dto = fullDto(id);
        if (!dto) return notFound();
        const body = json();
        // Jellyfin's item update reads every list of the item: a partial one fails.
        for (const key of ['Genres', 'Tags', 'Studios', 'People', 'ProviderIds', 'LockedFields']) {
          if (body[key] === undefined || body[key] === null) return problem(400, 'One or more validation errors occurred.', `${key} is required`);
        }
        const p = playlists.get(id);
        if (p) {
          if (typeof body.Name === 'string') p.name = body.Name;
          p.overview = typeof body.Overview === 'string' ? body.Overview : '';
        }
        return { status: 204 };
      }
      if (req.method === 'DELETE' && !m[1]) {
        if (playlists.delete(id) || items.delete(id)) return { status: 204 };
        return notFound();
      }
    }
    if (req.method === 'POST' && path === '/Playlists') {
      const body = json();
      const userId = typeof body.UserId === 'string' ? body.UserId.replace(/-/g, '') : q(req, 'userId');
      if (!userId || !users.some((u) => u.Id === userId)) return problem(400, 'One or more validation errors occurred.', 'UserId is required');
      if (typeof body.Name !== 'string' || body.Name === '') return problem(400, 'One or more validation errors occurred.', 'Name is required');
      const ids = Array.isArray(body.Ids) ? (body.Ids as string[]) : (q(req, 'ids') ?? '').split(',').filter(Boolean);
      const p: FakeJellyfinPlaylist = { id: newId(), name: body.Name, ownerId: userId, overview: '', entries: [] };
      for (const itemId of ids) if (items.has(itemId)) p.entries.push({ playlistItemId: newId(), itemId });
      playlists.set(p.id, p);
      return { body: { Id: p.id } };
    }
    if ((m = /^\/Playlists\/([0-9a-f]{32})\/Items$/i.exec(path))) {
      const p = playlists.get(m[1]!.toLowerCase());
      if (!p) return notFound();
      if (req.method === 'GET') {
        if (!userExists(q(req, 'userId'))) return notFound();
        const f = fields(req);
        const list = p.entries.map((e) => ({ ...audioDto(items.get(e.itemId)!, f), PlaylistItemId: e.playlistItemId }));
        return { body: { Items: list, TotalRecordCount: list.length, StartIndex: 0 } };
      }
      if (req.method === 'POST') {
        for (const itemId of (q(req, 'ids') ?? '').split(',').filter(Boolean)) if (items.has(itemId)) p.entries.push({ playlistItemId: newId(), itemId });
        return { status: 204 };
      }
      if (req.method === 'DELETE') {
        const gone = new Set((q(req, 'entryIds') ?? '').split(',').filter(Boolean));
        p.entries = p.entries.filter((e) => !gone.has(e.playlistItemId));
        return { status: 204 };
      }
    }
    if (req.method === 'POST' && (m = /^\/Playlists\/([0-9a-f]{32})\/Items\/([0-9a-f]{32})\/Move\/(\d+)$/i.exec(path))) {
      const p = playlists.get(m[1]!.toLowerCase());
      const at = p?.entries.findIndex((e) => e.playlistItemId === m![2]!.toLowerCase()) ?? -1;
      if (!p || at < 0) return notFound();
      const [entry] = p.entries.splice(at, 1);
      p.entries.splice(Math.min(Number(m[3]), p.entries.length), 0, entry!);
      return { status: 204 };
    }
    if (req.method === 'POST' && path === '/Library/Refresh') {
      fake.scans++;
      fake.scanning = true;
      if (scanTimer) clearTimeout(scanTimer);
      scanTimer = setTimeout(() => {
        for (const file of unscanned.splice(0)) {
          const a = { ...file, Id: newId() };
          items.set(a.Id, a);
        }
        fake.scanning = false;
        scanTimer = null;
      }, scanMs);
      return { status: 204 };
    }
    if (req.method === 'GET' && path === '/ScheduledTasks') {
      return {
        body: [
          { Name: 'Scan Media Library', State: fake.scanning ? 'Running' : 'Idle', Id: '7738148ffcd07979c7ceb148e06b3aed', Key: 'RefreshLibrary', Category: 'Library', IsHidden: false, Triggers: [] },
          { Name: 'Clean Cache Directory', State: 'Idle', Id: 'a08ad19b3a5b2c4e5a6b7c8d9e0f1a2b', Key: 'DeleteCacheFiles', Category: 'Maintenance', IsHidden: false, Triggers: [] },
        ],
      };
    }
    return notFound();
  };

  const failAfter = new Set<string>();
  const base = await startJsonFake((req, raw) => {
    const reply = handler(req, raw);
    const key = `${req.method} ${req.path.replace(/\/+$/, '')}`;
    if (failAfter.delete(key)) return problem(500, 'An error occurred while processing your request.');
    return reply;
  });
  const close = base.close;
  const fake: JellyfinFake = Object.assign(base, {
    apiKey,
    users,
    items,
    unscanned,
    playlists,
    scans: 0,
    scanning: false,
    failAfter,
    addUser(name: string, admin = false) {
      const u = { Id: newId(), Name: name, Policy: { IsAdministrator: admin } };
      users.push(u);
      return u;
    },
    addSongs(songs: Array<Omit<FakeAudio, 'Id'>>) {
      return songs.map((s) => {
        const a = { ...s, Id: newId() };
        items.set(a.Id, a);
        return a;
      });
    },
    addFiles(songs: Array<Omit<FakeAudio, 'Id'>>) {
      unscanned.push(...songs);
    },
    titles(playlistId: string) {
      return (playlists.get(playlistId)?.entries ?? []).map((e) => items.get(e.itemId)?.Name ?? '?');
    },
    byName(name: string) {
      return [...playlists.values()].filter((p) => p.name === name);
    },
    close: async () => {
      if (scanTimer) clearTimeout(scanTimer);
      await close();
    },
  });
  return fake;
}
