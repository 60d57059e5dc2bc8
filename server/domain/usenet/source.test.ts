import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeNzbget, type FakeNzbget } from '../../../test/fakes/nzbget/index.js';
import { startFakeProwlarr, type FakeProwlarr } from '../../../test/fakes/prowlarr/index.js';
import { startFakeSabnzbd, type FakeSabnzbd } from '../../../test/fakes/sabnzbd/index.js';
import { settingsSchema } from '../settings/schema.js';
import { UsenetSource } from './source.js';

let dir: string;
let prowlarr: FakeProwlarr;
let sab: FakeSabnzbd;
let nzbget: FakeNzbget;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usenet-source-'));
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

const integrations = (over: Record<string, unknown>) =>
  settingsSchema.parse({ integrations: { prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey }, ...over } }).integrations;
const sabBlock = (extra: Record<string, unknown> = {}) => ({ url: sab.url, apiKey: sab.apiKey, category: 'music', ...extra });
const nzbBlock = (extra: Record<string, unknown> = {}) => ({ url: nzbget.url, username: nzbget.username, password: nzbget.password, ...extra });

describe('UsenetSource', () => {
  it('is absent without Prowlarr plus an enabled download client', () => {
    expect(UsenetSource.fromSettings(integrations({}))).toBeNull();
    expect(UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ enabled: false }) }))).toBeNull();
    expect(UsenetSource.fromSettings(integrations({ prowlarr: { url: prowlarr.url, apiKey: prowlarr.apiKey, enabled: false }, sabnzbd: sabBlock() }))).toBeNull();
  });

  it('picks the enabled client with the lower priority number', () => {
    expect(UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock(), nzbget: nzbBlock() }))!.clientName).toBe('sabnzbd');
    expect(UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ priority: 30 }), nzbget: nzbBlock() }))!.clientName).toBe('nzbget');
    expect(UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ enabled: false }), nzbget: nzbBlock() }))!.clientName).toBe('nzbget');
  });

  it('searches, grabs with SABnzbd, follows the queue and finds the finished folder through completedPath', async () => {
    // This computer sees SABnzbd's completed folder through a link elsewhere.
    const mounted = path.join(dir, 'mounted-sab');
    fs.symlinkSync(sab.downloads.completedDir, mounted);
    const source = UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ completedPath: mounted }) }))!;
    const [release] = await source.search('paranoid android 320');
    expect(release!.indexer).toBe('NZBgeek');
    sab.downloads.durationMs = 60_000;
    const grab = await source.grab(release!);
    expect(grab.client).toBe('sabnzbd');
    expect((await source.progress(grab)).state).toMatch(/queued|downloading/);
    sab.downloads.durationMs = 0;
    const done = await source.progress(grab);
    expect(done.state).toBe('completed');
    expect(done.folder!.startsWith(mounted + path.sep)).toBe(true);
    expect(fs.readdirSync(done.folder!)).toEqual(['02 - Paranoid Android.mp3']);
  });

  it('grabs with NZBGet and reports a failed download', async () => {
    const source = UsenetSource.fromSettings(integrations({ nzbget: nzbBlock({ confirmedCompletedPath: nzbget.downloads.completedDir }) }))!;
    const [release] = await source.search('paranoid android flac');
    nzbget.downloads.durationMs = 0;
    const ok = await source.grab(release!);
    const done = await source.progress(ok);
    expect([done.state, fs.readdirSync(done.folder!)]).toEqual(['completed', ['02 - Paranoid Android.mp3']]);
    nzbget.downloads.failNextDownloads(1);
    const bad = await source.progress(await source.grab(release!));
    expect([bad.state, bad.message]).toEqual(['failed', 'NZBGet reports the download failed: par repair failed (FAILURE/PAR)']);
    expect((await source.progress({ client: 'nzbget', id: '999' })).state).toBe('missing');
  });

  it('takes nothing from a folder the client reports unless it was set or confirmed, and refuses paths outside it naming both folders', async () => {
    sab.downloads.durationMs = 0;
    const unconfirmed = UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock() }))!;
    const [release] = await unconfirmed.search('paranoid android 320');
    const first = await unconfirmed.progress(await unconfirmed.grab(release!));
    expect(first.folder).toBeNull();
    expect(first.message).toMatch(/^SABnzbd reports the finished download in .+, but no completed folder is set or confirmed to take downloads from: set integrations\.sabnzbd\.completedPath, or press Test SABnzbd/);

    const elsewhere = path.join(dir, 'elsewhere');
    fs.mkdirSync(elsewhere, { recursive: true });
    const confirmed = UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ confirmedCompletedPath: sab.downloads.completedDir }) }))!;
    sab.downloads.reportFolder = elsewhere;
    try {
      const lied = await confirmed.progress(await confirmed.grab(release!));
      expect([lied.folder, lied.message]).toEqual([
        null,
        `SABnzbd reports the finished download in ${elsewhere}, outside the confirmed completed folder ${sab.downloads.completedDir}; refusing to take files from ${elsewhere}`,
      ]);
      // Mapped through completedPath: outside the client's completed folder is refused too.
      const mapped = UsenetSource.fromSettings(integrations({ sabnzbd: sabBlock({ completedPath: path.join(dir, 'mounted-sab') }) }))!;
      const lied2 = await mapped.progress(await mapped.grab(release!));
      expect(lied2.message).toBe(
        `SABnzbd reports the finished download in ${elsewhere}, outside its completed folder ${sab.downloads.completedDir} (here ${path.join(dir, 'mounted-sab')}, integrations.sabnzbd.completedPath); refusing to take files from ${elsewhere}`,
      );
    } finally {
      sab.downloads.reportFolder = null;
    }
    const ok = await confirmed.progress(await confirmed.grab(release!));
    expect([ok.state, ok.folder!.startsWith(sab.downloads.completedDir + path.sep)]).toEqual(['completed', true]);
  });
});
