import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startAcoustIdFake, type AcoustIdFake } from '../fakes/acoustid/index.js';
import { makeMelodyFile } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitForScans } from '../rest/harness.js';

/**
 * Issue 26 §2: "Identify files without MusicBrainz ids" is resumable. A run stopped with the server
 * after its first file goes on at the next start from the file after it: every file is handled
 * exactly once (processed ends equal to total, never past it).
 */

let dir: string;
let acoustid: AcoustIdFake;
const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  await acoustid?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Run = { status: string; total: number; processed: number } | null;

async function runOf(server: TestServer): Promise<Run> {
  return ((await (await server.api('/api/library/identify', { token: server.admin.token })).json()) as { run: Run }).run;
}

async function until(what: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('a run stopped with the server goes on at the next start where it stopped', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'library-identify-resume-'));
  const music = path.join(dir, 'music');
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const album = { artist: 'Unknown Band', albumArtist: 'Unknown Band', album: 'Reel' };
  for (const [i, seed] of [[1, 31], [2, 32], [3, 33]] as const)
    makeMelodyFile(path.join(music, 'Unknown Band', 'Reel', `0${i} take${i}.mp3`), 'mp3', { ...album, title: `take${i}`, track: i }, { seed, seconds: 8 });
  acoustid = await startAcoustIdFake();
  // Slow answers, so the server can be stopped between two files.
  acoustid.faults.delayMs = 1500;
  const env = { TONEARM_ACOUSTID_URL: acoustid.url, TONEARM_LIBRARY_WATCH: '0' };
  const first = await startTestServer({ dataDir: data, musicDirs: [music], env });
  servers.push(first);
  await waitForScans(first);
  await first.api('/api/settings', { method: 'POST', token: first.admin.token, json: { integrations: { acoustid: { apiKey: acoustid.apiKey } } } });
  expect((await first.api('/api/library/identify', { method: 'POST', token: first.admin.token })).status).toBe(202);
  await until(async () => ((await runOf(first))?.processed ?? 0) >= 1);
  await first.stop();
  servers.pop();

  acoustid.faults.delayMs = 0;
  const second = await startTestServer({ dataDir: data, musicDirs: [music], env, onboard: false });
  servers.push(second);
  const before = (await runOf(second))!;
  expect(before.status).toBe('running');
  expect(before.processed).toBeGreaterThanOrEqual(1);
  expect(before.processed).toBeLessThan(3);
  await until(async () => (await runOf(second))?.status !== 'running');
  expect(await runOf(second)).toMatchObject({ status: 'done', total: 3, processed: 3 });
}, 120_000);
