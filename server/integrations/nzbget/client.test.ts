import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeNzbget, type FakeNzbget } from '../../../test/fakes/nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../../../test/fakes/prowlarr/index.js';
import { IntegrationError } from '../errors.js';
import { ProwlarrClient } from '../prowlarr/index.js';
import { historyOutcome, NzbgetClient } from './client.js';

let dir: string;
let nzbget: FakeNzbget;
let prowlarr: FakeProwlarr;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzbget-'));
  nzbget = await startFakeNzbget({ completedDir: path.join(dir, 'dst') });
  prowlarr = await startFakeProwlarr();
});
afterEach(async () => {
  await nzbget.close();
  await prowlarr.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const client = (over: Partial<ConstructorParameters<typeof NzbgetClient>[0]> = {}) =>
  new NzbgetClient({ baseUrl: nzbget.url, username: nzbget.username, password: nzbget.password, timeoutMs: 10_000, retryDelayMs: 10, ...over });

async function failure(p: Promise<unknown>): Promise<IntegrationError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

describe('NzbgetClient', () => {
  it('appends a Prowlarr NZB, lists it progressing, then finds it in history with a real audio file', async () => {
    nzbget.downloads.durationMs = 60_000;
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid android 320' });
    const id = await client().append({ url: release!.downloadUrl, name: release!.title, category: 'Music', priority: 50 });
    expect(id).toBeGreaterThan(0);
    const append = nzbget.calls.find((c) => c.method === 'append')!;
    expect(append.params).toHaveLength(11);
    expect(append.params.slice(2, 4)).toEqual(['Music', 50]);
    expect(append.params[8]).toBe('FORCE');

    const [group] = await client().listGroups();
    expect(group!.NZBID).toBe(id);
    expect(group!.RemainingSizeMB).toBeGreaterThan(0);
    nzbget.downloads.durationMs = 0;
    expect(await client().listGroups()).toEqual([]);
    const [item] = await client().history();
    expect([item!.NZBID, item!.Status, historyOutcome(item!.Status)]).toEqual([id, 'SUCCESS/ALL', 'completed']);
    const files = fs.readdirSync(item!.DestDir!);
    const meta = await parseFile(path.join(item!.DestDir!, files[0]!));
    expect([meta.common.artist, meta.common.title, meta.common.track.no]).toEqual(['Radiohead', 'Paranoid Android', 2]);

    await client().deleteFromHistory(id);
    expect(await client().history()).toEqual([]);
  });

  it('appends an NZB by content (base64)', async () => {
    nzbget.downloads.durationMs = 0;
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid flac' });
    const content = await (await fetch(release!.downloadUrl)).text();
    const id = await client().appendContent({ content, name: 'upload' });
    const call = nzbget.calls.find((c) => c.method === 'append')!;
    expect(Buffer.from(String(call.params[1]), 'base64').toString('utf8')).toBe(content);
    const [item] = await client().history();
    expect([item!.NZBID, item!.Status]).toEqual([id, 'SUCCESS/ALL']);
  });

  it('accepts a URL already ending in /jsonrpc and reports failed downloads', async () => {
    nzbget.downloads.durationMs = 0;
    nzbget.downloads.failNextDownloads(1);
    const c = client({ baseUrl: `${nzbget.url}/jsonrpc` });
    expect(await c.version()).toBe('24.3');
    expect(await c.destDir()).toBe(nzbget.downloads.completedDir);
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid' });
    await c.append({ url: release!.downloadUrl, name: 'x' });
    const [item] = await c.history();
    expect(historyOutcome(item!.Status)).toBe('failed');
    expect(historyOutcome('WARNING/SCRIPT')).toBe('warning');
  });

  it('names wrong credentials, a web page, JSON-RPC errors, 5xx, slow and down', async () => {
    const wrong = await failure(client({ password: 'nope' }).version());
    expect([wrong.kind, wrong.status]).toEqual(['unauthorized', 401]);
    expect(wrong.message).not.toContain('nope');
    expect((await failure(client({ baseUrl: `${nzbget.url}/web/` }).version())).kind).toBe('wrong_url');
    nzbget.faults.failNext(1, 500);
    expect(await client().version()).toBe('24.3');
    nzbget.faults.failNext(1, 500);
    expect((await failure(client().append({ url: 'http://127.0.0.1:1/x.nzb', name: 'x' }))).kind).toBe('server_error');
    nzbget.faults.delayMs = 400;
    expect((await failure(client({ timeoutMs: 100 }).version())).kind).toBe('timeout');
    nzbget.faults.delayMs = 0;
    nzbget.faults.down = true;
    expect((await failure(client().version())).kind).toBe('unreachable');
  });
});
