import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FakeFaults } from '../http.js';
import { FakeDownloads, type FakeDownload, type FakeFailure } from '../usenet/downloads.js';
import { parseNzb } from '../usenet/nzb.js';

/**
 * A fake NZBGet (JSON-RPC at `/jsonrpc`, external-services.md (k)): HTTP basic auth (401 for wrong
 * credentials), `version`, `status`, `config`, `append` (11 positional params; fetches the NZB
 * URL, or takes base64 content and answers 0 for content that is no NZB), `listgroups` with the
 * download progressing over time (QUEUED → DOWNLOADING → PP_QUEUED → UNPACKING → MOVING, the
 * group staying listed while post-processed, as NZBGet does), `history` newest first with
 * `SUCCESS/ALL` and `DestDir` holding a real MP3 (`FinalDir` empty, as without a moving script), or
 * the failure statuses `FAILURE/HEALTH|PAR|UNPACK`, `DELETED/MANUAL`, and `Kind:"URL"` with
 * `FAILURE/FETCH` for an NZB that could not be fetched; `editqueue` deletes. NZBGet pages neither
 * list: both answer everything they hold. Faults: slow, 5xx, down (FakeFaults).
 */

/** The history status and the per-step fields NZBGet reports for each way a download ends. */
const failureFields: Record<FakeFailure, { Status: string; ParStatus: string; UnpackStatus: string; DeleteStatus: string; Health: number }> = {
  health: { Status: 'FAILURE/HEALTH', ParStatus: 'NONE', UnpackStatus: 'NONE', DeleteStatus: 'HEALTH', Health: 620 },
  par: { Status: 'FAILURE/PAR', ParStatus: 'FAILURE', UnpackStatus: 'NONE', DeleteStatus: 'NONE', Health: 940 },
  unpack: { Status: 'FAILURE/UNPACK', ParStatus: 'SUCCESS', UnpackStatus: 'FAILURE', DeleteStatus: 'NONE', Health: 1000 },
  deleted: { Status: 'DELETED/MANUAL', ParStatus: 'NONE', UnpackStatus: 'NONE', DeleteStatus: 'MANUAL', Health: 1000 },
  fetch: { Status: 'FAILURE/FETCH', ParStatus: 'NONE', UnpackStatus: 'NONE', DeleteStatus: 'NONE', Health: 1000 },
};
export interface FakeNzbget {
  url: string;
  username: string;
  password: string;
  downloads: FakeDownloads;
  faults: FakeFaults;
  calls: Array<{ method: string; params: unknown[] }>;
  close(): Promise<void>;
}

export async function startFakeNzbget(options: { completedDir: string; username?: string; password?: string }): Promise<FakeNzbget> {
  const username = options.username ?? 'nzbget';
  const password = options.password ?? 'tegbzn6789';
  const downloads = new FakeDownloads(options.completedDir);
  const faults = new FakeFaults();
  const calls: FakeNzbget['calls'] = [];
  const sockets = new Set<Socket>();

  const groupStatus = (j: FakeDownload) => {
    const stage = downloads.stage(j);
    if (stage !== 'post-processing') return stage === 'downloading' ? 'DOWNLOADING' : 'QUEUED';
    const pp = downloads.postProgress(j);
    return pp < 1 / 3 ? 'PP_QUEUED' : pp < 2 / 3 ? 'UNPACKING' : 'MOVING';
  };
  const group = (j: FakeDownload) => {
    const progress = downloads.progress(j);
    const mb = Math.round(j.sizeBytes / 1_000_000);
    return {
      NZBID: j.id,
      NZBName: j.name,
      NZBFilename: `${j.name}.nzb`,
      Kind: 'NZB',
      Category: j.category,
      Status: groupStatus(j),
      FileSizeMB: mb,
      RemainingSizeMB: Math.round(mb * (1 - progress)),
      DownloadedSizeMB: Math.round(mb * progress),
      MaxPriority: j.priority,
      DestDir: `${options.completedDir}/../intermediate/${j.name}.#${j.id}`,
      FinalDir: '',
    };
  };
  const historyItem = (j: FakeDownload) => {
    const done = j.finished!;
    const fields = done.ok
      ? { Status: 'SUCCESS/ALL', ParStatus: 'SUCCESS', UnpackStatus: 'SUCCESS', DeleteStatus: 'NONE', Health: 1000 }
      : failureFields[done.failure ?? 'par'];
    return {
      NZBID: j.id,
      ID: j.id,
      Name: j.name,
      Kind: done.failure === 'fetch' ? 'URL' : 'NZB',
      Category: j.category,
      ...fields,
      MoveStatus: done.ok ? 'SUCCESS' : 'NONE',
      // Where the files went; NZBGet fills FinalDir only when a script moved them elsewhere.
      DestDir: done.folder ?? (done.failure === 'fetch' ? '' : `${options.completedDir}/../intermediate/${j.name}.#${j.id}`),
      FinalDir: '',
      FileSizeMB: done.failure === 'fetch' ? 0 : Math.max(1, Math.round(j.sizeBytes / 1_000_000)),
      HistoryTime: Math.floor(done.at / 1000),
    };
  };

  async function rpc(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { name: string; code: number; message: string } }> {
    downloads.settle();
    switch (method) {
      case 'version':
        return { result: '24.3' };
      case 'status':
        return { result: { DownloadRate: downloads.queued().length ? 2_000_000 : 0, DownloadPaused: false, RemainingSizeMB: 0, ServerStandBy: downloads.queued().length === 0 } };
      case 'config':
        return { result: [{ Name: 'DestDir', Value: options.completedDir }, { Name: 'MainDir', Value: options.completedDir }] };
      case 'append': {
        if (params.length !== 11 || typeof params[0] !== 'string' || typeof params[1] !== 'string') {
          return { error: { name: 'JSONRPCError', code: 1, message: 'Invalid parameter' } };
        }
        // The second parameter is the NZB's URL, or its content in base64; content that is no NZB is refused with 0.
        if (/^https?:\/\//.test(params[1])) return { result: (await downloads.add(params[1], params[0], String(params[2] ?? ''), Number(params[3] ?? 0))).id };
        const content = Buffer.from(params[1], 'base64').toString('utf8');
        if (!parseNzb(content)) return { result: 0 };
        return { result: downloads.addContent(content, params[0], String(params[2] ?? ''), Number(params[3] ?? 0)).id };
      }
      case 'listgroups':
        return { result: downloads.queued().map(group) };
      case 'history':
        return { result: downloads.history().sort((a, b) => b.finished!.at - a.finished!.at || b.id - a.id).map(historyItem) };
      case 'editqueue': {
        const [command, , ids] = params as [string, string, number[]];
        const pool = command === 'GroupFinalDelete' ? downloads.queued() : command === 'HistoryFinalDelete' ? downloads.history() : null;
        if (!pool || !Array.isArray(ids)) return { result: false };
        let ok = true;
        for (const id of ids) ok = (pool.some((j) => j.id === id) && downloads.remove(id, true)) && ok;
        return { result: ok };
      }
      default:
        return { error: { name: 'JSONRPCError', code: -32601, message: 'Method not found' } };
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse) {
    if (faults.down) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    const failure = faults.takeFailure();
    if (failure) return void res.writeHead(failure.status ?? 500, { 'content-type': 'text/plain' }).end('injected failure');
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/\/+$/, '');
    if (path !== '/jsonrpc') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>NZBGet</body></html>');
    const expected = 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
    if (req.headers.authorization !== expected) {
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="NZBGet"', 'content-type': 'text/plain' }).end('Unauthorized');
    }
    let body: { method?: unknown; params?: unknown; id?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '1.1', error: { name: 'JSONRPCError', code: -32700, message: 'Parse error' } }));
    }
    const method = String(body.method ?? '');
    const params = Array.isArray(body.params) ? body.params : [];
    calls.push({ method, params });
    const out = await rpc(method, params);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '1.1', id: body.id ?? null, ...out }));
  }

  const server = createServer((req, res) => void answer(req, res).catch(() => res.headersSent || res.writeHead(500).end()));
  server.on('connection', (socket) => {
    if (faults.down) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    username,
    password,
    downloads,
    faults,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
