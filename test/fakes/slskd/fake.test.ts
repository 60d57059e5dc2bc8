import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultUsers, startSlskdFake, type SlskdFake } from './index.js';

let fake: SlskdFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(method: string, pathname: string, body?: unknown, apiKey = fake!.apiKey) {
  const res = await fetch(fake!.url + pathname, {
    method,
    headers: { 'x-api-key': apiKey, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

describe('slskd fake', () => {
  it('checks the API key', async () => {
    fake = await startSlskdFake();
    expect((await call('GET', '/api/v0/application', undefined, 'wrong')).status).toBe(401);
    const app = await call('GET', '/api/v0/application');
    expect(app.body).toMatchObject({ version: { current: '0.22.2' }, server: { isConnected: true } });
  });

  it('lets peer responses arrive over time and completes the search', async () => {
    const users = defaultUsers().map((u) => (u.username === 'slow peer' ? { ...u, delayMs: 400 } : u));
    fake = await startSlskdFake({ searchMs: 600, users });
    const created = await call('POST', '/api/v0/searches', { id: 'abc', searchText: 'velvet harbors tidewater' });
    expect(created.body).toMatchObject({ id: 'abc', state: 'InProgress', isComplete: false });
    const early = await call('GET', '/api/v0/searches/abc?includeResponses=true');
    expect(early.body.responses.map((r: any) => r.username)).toEqual(['quickpeer']);
    await sleep(650);
    const done = await call('GET', '/api/v0/searches/abc?includeResponses=true');
    expect(done.body).toMatchObject({ state: 'Completed, TimedOut', isComplete: true, responseCount: 2, fileCount: 6 });
    expect(done.body.responses[1]).toMatchObject({ username: 'slow peer', hasFreeUploadSlot: false });
    expect(done.body.responses[0].files[0]).toMatchObject({ bitRate: 320, length: 1, extension: 'mp3' });
    expect((await call('GET', '/api/v0/searches/abc/responses')).body).toHaveLength(2);
    expect((await call('DELETE', '/api/v0/searches/abc')).status).toBe(204);
    expect((await call('GET', '/api/v0/searches/abc')).status).toBe(404);
  });

  it('answers 409 while offline and 429 past the concurrent search limit', async () => {
    fake = await startSlskdFake({ maxConcurrentSearches: 1 });
    fake.state.connected = false;
    expect((await call('POST', '/api/v0/searches', { searchText: 'x' })).status).toBe(409);
    fake.state.connected = true;
    expect((await call('POST', '/api/v0/searches', { searchText: 'x' })).status).toBe(200);
    expect((await call('POST', '/api/v0/searches', { searchText: 'y' })).status).toBe(429);
  });

  it('progresses a download and writes a real mp3 where slskd would', async () => {
    fake = await startSlskdFake({ queueMs: 20, transferMs: 800 });
    const file = fake.state.options.users[0]!.files[0]!;
    const res = await call('POST', '/api/v0/transfers/downloads/quickpeer', [{ filename: file.filename, size: 1 }, { filename: 'nope', size: 1 }]);
    expect(res.status).toBe(201);
    expect(res.body.enqueued).toHaveLength(1);
    expect(res.body.failed).toEqual([{ filename: 'nope', message: 'File not shared' }]);
    const id = res.body.enqueued[0].id;
    await sleep(100);
    const mid = await call('GET', `/api/v0/transfers/downloads/quickpeer/${id}`);
    expect(mid.body.state).toBe('InProgress');
    expect(mid.body.bytesTransferred).toBeGreaterThan(0);
    expect(mid.body.bytesTransferred).toBeLessThan(mid.body.size);
    await sleep(800);
    const list = await call('GET', '/api/v0/transfers/downloads');
    const done = list.body[0].directories[0].files[0];
    expect(done).toMatchObject({ state: 'Completed, Succeeded', percentComplete: 100 });
    const local = fake.state.localPath(file);
    expect(local).toBe(`${fake.downloadsDir}/Velvet Harbors - Tidewater (2019)/01 - Harbor Lights.mp3`);
    const bytes = fs.readFileSync(local);
    expect(bytes.length).toBe(done.size);
    expect(bytes.subarray(0, 3).toString()).toBe('ID3');
  });

  it('can answer in PascalCase with $values arrays like older builds', async () => {
    fake = await startSlskdFake({ pascalCase: true });
    const list = await call('GET', '/api/v0/searches');
    expect(list.body).toEqual({ $id: '1', $values: [] });
    expect((await call('GET', '/api/v0/application')).body.Server.IsConnected).toBe(true);
  });
});
