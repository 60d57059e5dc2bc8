import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startJsonFake } from '../../../test/fakes/http.js';
import { startSlskdFake, type SlskdFake, type SlskdFakeOptions } from '../../../test/fakes/slskd/index.js';
import { IntegrationError } from '../errors.js';
import { transferIsFinished, transferSucceeded } from './schemas.js';
import { SlskdClient, type SlskdClientOptions } from './client.js';

let fake: SlskdFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(options: SlskdFakeOptions = {}, client: Partial<SlskdClientOptions> = {}) {
  fake = await startSlskdFake(options);
  return new SlskdClient({ baseUrl: fake.url, apiKey: fake.apiKey, retryDelayMs: 10, rateLimitDelayMs: 20, ...client });
}

async function failure(call: Promise<unknown>): Promise<IntegrationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SlskdClient', () => {
  it('reads the version, the Soulseek connection and the downloads folder', async () => {
    const client = await setup();
    expect(await client.status()).toEqual({ version: '0.22.2', connected: true, serverState: 'Connected, LoggedIn' });
    expect(await client.downloadsDirectory()).toBe(fake!.downloadsDir);
    expect(fake!.state.requests.every((r) => r.headers['x-api-key'] === fake!.apiKey)).toBe(true);
  });

  it('runs a search to completion by polling, collecting responses that arrive over time', async () => {
    const client = await setup({ searchMs: 250 });
    const started = await client.startSearch({ id: 'search-1', searchText: 'Velvet Harbors Tidewater', searchTimeoutMs: 250 });
    expect(started).toMatchObject({ id: 'search-1', state: 'InProgress' });
    expect(fake!.state.requests[0]!.body).toMatchObject({ id: 'search-1', searchText: 'Velvet Harbors Tidewater', searchTimeout: 250 });
    const done = await client.waitForSearch('search-1', { pollMs: 30, timeoutMs: 5000 });
    expect(done.state).toBe('Completed, TimedOut');
    expect(done.timedOut).toBe(false);
    expect(done.responses.map((r) => r.username)).toEqual(['quickpeer', 'slow peer']);
    expect(done.responses[0]!.files[0]).toMatchObject({ filename: expect.stringContaining('\\01 - Harbor Lights.mp3'), bitRate: 320, length: 1 });
    expect(fake!.state.countOf('GET /api/v0/searches/search-1')).toBeGreaterThan(2);
    await client.deleteSearch('search-1');
    await client.deleteSearch('search-1'); // already gone: fine
  });

  it('leaves no abort listener behind on the signal of a search it polled many times', async () => {
    const client = await setup({ searchMs: 400 });
    await client.startSearch({ id: 'long', searchText: 'tidewater' });
    const controller = new AbortController();
    const done = await client.waitForSearch('long', { pollMs: 15, maxPollMs: 15, signal: controller.signal });
    expect(done.responses.length).toBeGreaterThan(0);
    expect(fake!.state.countOf('GET /api/v0/searches/long')).toBeGreaterThan(10);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('re-reads the responses when slskd reports counts before the payloads', async () => {
    const client = await setup({ searchMs: 150, responsesLagMs: 200 });
    await client.startSearch({ id: 'lag', searchText: 'tidewater' });
    const done = await client.waitForSearch('lag', { pollMs: 20 });
    expect(done.responses).toHaveLength(2);
    expect(fake!.state.countOf('GET /api/v0/searches/lag/responses')).toBeGreaterThan(1);
  });

  it('says "not slskd" when the URL answers JSON that does not describe slskd', async () => {
    const other = await startJsonFake(() => ({ body: { appName: 'Lidarr', version: '2.0' } }));
    try {
      const err = await failure(new SlskdClient({ baseUrl: other.url, apiKey: 'k' }).status());
      expect(err.kind).toBe('wrong_url');
      expect(err.message).toContain('not slskd');
    } finally {
      await other.close();
    }
  });

  it('stops waiting at its own timeout and returns what arrived', async () => {
    const client = await setup({ searchMs: 10_000 });
    await client.startSearch({ id: 's', searchText: 'velvet' });
    const partial = await client.waitForSearch('s', { pollMs: 20, timeoutMs: 150 });
    expect(partial.timedOut).toBe(true);
    expect(partial.responses.map((r) => r.username)).toContain('quickpeer');
    const stopped = await client.stopSearch('s');
    expect(stopped).toMatchObject({ state: 'Completed, Cancelled', isComplete: true });
    expect((await client.waitForSearch('s', { pollMs: 20 })).timedOut).toBe(false);
  });

  it('enqueues files and follows the transfer until a real file is on disk', async () => {
    const client = await setup({ queueMs: 20, transferMs: 500 });
    await client.startSearch({ id: 's', searchText: 'copper lanterns' });
    const found = await client.waitForSearch('s', { pollMs: 30 });
    const peer = found.responses[0]!;
    expect(peer.username).toBe('collector');
    const result = await client.enqueue(peer.username, peer.files);
    expect(result).toEqual({ enqueued: peer.files.map((f) => f.filename), failed: [] });
    const seen = new Set<string>();
    let transfers = await client.downloads();
    while (!transfers.every((t) => transferIsFinished(t.state))) {
      for (const t of transfers) seen.add(t.state);
      await sleep(25);
      transfers = await client.downloads();
    }
    expect(seen).toContain('InProgress');
    expect(transfers.every((t) => transferSucceeded(t.state) && t.percentComplete === 100)).toBe(true);
    const file = `${fake!.downloadsDir}/Copper Lanterns - Night Ferry (2021)/02 - Open Water.mp3`;
    expect(fs.statSync(file).size).toBe(peer.files[1]!.size);
    const one = await client.download('collector', transfers[0]!.id);
    expect(one.username).toBe('collector');
    await client.clearCompletedDownloads();
    expect(await client.downloads()).toEqual([]);
  });

  it('fails an enqueue only when every file was refused', async () => {
    const client = await setup();
    const partial = await client.enqueue('quickpeer', [
      { filename: fake!.state.options.users[0]!.files[0]!.filename, size: 1 },
      { filename: 'not shared.mp3', size: 1 },
    ]);
    expect(partial.failed).toEqual([{ filename: 'not shared.mp3', message: 'File not shared' }]);
    const err = await failure(client.enqueue('quickpeer', [{ filename: 'not shared.mp3', size: 1 }]));
    expect(err.kind).toBe('bad_request');
    const transfer = (await client.downloads())[0]!;
    await client.cancelDownload('quickpeer', transfer.id);
    expect(await client.downloads()).toEqual([]);
  });

  it('names 409 as "not connected to Soulseek" and does not retry it', async () => {
    const client = await setup();
    fake!.state.connected = false;
    const err = await failure(client.startSearch({ searchText: 'velvet' }));
    expect(err.status).toBe(409);
    expect(err.message).toContain('not connected to the Soulseek network');
    expect(fake!.state.countOf('POST /api/v0/searches')).toBe(1);
    expect(client.circuitOpen).toBe(false);
  });

  it('retries 429 on search creation and enqueue with back-off, then gives up as rate_limited', async () => {
    const client = await setup({}, { rateLimitRetries: 2, rateLimitDelayMs: 20 });
    fake!.faults.failNext(2, 429);
    expect((await client.startSearch({ id: 'a', searchText: 'velvet' })).id).toBe('a');
    expect(fake!.state.countOf('POST /api/v0/searches')).toBe(3);
    fake!.faults.failNext(1, 429, { 'retry-after': '0' });
    const ok = await client.enqueue('quickpeer', [{ filename: fake!.state.options.users[0]!.files[0]!.filename, size: 1 }]);
    expect(ok.enqueued).toHaveLength(1);
    fake!.faults.failNext(3, 429);
    const err = await failure(client.startSearch({ searchText: 'velvet' }));
    expect(err.kind).toBe('rate_limited');
    // A plain read is not retried on 429.
    fake!.faults.failNext(1, 429);
    expect((await failure(client.downloads())).kind).toBe('rate_limited');
  });

  it('rejects a wrong key as unauthorized without quoting the body', async () => {
    fake = await startSlskdFake();
    const client = new SlskdClient({ baseUrl: fake.url, apiKey: 'wrong', retryDelayMs: 10 });
    const err = await failure(client.status());
    expect(err).toMatchObject({ kind: 'unauthorized', status: 401 });
    fake.faults.failNext(1, 400);
    const bad = await failure(new SlskdClient({ baseUrl: fake.url, apiKey: fake.apiKey }).downloads());
    expect(bad.message).not.toContain('injected');
  });

  it('reports down, timeouts and a URL that is not slskd, and opens the breaker after repeated failures', async () => {
    const client = await setup({}, { timeoutMs: 150, breaker: { failureThreshold: 2 } });
    fake!.faults.delayMs = 400;
    expect((await failure(client.downloads())).kind).toBe('timeout');
    fake!.faults.delayMs = 0;
    fake!.faults.down = true;
    expect((await failure(client.downloads())).kind).toBe('unreachable');
    expect(client.circuitOpen).toBe(true);
    expect((await failure(client.downloads())).kind).toBe('circuit_open');
    fake!.faults.down = false;
    expect((await client.status()).connected).toBe(true); // status bypasses the breaker
    const notSlskd = new SlskdClient({ baseUrl: `${fake!.url}/web`, apiKey: fake!.apiKey });
    expect((await failure(notSlskd.status())).kind).toBe('wrong_url');
  });

  it('retries a GET once after a 5xx', async () => {
    const client = await setup();
    fake!.faults.failNext(1, 503);
    expect(await client.downloads()).toEqual([]);
    fake!.faults.failNext(2, 500);
    expect((await failure(client.downloads())).kind).toBe('server_error');
  });

  it('reads PascalCase answers with $values arrays from older builds', async () => {
    const client = await setup({ pascalCase: true, searchMs: 250, queueMs: 10, transferMs: 50 });
    expect((await client.status()).version).toBe('0.22.2');
    expect(await client.downloadsDirectory()).toBe(fake!.downloadsDir);
    await client.startSearch({ id: 'p', searchText: 'tidewater' });
    const done = await client.waitForSearch('p', { pollMs: 20 });
    expect(done.responses.map((r) => r.username)).toEqual(['quickpeer', 'slow peer']);
    expect(done.responses[0]!.files).toHaveLength(3);
    await client.enqueue('quickpeer', done.responses[0]!.files.slice(0, 1));
    await sleep(120);
    const [t] = await client.downloads();
    expect(t).toMatchObject({ username: 'quickpeer', state: 'Completed, Succeeded' });
  });
});
