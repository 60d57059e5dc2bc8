import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlskdSource } from '../../server/domain/downloads/sources/slskd.js';
import type { Candidate, SourceContext, TransferHandle, TransferState } from '../../server/domain/downloads/types.js';
import { SlskdClient } from '../../server/integrations/slskd/index.js';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { waitFor } from './helpers.js';

/**
 * slskd's finished downloads are taken only from the folder an administrator set
 * (integrations.slskd.downloadPath) or confirmed at Test (confirmedDownloadPath), never from the one
 * slskd merely reports, and never through a link that leads out of it.
 */

let dir: string;
let fake: SlskdFake;
let client: SlskdClient;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-folders-'));
  fake = await startSlskdFake({ downloadsDir: path.join(dir, 'slskd'), transferMs: 50 });
  client = new SlskdClient({ baseUrl: fake.url, apiKey: fake.apiKey });
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ctx: SourceContext = { stagingDir: '/nonexistent', jobId: 1, signal: new AbortController().signal };
const candidateOf = (n: number): Candidate => {
  const file = fake.state.options.users[0]!.files[n]!;
  return { source: 'slskd', ref: `quickpeer\u0000${file.filename}`, title: file.filename, artistName: null, trackName: null, albumName: null, durationMs: null, format: 'mp3', bitrate: 320, sizeBytes: 1, data: { username: 'quickpeer', filename: file.filename, size: 1 } };
};
/** Polls until the transfer has ended one way or the other. */
const finished = (source: SlskdSource, handle: TransferHandle) =>
  waitFor(async () => {
    const s = await source.poll(handle, ctx);
    return s.state === 'done' || s.state === 'failed' ? s : undefined;
  }, 10_000, 'the transfer') as Promise<TransferState>;

describe('slskd downloads folder', () => {
  it('takes nothing while no folder is set or confirmed, naming the folder slskd reports', async () => {
    const source = new SlskdSource(client, { priority: 10, downloadPath: '', confirmedPath: '' });
    const state = await finished(source, await source.start(candidateOf(0)));
    expect(state).toEqual({
      state: 'failed',
      message: `slskd reports its downloads folder as ${fake.downloadsDir}, but no folder is set or confirmed to take downloads from: set integrations.slskd.downloadPath, or press Test slskd in Settings → Downloads to confirm ${fake.downloadsDir}`,
    });
  });

  it('takes a file from the confirmed folder, and refuses one whose link leads out of it, naming both folders', async () => {
    const source = new SlskdSource(client, { priority: 10, downloadPath: '', confirmedPath: fake.downloadsDir });
    const handle = await source.start(candidateOf(1));
    const done = await finished(source, handle);
    expect(done.state).toBe('done');
    const file = (done as { file: string }).file;
    expect(path.dirname(path.dirname(file))).toBe(fake.downloadsDir);
    // The file in slskd's folder turns out to be a link to someone's own music elsewhere.
    const victim = path.join(dir, 'home', 'Music', 'Salt and Iron.mp3');
    fs.mkdirSync(path.dirname(victim), { recursive: true });
    fs.copyFileSync(file, victim);
    fs.rmSync(file);
    fs.symlinkSync(victim, file);
    expect(await source.poll(handle, ctx)).toEqual({
      state: 'failed',
      message: `${file} leads to ${victim}, outside slskd's downloads folder ${fake.downloadsDir}; refusing to take a file from ${path.dirname(victim)}`,
    });
  });

  it('ignores where slskd says its folder is once one is confirmed', async () => {
    // slskd (or something posing as it) now reports another folder, which holds a file of the same name.
    const other = path.join(dir, 'other');
    const file = fake.state.options.users[0]!.files[2]!;
    const [album, name] = file.filename.split('\\').slice(-2) as [string, string];
    fs.mkdirSync(path.join(other, album), { recursive: true });
    fs.writeFileSync(path.join(other, album, name), 'not for taking');
    fake.state.reportDownloadsDir = other;
    try {
      const confirmed = new SlskdSource(client, { priority: 10, downloadPath: '', confirmedPath: fake.downloadsDir });
      expect(await finished(confirmed, await confirmed.start(candidateOf(2)))).toEqual({ state: 'done', percent: 100, file: path.join(fake.downloadsDir, album, name) });
      const unconfirmed = new SlskdSource(client, { priority: 10, downloadPath: '', confirmedPath: '' });
      expect(await finished(unconfirmed, await unconfirmed.start(candidateOf(2)))).toMatchObject({ state: 'failed', message: expect.stringContaining(`slskd reports its downloads folder as ${other}, but no folder is set or confirmed`) });
    } finally {
      fake.state.reportDownloadsDir = null;
    }
  });
});
