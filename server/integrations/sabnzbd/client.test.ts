import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProwlarr, type FakeProwlarr } from '../../../test/fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../../../test/fakes/sabnzbd/index.js';
import { IntegrationError } from '../errors.js';
import { ProwlarrClient } from '../prowlarr/index.js';
import { SabnzbdClient } from './client.js';

let dir: string;
let sab: FakeSabnzbd;
let prowlarr: FakeProwlarr;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sab-'));
  sab = await startFakeSabnzbd({ completedDir: path.join(dir, 'complete') });
  prowlarr = await startFakeProwlarr();
});
afterEach(async () => {
  await sab.close();
  await prowlarr.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const client = (over: Partial<ConstructorParameters<typeof SabnzbdClient>[0]> = {}) =>
  new SabnzbdClient({ baseUrl: sab.url, apiKey: sab.apiKey, timeoutMs: 10_000, retryDelayMs: 10, ...over });

async function failure(p: Promise<unknown>): Promise<IntegrationError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

describe('SabnzbdClient', () => {
  it('adds a Prowlarr NZB, sees it progress in the queue, then completed in history with a real audio file', async () => {
    sab.downloads.durationMs = 60_000;
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid android flac' });
    const id = await client().addUrl({ url: release!.downloadUrl, name: release!.title, category: 'music', priority: 0 });
    expect(id).toMatch(/^SABnzbd_nzo_/);
    const add = sab.requests.find((r) => r.query.get('mode') === 'addurl')!;
    expect([add.query.get('cat'), add.query.get('priority'), add.query.get('pp'), add.query.get('output')]).toEqual(['music', '0', '3', 'json']);

    const queue = await client().queue([id]);
    expect(sab.downloads.jobs[0]!.finished).toBeNull();
    expect(queue.slots).toHaveLength(1);
    expect(queue.slots[0]!.percentage).toBeLessThan(100);
    sab.downloads.durationMs = 0; // the rest of the download happens at once
    expect((await client().queue([id])).slots).toEqual([]);
    const [done] = await client().history([id]);
    expect(done!.status).toBe('Completed');
    const files = fs.readdirSync(done!.storage!);
    expect(files).toHaveLength(1);
    const meta = await parseFile(path.join(done!.storage!, files[0]!));
    expect([meta.common.artist, meta.common.album, meta.common.title]).toEqual(['Radiohead', 'OK Computer', 'Paranoid Android']);
    expect(meta.format.duration).toBeGreaterThan(1.5);

    await client().deleteFromHistory(id);
    expect(fs.existsSync(done!.storage!)).toBe(false);
  });

  it('uploads an NZB with addfile when SABnzbd cannot fetch it itself', async () => {
    sab.downloads.durationMs = 0;
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid 320' });
    const content = await (await fetch(release!.downloadUrl)).text();
    const id = await client().addFile({ content, name: 'upload', category: 'music' });
    const upload = sab.requests.find((r) => r.query.get('mode') === 'addfile')!;
    expect([upload.method, upload.query.get('nzbname'), upload.query.get('cat')]).toEqual(['POST', 'upload.nzb', 'music']);
    const [done] = await client().history([id]);
    expect(done!.status).toBe('Completed');
    expect(fs.readdirSync(done!.storage!)).toEqual(['02 - Paranoid Android.mp3']);
    await expect(client().addFile({ content: 'not an nzb', name: 'bad' }).then((i) => client().history([i]))).resolves.toMatchObject([{ status: 'Failed' }]);
  });

  it('reports a download that failed, and an NZB URL that could not be fetched', async () => {
    sab.downloads.durationMs = 0;
    sab.downloads.failNextDownloads(1);
    const [release] = await new ProwlarrClient({ baseUrl: prowlarr.url, apiKey: prowlarr.apiKey }).searchUsenet({ query: 'paranoid' });
    const a = await client().addUrl({ url: release!.downloadUrl, name: 'a' });
    const b = await client().addUrl({ url: `${prowlarr.url}/1/download?apikey=wrong&link=nzb-1`, name: 'b' });
    const history = await client().history([a, b]);
    expect(history.map((h) => h.status)).toEqual(['Failed', 'Failed']);
  });

  it('tests the connection with the key (version alone needs none)', async () => {
    expect(await client().testConnection()).toEqual({ version: '4.3.2' });
    expect(await client().completeDir()).toBe(sab.downloads.completedDir);
    const wrong = await failure(client({ apiKey: 'bad-key' }).testConnection());
    expect(wrong.kind).toBe('unauthorized');
    expect(wrong.message).toBe('SABnzbd rejected the API key');
    expect((await failure(client({ apiKey: '' }).queue())).message).toBe('SABnzbd requires an API key');
  });

  it('never puts the API key in error messages; 5xx retried once, slow and down named', async () => {
    sab.faults.failNext(2, 502);
    const err = await failure(client().queue());
    expect(err.kind).toBe('server_error');
    expect(err.message).not.toContain(sab.apiKey);
    sab.faults.failNext(1, 502);
    expect((await client().queue()).slots).toEqual([]);

    sab.faults.delayMs = 400;
    const slow = await failure(client({ timeoutMs: 100 }).queue());
    expect(slow.kind).toBe('timeout');
    expect(slow.message).not.toContain(sab.apiKey);
    sab.faults.delayMs = 0;

    expect((await failure(client({ baseUrl: sab.url + '/sabnzbd' }).version())).kind).toBe('wrong_url');
    sab.faults.down = true;
    const down = await failure(client().queue());
    expect(down.kind).toBe('unreachable');
    expect(down.message).not.toContain(sab.apiKey);
  });
});
