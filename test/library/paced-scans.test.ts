import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACED_GAP_MS } from '../../server/library/scanService.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Paced scans (filed downloads): one that follows another within PACED_GAP_MS waits for the rest of
 * the gap and covers every path requested meanwhile; an unpaced request merged into it starts it at once.
 */
let dir: string;
let music: string;
let template: Buffer;
let server: TestServer;

const file = (name: string) => {
  const p = path.join(music, 'Paced Artist', 'Paced Album', `${name}.mp3`);
  writeTaggedMp3(p, template, { title: name, artist: 'Paced Artist', album: 'Paced Album' });
  return p;
};
const indexed = (title: string) =>
  server.ctx.db.prepare("SELECT count(*) FROM library_tracks WHERE title = ? AND available = 1").pluck().get(title) as number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-paced-'));
  music = path.join(dir, 'music');
  template = makeMp3Template(dir);
  file('Already There');
  server = await startTestServer({ musicDirs: [music] });
  await server.ctx.library.scans.whenIdle();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('paced scans', () => {
  it('waits out the gap after the previous scan and gathers the paths filed meanwhile', async () => {
    const scans = server.ctx.library.scans;
    const first = scans.requestScan('quick', 'download filed', [file('First')], { paced: true });
    await scans.whenIdle();
    const endedFirst = performance.now();
    expect(indexed('First')).toBe(1);

    const a = scans.requestScan('quick', 'download filed', [file('Second')], { paced: true });
    const b = scans.requestScan('quick', 'download filed', [file('Third')], { paced: true });
    expect(b).toBe(a);
    expect(a).not.toBe(first);
    await new Promise((r) => setTimeout(r, PACED_GAP_MS / 2));
    expect(scans.job(a)?.status).toBe('queued');
    await scans.whenIdle();
    expect(performance.now() - endedFirst).toBeGreaterThanOrEqual(PACED_GAP_MS - 50);
    expect(scans.job(a)).toMatchObject({ status: 'completed', filesIndexed: 2 });
    expect([indexed('Second'), indexed('Third')]).toEqual([1, 1]);
  });

  it('starts a waiting paced scan at once when an unpaced request joins it', async () => {
    const scans = server.ctx.library.scans;
    scans.requestScan('quick', 'download filed', [file('Fourth')], { paced: true });
    await scans.whenIdle();
    const ended = performance.now();
    const id = scans.requestScan('quick', 'download filed', [file('Fifth')], { paced: true });
    await new Promise((r) => setTimeout(r, 50));
    expect(scans.job(id)?.status).toBe('queued');
    expect(scans.requestScan('quick', 'music folder changed', [file('Sixth')])).toBe(id);
    await scans.whenIdle();
    expect(performance.now() - ended).toBeLessThan(PACED_GAP_MS - 100);
    expect([indexed('Fifth'), indexed('Sixth')]).toEqual([1, 1]);
  });
});
