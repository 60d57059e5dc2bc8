import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A Navidrome stand-in speaking the Subsonic API on 127.0.0.1: token or password auth checked
 * (error 40 otherwise), `ping` and `getLicense` answered with Navidrome's real envelope, an
 * in-memory song index (`search3`, empty query = every song, paged), playlists (`getPlaylists`,
 * `getPlaylist`, `createPlaylist` with repeated `songId`, `updatePlaylist` with repeated
 * `songIdToAdd`/`songIndexToRemove`, `deletePlaylist`) and a library scan (`startScan`,
 * `getScanStatus`) that indexes the songs added with `addFiles` after `scanMs`.
 */
export interface NavidromeFakeOptions {
  username?: string;
  password?: string;
  serverVersion?: string;
  /** How long a scan runs (default 50 ms). */
  scanMs?: number;
  /** false: token authentication is refused with error 41 (as for users with external auth). */
  tokenAuth?: boolean;
}

export interface FakeSong {
  id: string;
  title: string;
  artist: string;
  album: string;
  /** Relative to the music folder, as Navidrome reports it. */
  path: string;
  duration: number;
  track: number;
}

export interface FakePlaylist {
  id: string;
  name: string;
  comment: string;
  owner: string;
  public: boolean;
  songIds: string[];
  created: string;
  changed: string;
}

export interface NavidromeFakeState {
  /** Every request's method name and query, in order (tokens included, for auth tests). */
  readonly requests: Array<{ method: string; query: Record<string, string>; all: Record<string, string[]> }>;
  /** Requests wait this long before the answer (0 turns it off). */
  delayMs: number;
  /** Indexed songs by id. */
  readonly songs: Map<string, FakeSong>;
  /** Files on disk the next scan indexes. */
  readonly unscanned: Array<Omit<FakeSong, 'id'>>;
  readonly playlists: Map<string, FakePlaylist>;
  scanning: boolean;
  scans: number;
  /** The server is down: every connection is reset. */
  down: boolean;
  /** Methods whose next call is carried out and then answered by a reset connection (a crash mid-answer). */
  readonly dropAnswer: Set<string>;
}

export interface NavidromeFake {
  url: string;
  port: number;
  username: string;
  password: string;
  state: NavidromeFakeState;
  /** Songs already indexed; returns their ids. */
  addSongs(songs: Array<Omit<FakeSong, 'id'>>): string[];
  /** Files the next scan indexes. */
  addFiles(files: Array<Omit<FakeSong, 'id'>>): void;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startNavidromeFake(options: NavidromeFakeOptions = {}): Promise<NavidromeFake> {
  const username = options.username ?? 'admin';
  const password = options.password ?? 'secret';
  const state: NavidromeFakeState = {
    requests: [],
    delayMs: 0,
    songs: new Map(),
    unscanned: [],
    playlists: new Map(),
    scanning: false,
    scans: 0,
    down: false,
    dropAnswer: new Set(),
  };
  const scanMs = options.scanMs ?? 50;
  const newId = () => randomBytes(11).toString('hex');
  const stamp = () => new Date().toISOString();
  const base = { version: '1.16.1', type: 'navidrome', serverVersion: options.serverVersion ?? '0.53.3', openSubsonic: true };
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const all: Record<string, string[]> = {};
    for (const [k, v] of url.searchParams) (all[k] ??= []).push(v);
    const method = /^\/rest\/([A-Za-z0-9]+)(?:\.view)?$/.exec(url.pathname)?.[1];
    const answer = (payload: Record<string, unknown>) => {
      if (method && state.dropAnswer.delete(method)) {
        req.socket.destroy();
        return;
      }
      const json = query.f === 'json' || query.f === 'jsonp';
      const body = json
        ? JSON.stringify({ 'subsonic-response': { ...base, ...payload } })
        : xmlEnvelope({ ...base, ...payload });
      const send = () => res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/xml' }).end(body);
      if (state.delayMs > 0) setTimeout(send, state.delayMs);
      else send();
    };
    const fail = (code: number, message: string) => answer({ status: 'failed', error: { code, message } });

    if (!method) {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html><title>Navidrome</title></html>');
      return;
    }
    state.requests.push({ method, query, all });
    if (!query.u || !(query.p || (query.t && query.s))) return fail(10, 'Missing required parameter');
    if (query.t && options.tokenAuth === false) return fail(41, 'Token authentication not supported');
    const plain = query.p?.startsWith('enc:') ? Buffer.from(query.p.slice(4), 'hex').toString('utf8') : query.p;
    const valid = query.u === username && (query.t ? query.t === md5(password + query.s) : plain === password);
    if (!valid) return fail(40, 'Wrong username or password');
    switch (method) {
      case 'ping':
        return answer({ status: 'ok' });
      case 'getLicense':
        return answer({ status: 'ok', license: { valid: true } });
      case 'search3': {
        if (query.query === undefined) return fail(10, 'required \'query\' parameter is missing');
        const q = query.query.replace(/^""$/, '').trim().toLowerCase();
        const words = q.split(/\s+/).filter(Boolean);
        const hits = [...state.songs.values()].filter((song) => {
          const text = `${song.title} ${song.artist} ${song.album}`.toLowerCase();
          return words.every((w) => text.includes(w));
        });
        const count = Number(query.songCount ?? 20);
        const offset = Number(query.songOffset ?? 0);
        return answer({ status: 'ok', searchResult3: { song: hits.slice(offset, offset + count).map(songJson) } });
      }
      case 'getPlaylists':
        return answer({
          status: 'ok',
          playlists: { playlist: [...state.playlists.values()].filter((p) => p.owner === username || p.public).map(playlistJson) },
        });
      case 'getPlaylist': {
        const p = state.playlists.get(query.id ?? '');
        if (!p) return fail(70, 'playlist not found');
        return answer({ status: 'ok', playlist: { ...playlistJson(p), entry: p.songIds.map((id) => songJson(state.songs.get(id)!)) } });
      }
      case 'createPlaylist': {
        const songIds = all.songId ?? [];
        if (songIds.some((id) => !state.songs.has(id))) return fail(70, 'song not found');
        let p = query.playlistId ? state.playlists.get(query.playlistId) : undefined;
        if (query.playlistId && !p) return fail(70, 'playlist not found');
        if (!p) {
          if (!query.name) return fail(10, 'required \'name\' parameter is missing');
          p = { id: newId(), name: query.name, comment: '', owner: username, public: false, songIds: [], created: stamp(), changed: stamp() };
          state.playlists.set(p.id, p);
        }
        p.songIds = [...songIds];
        p.changed = stamp();
        return answer({ status: 'ok', playlist: { ...playlistJson(p), entry: p.songIds.map((id) => songJson(state.songs.get(id)!)) } });
      }
      case 'updatePlaylist': {
        const p = state.playlists.get(query.playlistId ?? '');
        if (!p) return fail(70, 'playlist not found');
        const add = all.songIdToAdd ?? [];
        if (add.some((id) => !state.songs.has(id))) return fail(70, 'song not found');
        if (query.name !== undefined) p.name = query.name;
        if (query.comment !== undefined) p.comment = query.comment;
        if (query.public !== undefined) p.public = query.public === 'true';
        // Navidrome removes by index first, then appends.
        const remove = new Set((all.songIndexToRemove ?? []).map(Number));
        p.songIds = p.songIds.filter((_, i) => !remove.has(i)).concat(add);
        p.changed = stamp();
        return answer({ status: 'ok' });
      }
      case 'deletePlaylist': {
        if (!state.playlists.delete(query.id ?? '')) return fail(70, 'playlist not found');
        return answer({ status: 'ok' });
      }
      case 'startScan': {
        if (!state.scanning) {
          state.scanning = true;
          state.scans++;
          setTimeout(() => {
            for (const file of state.unscanned.splice(0)) {
              const id = newId();
              state.songs.set(id, { id, ...file });
            }
            state.scanning = false;
          }, scanMs).unref();
        }
        return answer({ status: 'ok', scanStatus: scanJson() });
      }
      case 'getScanStatus':
        return answer({ status: 'ok', scanStatus: scanJson() });
      default:
        return fail(0, `The fake does not implement ${method}`);
    }
  });
  const songJson = (song: FakeSong) => ({
    id: song.id,
    parent: 'dir',
    isDir: false,
    title: song.title,
    album: song.album,
    artist: song.artist,
    track: song.track,
    duration: song.duration,
    path: song.path,
    suffix: song.path.split('.').pop(),
    type: 'music',
  });
  const playlistJson = (p: FakePlaylist) => ({
    id: p.id,
    name: p.name,
    comment: p.comment,
    owner: p.owner,
    public: p.public,
    songCount: p.songIds.length,
    duration: p.songIds.reduce((sum, id) => sum + (state.songs.get(id)?.duration ?? 0), 0),
    created: p.created,
    changed: p.changed,
  });
  const scanJson = () => ({ scanning: state.scanning, count: state.songs.size, folderCount: 1, lastScan: stamp() });

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    username,
    password,
    state,
    addSongs(songs) {
      return songs.map((file) => {
        const id = newId();
        state.songs.set(id, { id, ...file });
        return id;
      });
    },
    addFiles(files) {
      state.unscanned.push(...files);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function xmlEnvelope(fields: Record<string, unknown>): string {
  const { error, license, ...attributes } = fields;
  const attrs = Object.entries(attributes).map(([k, v]) => ` ${k}="${String(v)}"`).join('');
  const inner = [
    error ? `<error code="${(error as { code: number }).code}" message="${(error as { message: string }).message}"/>` : '',
    license ? '<license valid="true"/>' : '',
  ].join('');
  return `<?xml version="1.0" encoding="UTF-8"?><subsonic-response xmlns="http://subsonic.org/restapi"${attrs}>${inner}</subsonic-response>`;
}
