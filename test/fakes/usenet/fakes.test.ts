import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeNzbget, type FakeNzbget } from '../nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../sabnzbd/index.js';
import { buildNzb, parseNzb } from './nzb.js';

/** The Usenet fakes speak the protocols of external-services.md (k), checked with plain HTTP. */

let dir: string;
let prowlarr: FakeProwlarr;
let sab: FakeSabnzbd;
let nzbget: FakeNzbget;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usenet-fakes-'));
  [prowlarr, sab, nzbget] = await Promise.all([
    startFakeProwlarr(),
    startFakeSabnzbd({ completedDir: path.join(dir, 'sab') }),
    startFakeNzbget({ completedDir: path.join(dir, 'nzbget') }),
  ]);
});
afterAll(async () => {
  await Promise.all([prowlarr.close(), sab.close(), nzbget.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const rpc = async (method: string, params: unknown[], auth = `${nzbget.username}:${nzbget.password}`) => {
  const res = await fetch(`${nzbget.url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(auth).toString('base64')}` },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
  });
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as { result?: any; error?: any }) : null };
};

describe('NZB files', () => {
  it('round-trip the track they describe, escaping XML', () => {
    const track = { artist: 'Simon & Garfunkel', album: '<Bookends>', title: 'America "live"', track: 4 };
    expect(parseNzb(buildNzb('x', track))).toEqual(track);
    expect(parseNzb('<html></html>')).toBeNull();
  });
});

describe('fake Prowlarr', () => {
  it('checks X-Api-Key, matches paths case-insensitively and filters by category', async () => {
    expect((await fetch(`${prowlarr.url}/api/v1/indexer`)).status).toBe(401);
    const res = await fetch(`${prowlarr.url}/API/V1/Search?query=radiohead&categories=3000`, { headers: { 'X-Api-Key': prowlarr.apiKey } });
    const results = (await res.json()) as Array<{ guid: string; categories: Array<{ id: number }> }>;
    expect(results.map((r) => r.guid)).toEqual(['nzb-1', 'nzb-2', 'tor-1']);
    expect(results.every((r) => r.categories.every((c) => c.id >= 3000 && c.id < 4000))).toBe(true);
    const noQuery = await fetch(`${prowlarr.url}/api/v1/search`, { headers: { 'X-Api-Key': prowlarr.apiKey } });
    expect(noQuery.status).toBe(400);
    const withoutKey = new URL(prowlarr.downloadUrlOf(prowlarr.releases[0]!));
    withoutKey.searchParams.set('apikey', 'x');
    expect((await fetch(withoutKey)).status).toBe(401);
  });
});

describe('fake SABnzbd', () => {
  it('answers key errors as HTTP 200 {status:false}, version without a key', async () => {
    const call = async (q: string) => (await fetch(`${sab.url}/api?output=json&${q}`)).json();
    expect(await call('mode=version')).toEqual({ version: '4.3.2' });
    expect(await call('mode=queue')).toEqual({ status: false, error: 'API Key Required' });
    expect(await call('mode=queue&apikey=nope')).toEqual({ status: false, error: 'API Key Incorrect' });
  });

  it('moves a job from queue (percentage growing) to history with a file in its storage folder', async () => {
    sab.downloads.durationMs = 60_000;
    const url = encodeURIComponent(prowlarr.downloadUrlOf(prowlarr.releases[0]!));
    const add = (await (await fetch(`${sab.url}/api?mode=addurl&name=${url}&nzbname=a.nzb&cat=music&apikey=${sab.apiKey}&output=json`)).json()) as { nzo_ids: string[] };
    const queue = (await (await fetch(`${sab.url}/api?mode=queue&apikey=${sab.apiKey}&output=json`)).json()) as any;
    expect(queue.queue.slots[0]).toMatchObject({ nzo_id: add.nzo_ids[0], cat: 'music', filename: 'a' });
    sab.downloads.durationMs = 0;
    const history = (await (await fetch(`${sab.url}/api?mode=history&nzo_ids=${add.nzo_ids[0]}&apikey=${sab.apiKey}&output=json`)).json()) as any;
    expect(history.history.slots[0]).toMatchObject({ status: 'Completed', category: 'music' });
    expect(fs.readdirSync(history.history.slots[0].storage)).toEqual(['02 - Paranoid Android.mp3']);
  });
});

describe('fake NZBGet', () => {
  it('wants basic auth, checks append has 11 params and reports JSON-RPC errors', async () => {
    expect((await rpc('version', [], 'nzbget:wrong')).status).toBe(401);
    expect((await rpc('version', [])).body!.result).toBe('24.3');
    expect((await rpc('append', ['a.nzb', 'http://x'])).body!.error).toMatchObject({ name: 'JSONRPCError' });
    expect((await rpc('nosuch', [])).body!.error.code).toBe(-32601);
  });

  it('lists an appended NZB, then shows it in history as SUCCESS/ALL with a real file', async () => {
    nzbget.downloads.durationMs = 60_000;
    const url = prowlarr.downloadUrlOf(prowlarr.releases[1]!);
    const { body } = await rpc('append', ['b.nzb', url, 'Music', 0, false, false, '', 0, 'FORCE', false, []]);
    const id = body!.result as number;
    expect(id).toBeGreaterThan(0);
    expect((await rpc('listgroups', [0])).body!.result[0]).toMatchObject({ NZBID: id, Category: 'Music', Status: 'DOWNLOADING' });
    nzbget.downloads.durationMs = 0;
    const [item] = (await rpc('history', [false])).body!.result;
    expect(item).toMatchObject({ NZBID: id, Status: 'SUCCESS/ALL', Kind: 'NZB' });
    expect(fs.readdirSync(item.DestDir)).toEqual(['02 - Paranoid Android.mp3']);
  });

  it('keeps a group listed while post-processing, then reports each failure with its NZBGet status', async () => {
    Object.assign(nzbget.downloads, { durationMs: 0, postProcessMs: 60_000 });
    const url = prowlarr.downloadUrlOf(prowlarr.releases[0]!);
    const append = (u: string) => rpc('append', ['c.nzb', u, 'Music', 0, false, false, '', 0, 'FORCE', false, []]);
    const id = (await append(url)).body!.result as number;
    expect((await rpc('listgroups', [0])).body!.result.find((g: { NZBID: number }) => g.NZBID === id)).toMatchObject({ Status: 'PP_QUEUED', RemainingSizeMB: 0 });
    nzbget.downloads.postProcessMs = 0;
    const failures = ['health', 'unpack', 'deleted'] as const;
    const ids: number[] = [];
    for (const why of failures) {
      nzbget.downloads.failNextDownloads(1, why);
      ids.push((await append(url)).body!.result as number);
      await rpc('listgroups', [0]);
    }
    const unfetchable = (await append(`${prowlarr.url}/1/download?apikey=wrong&link=nzb-1`)).body!.result as number;
    const history = (await rpc('history', [false])).body!.result as Array<{ NZBID: number; Status: string; Kind: string }>;
    const of = (n: number) => history.find((h) => h.NZBID === n)!;
    expect(ids.map((n) => of(n).Status)).toEqual(['FAILURE/HEALTH', 'FAILURE/UNPACK', 'DELETED/MANUAL']);
    expect(of(id).Status).toBe('SUCCESS/ALL');
    expect(of(unfetchable)).toMatchObject({ Kind: 'URL', Status: 'FAILURE/FETCH' });
    // Content that is no NZB is refused with 0, as NZBGet does.
    const refused = await rpc('append', ['d.nzb', Buffer.from('not an nzb').toString('base64'), '', 0, false, false, '', 0, 'FORCE', false, []]);
    expect(refused.body!.result).toBe(0);
  });
});
