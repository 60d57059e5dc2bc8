import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { announced, mp3Template, sharedSize, writeShared, type FakeSlskdFile } from './files.js';
import { FakeFaults, type SeenRequest } from '../http.js';

export type { FakeSlskdFile } from './files.js';

/**
 * A fake slskd (api/v0) on 127.0.0.1:0: API key check, searches whose peer responses arrive over
 * time, downloads that queue, progress and on completion write the shared file (files.ts) into the
 * downloads folder (`<downloads>/<sharer's folder>/<file>`, as slskd does), 409 while "offline
 * from Soulseek", 429 past the concurrent-search limit, and the shared faults (slow, down, injected
 * statuses).
 */

export interface FakeSlskdUser {
  username: string;
  /** Milliseconds after a search starts before this peer's answer arrives. */
  delayMs: number;
  uploadSpeed: number;
  queueLength: number;
  hasFreeUploadSlot: boolean;
  files: FakeSlskdFile[];
  /** This peer's transfer time, instead of the fake's `transferMs`. */
  transferMs?: number;
}

export interface SlskdFakeOptions {
  apiKey?: string;
  downloadsDir?: string;
  users?: FakeSlskdUser[];
  /** A search completes ("Completed, TimedOut") this long after it started; default 300 ms. */
  searchMs?: number;
  /** A download waits "Queued, Remotely" this long, then transfers for `transferMs`; defaults 40 / 300 ms. */
  queueMs?: number;
  transferMs?: number;
  /** Answer as older builds did: PascalCase keys and `{"$values": [...]}` arrays. */
  pascalCase?: boolean;
  version?: string;
  maxConcurrentSearches?: number;
  /** `/responses` stays empty this long after completion while the counts are set, as slskd sometimes does; default 0. */
  responsesLagMs?: number;
  /**
   * Seconds of audio in every written file (64 kbit/s mp3, about 8 KB a second; 128 s is about 1 MB);
   * default 1. Give the files' `length` the same value so candidates announce the real duration.
   */
  templateSeconds?: number;
}

interface Search {
  id: string;
  searchText: string;
  startedAt: number;
  cancelled: boolean;
}

interface Transfer {
  id: string;
  username: string;
  file: FakeSlskdFile;
  size: number;
  requestedAt: number;
  cancelled: boolean;
  written: boolean;
  timer?: NodeJS.Timeout;
}

const album = (artist: string, title: string, year: string, tracks: string[], root: string, bitRate: number): FakeSlskdFile[] =>
  tracks.map((track, i) => ({
    filename: `${root}\\${artist}\\${artist} - ${title} (${year})\\${String(i + 1).padStart(2, '0')} - ${track}.mp3`,
    bitRate,
    length: 1,
    tags: { artist, albumArtist: artist, album: title, title: track, track: i + 1, date: year },
  }));

export function defaultUsers(): FakeSlskdUser[] {
  const velvet = ['Harbor Lights', 'Salt and Iron', 'Low Tide'];
  return [
    { username: 'quickpeer', delayMs: 0, uploadSpeed: 2_000_000, queueLength: 0, hasFreeUploadSlot: true, files: album('Velvet Harbors', 'Tidewater', '2019', velvet, '@@music', 320) },
    { username: 'slow peer', delayMs: 120, uploadSpeed: 150_000, queueLength: 4, hasFreeUploadSlot: false, files: album('Velvet Harbors', 'Tidewater', '2019', velvet, 'shared', 192) },
    { username: 'collector', delayMs: 200, uploadSpeed: 800_000, queueLength: 1, hasFreeUploadSlot: true, files: album('Copper Lanterns', 'Night Ferry', '2021', ['Departure', 'Open Water'], 'D:\\Audio', 256) },
  ];
}

export class SlskdFakeState {
  readonly searches = new Map<string, Search>();
  readonly transfers: Transfer[] = [];
  /** False: search creation answers 409, as slskd does while not connected to Soulseek. */
  connected = true;
  /** Files whose downloads end "Completed, Errored". */
  readonly erroredFiles = new Set<string>();
  readonly requests: Array<SeenRequest & { body: unknown }> = [];
  /** When set, `/options` reports this downloads folder instead of the real one (a client pointing the server elsewhere). */
  reportDownloadsDir: string | null = null;

  constructor(readonly options: Required<Omit<SlskdFakeOptions, 'pascalCase'>> & { pascalCase: boolean }) {}

  template(): Buffer {
    return mp3Template(this.options.templateSeconds);
  }

  countOf(call: string): number {
    return this.requests.filter((r) => `${r.method} ${r.path}` === call).length;
  }

  private matches(search: Search, file: FakeSlskdFile): boolean {
    const words = search.searchText.toLowerCase().split(/\s+/).filter(Boolean);
    return words.every((w) => file.filename.toLowerCase().includes(w));
  }

  searchView(search: Search, includeResponses: boolean) {
    const elapsed = Date.now() - search.startedAt;
    const complete = search.cancelled || elapsed >= this.options.searchMs;
    const responses = this.options.users
      // Peers answering after the search ended are not heard.
      .filter((u) => u.delayMs <= Math.min(elapsed, search.cancelled ? elapsed : this.options.searchMs))
      .map((u) => ({ user: u, files: u.files.filter((f) => this.matches(search, f)) }))
      .filter((r) => r.files.length > 0)
      .map(({ user, files }) => ({
        username: user.username,
        token: 1,
        fileCount: files.length,
        lockedFileCount: 0,
        hasFreeUploadSlot: user.hasFreeUploadSlot,
        uploadSpeed: user.uploadSpeed,
        queueLength: user.queueLength,
        files: files.map((f) => ({
          filename: f.filename,
          ...announced(f, this.options.templateSeconds),
          length: f.length,
          isLocked: false,
          code: 1,
        })),
        lockedFiles: [],
      }));
    return {
      id: search.id,
      searchText: search.searchText,
      token: 1,
      state: search.cancelled ? 'Completed, Cancelled' : complete ? 'Completed, TimedOut' : 'InProgress',
      isComplete: complete,
      fileCount: responses.reduce((n, r) => n + r.fileCount, 0),
      lockedFileCount: 0,
      responseCount: responses.length,
      startedAt: new Date(search.startedAt).toISOString(),
      endedAt: complete ? new Date(search.startedAt + Math.min(elapsed, this.options.searchMs)).toISOString() : null,
      responses: includeResponses ? responses : [],
    };
  }

  /** Where a finished download lands: `<downloads>/<sharer's last folder>/<file name>`. */
  localPath(file: FakeSlskdFile): string {
    const parts = file.filename.split('\\');
    return path.join(this.options.downloadsDir, parts.at(-2) ?? '', parts.at(-1)!);
  }

  private finish(t: Transfer): void {
    if (t.written || t.cancelled || this.erroredFiles.has(t.file.filename)) return;
    writeShared(this.localPath(t.file), t.file, this.options.templateSeconds);
    t.written = true;
  }

  transferView(t: Transfer) {
    const elapsed = Date.now() - t.requestedAt;
    const { queueMs } = this.options;
    const transferMs = this.transferMsOf(t.username);
    let state: string;
    let bytes = 0;
    if (t.cancelled) state = 'Completed, Cancelled';
    else if (elapsed < queueMs) state = 'Queued, Remotely';
    else if (elapsed < queueMs + transferMs) {
      state = 'InProgress';
      bytes = Math.floor((t.size * (elapsed - queueMs)) / transferMs);
    } else if (this.erroredFiles.has(t.file.filename)) state = 'Completed, Errored';
    else {
      this.finish(t);
      state = 'Completed, Succeeded';
      bytes = t.size;
    }
    return {
      id: t.id,
      username: t.username,
      direction: 'Download',
      filename: t.file.filename,
      size: t.size,
      startOffset: 0,
      state,
      requestedAt: new Date(t.requestedAt).toISOString(),
      enqueuedAt: new Date(t.requestedAt).toISOString(),
      startedAt: elapsed >= queueMs ? new Date(t.requestedAt + queueMs).toISOString() : null,
      endedAt: state.startsWith('Completed') ? new Date().toISOString() : null,
      bytesTransferred: bytes,
      bytesRemaining: t.size - bytes,
      percentComplete: t.size === 0 ? 100 : Math.round((bytes / t.size) * 1000) / 10,
      averageSpeed: transferMs > 0 ? t.size / (transferMs / 1000) : 0,
      placeInQueue: state === 'Queued, Remotely' ? 1 : null,
      ...(state === 'Completed, Errored' && { exception: 'Transfer failed: remote connection closed' }),
    };
  }

  transferMsOf(username: string): number {
    return this.options.users.find((u) => u.username === username)?.transferMs ?? this.options.transferMs;
  }

  enqueue(username: string, wanted: Array<{ filename?: unknown; size?: unknown }>) {
    const user = this.options.users.find((u) => u.username === username);
    const enqueued: Transfer[] = [];
    const failed: Array<{ filename: string; message: string }> = [];
    for (const w of wanted) {
      const file = user?.files.find((f) => f.filename === w.filename);
      if (!file) {
        failed.push({ filename: String(w.filename), message: 'File not shared' });
        continue;
      }
      const t: Transfer = { id: randomUUID(), username, file, size: sharedSize(file, this.options.templateSeconds), requestedAt: Date.now(), cancelled: false, written: false };
      // Completion writes the file even when nobody polls, as slskd does.
      t.timer = setTimeout(() => this.finish(t), this.options.queueMs + this.transferMsOf(username));
      this.transfers.push(t);
      enqueued.push(t);
    }
    return { enqueued: enqueued.map((t) => this.transferView(t)), failed };
  }

  activeSearches(): number {
    return [...this.searches.values()].filter((s) => !this.searchView(s, false).isComplete).length;
  }

  stopTimers(): void {
    for (const t of this.transfers) clearTimeout(t.timer);
  }
}

export interface SlskdFake {
  url: string;
  apiKey: string;
  downloadsDir: string;
  state: SlskdFakeState;
  faults: FakeFaults;
  close(): Promise<void>;
}

function toPascal(value: unknown): unknown {
  if (Array.isArray(value)) return { $id: '1', $values: value.map(toPascal) };
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.charAt(0).toUpperCase() + k.slice(1), toPascal(v)]));
}

export async function startSlskdFake(options: SlskdFakeOptions = {}): Promise<SlskdFake> {
  const downloadsDir = options.downloadsDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'slskd-fake-downloads-'));
  // slskd creates its downloads folder when it starts.
  fs.mkdirSync(downloadsDir, { recursive: true });
  const state = new SlskdFakeState({
    apiKey: options.apiKey ?? 'slskd-key',
    downloadsDir,
    users: options.users ?? defaultUsers(),
    searchMs: options.searchMs ?? 300,
    queueMs: options.queueMs ?? 40,
    transferMs: options.transferMs ?? 300,
    pascalCase: options.pascalCase ?? false,
    version: options.version ?? '0.22.2',
    maxConcurrentSearches: options.maxConcurrentSearches ?? 2,
    responsesLagMs: options.responsesLagMs ?? 0,
    templateSeconds: options.templateSeconds ?? 1,
  });
  state.template();
  const faults = new FakeFaults();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void answer(req, res));
  server.on('connection', (socket) => {
    if (faults.down) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const send = (res: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) return void res.writeHead(status).end();
    const shaped = state.options.pascalCase ? toPascal(body) : body;
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(shaped));
  };

  async function answer(req: IncomingMessage, res: ServerResponse) {
    if (faults.down) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return send(res, 400, { title: 'invalid JSON' });
    }
    const method = req.method ?? 'GET';
    const p = url.pathname.replace(/\/+$/, '');
    state.requests.push({ at: Date.now(), method, path: p, query: url.searchParams, headers: req.headers, body });
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    const injected = faults.takeFailure();
    if (injected) {
      res.writeHead(injected.status ?? 500, { 'content-type': 'application/json', ...injected.headers }).end(JSON.stringify(injected.body));
      return;
    }
    if (!p.toLowerCase().startsWith('/api/v0/')) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>slskd</title>');
      return;
    }
    if (state.options.apiKey && req.headers['x-api-key'] !== state.options.apiKey) return send(res, 401);
    const parts = p.slice('/api/v0/'.length).split('/').map(decodeURIComponent);
    const route = `${method} ${parts[0]?.toLowerCase()}`;

    if (route === 'GET application') {
      return send(res, 200, {
        version: { full: state.options.version, current: state.options.version, isUpdateAvailable: false },
        server: state.connected
          ? { address: 'vps.slsknet.org:2271', state: 'Connected, LoggedIn', isConnected: true, isLoggedIn: true, isTransitioning: false }
          : { address: null, state: 'Disconnected', isConnected: false, isLoggedIn: false, isTransitioning: false },
        user: { username: 'tonearm-fake' },
      });
    }
    if (route === 'GET options') {
      const reported = state.reportDownloadsDir ?? downloadsDir;
      return send(res, 200, { directories: { downloads: reported, incomplete: path.join(reported, '.incomplete') }, soulseek: { listenPort: 50300 } });
    }

    if (parts[0]?.toLowerCase() === 'searches') {
      const id = parts[1];
      if (method === 'POST' && !id) {
        const b = (body ?? {}) as { id?: unknown; searchText?: unknown };
        if (typeof b.searchText !== 'string' || b.searchText.trim() === '') return send(res, 400, { errors: { searchText: ['required'] } });
        if (!state.connected) return send(res, 409, 'The server is not connected');
        if (state.activeSearches() >= state.options.maxConcurrentSearches) return send(res, 429);
        const searchId = typeof b.id === 'string' ? b.id : randomUUID();
        if (state.searches.has(searchId)) return send(res, 409, 'A search with this id exists');
        const search = { id: searchId, searchText: b.searchText, startedAt: Date.now(), cancelled: false };
        state.searches.set(searchId, search);
        return send(res, 200, state.searchView(search, false));
      }
      if (method === 'GET' && !id) return send(res, 200, [...state.searches.values()].map((s) => state.searchView(s, false)));
      const search = id ? state.searches.get(id) : undefined;
      if (!search) return send(res, 404);
      if (method === 'GET' && parts[2]?.toLowerCase() === 'responses') {
        const lagging = Date.now() - search.startedAt < state.options.searchMs + state.options.responsesLagMs;
        return send(res, 200, lagging && state.options.responsesLagMs > 0 ? [] : state.searchView(search, true).responses);
      }
      if (method === 'GET' && !parts[2]) return send(res, 200, state.searchView(search, url.searchParams.get('includeResponses') === 'true'));
      if (method === 'DELETE' && !parts[2]) {
        state.searches.delete(search.id);
        return send(res, 204);
      }
      if (method === 'PUT' && !parts[2]) {
        search.cancelled = true;
        return send(res, 200, state.searchView(search, false));
      }
    }

    if (parts[0]?.toLowerCase() === 'transfers' && parts[1]?.toLowerCase() === 'downloads') {
      const [, , username, id] = parts;
      if (method === 'GET' && !username) {
        const byUser = new Map<string, Map<string, unknown[]>>();
        for (const t of state.transfers) {
          const dirs = byUser.get(t.username) ?? new Map<string, unknown[]>();
          const dir = t.file.filename.split('\\').slice(0, -1).join('\\');
          dirs.set(dir, [...(dirs.get(dir) ?? []), state.transferView(t)]);
          byUser.set(t.username, dirs);
        }
        return send(res, 200, [...byUser].map(([user, dirs]) => ({ username: user, directories: [...dirs].map(([directory, files]) => ({ directory, fileCount: files.length, files })) })));
      }
      if (method === 'DELETE' && username === 'all' && id === 'completed') {
        for (let i = state.transfers.length - 1; i >= 0; i--) if (state.transferView(state.transfers[i]!).state.startsWith('Completed')) state.transfers.splice(i, 1);
        return send(res, 204);
      }
      if (method === 'POST' && username && !id) {
        if (!Array.isArray(body)) return send(res, 400, { title: 'expected an array of files' });
        return send(res, 201, state.enqueue(username, body as Array<{ filename?: unknown }>));
      }
      const t = state.transfers.find((x) => x.username === username && x.id === id);
      if (!t) return send(res, 404);
      if (method === 'GET') return send(res, 200, state.transferView(t));
      if (method === 'DELETE') {
        t.cancelled = true;
        clearTimeout(t.timer);
        if (url.searchParams.get('remove') === 'true') state.transfers.splice(state.transfers.indexOf(t), 1);
        return send(res, 204);
      }
    }
    return send(res, 404);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: state.options.apiKey,
    downloadsDir,
    state,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        state.stopTimers();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
