import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DownloadWorkerError, downloadWorkerAvailable, setDownloadsPaused } from './downloadWorker.js';

let server: Server;
let requests: { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders }[];
let status: number;
let baseUrl: string;

beforeEach(async () => {
  requests = [];
  status = 200;
  server = createServer((request, response) => {
    requests.push({ method: request.method, url: request.url, headers: request.headers });
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status === 200 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('setDownloadsPaused', () => {
  it('stops the worker to pause and starts it to resume, with the bearer token', async () => {
    await setDownloadsPaused(baseUrl, 'session-1', true);
    await setDownloadsPaused(baseUrl, 'session-1', false);

    expect(requests.map(({ method, url, headers }) => [method, url, headers.authorization])).toEqual([
      ['POST', '/api/playlists/worker/stop', 'Bearer session-1'],
      ['POST', '/api/playlists/worker/start', 'Bearer session-1'],
    ]);
  });

  it('fails with a sign-in message when the server refuses the token', async () => {
    status = 403;
    const error = await setDownloadsPaused(baseUrl, 'session-1', true).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DownloadWorkerError);
    expect((error as DownloadWorkerError).status).toBe(403);
    expect((error as DownloadWorkerError).message).toBe('Sign in to Tonearm as an administrator to pause or resume downloads.');
  });

  it('fails with the status for other errors', async () => {
    status = 500;
    await expect(setDownloadsPaused(baseUrl, 'session-1', false)).rejects.toThrow(
      'The server answered 500 when asked to pause or resume downloads.',
    );
  });
});

describe('downloadWorkerAvailable', () => {
  it('reads the server\'s OpenAPI paths: true only when both worker routes exist', async () => {
    const serve = async (paths: Record<string, unknown> | null, code = 200) => {
      const srv = createServer((_req, res) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ paths })));
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
      try {
        return await downloadWorkerAvailable(url);
      } finally {
        await new Promise<void>((resolve) => srv.close(() => resolve()));
      }
    };
    expect(await serve({ '/api/playlists/worker/stop': {}, '/api/playlists/worker/start': {} })).toBe(true);
    expect(await serve({ '/api/health': {} })).toBe(false);
    expect(await serve(null, 500)).toBe(false);
    expect(await downloadWorkerAvailable('http://127.0.0.1:1')).toBe(false);
  });
});
