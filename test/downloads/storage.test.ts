import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlskdFake, type SlskdFake } from '../fakes/slskd/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirmClientFolders, createJob, setSettings, settled, waitFor } from './helpers.js';

/**
 * Storage failures give a clear job error naming the folder, and leave no half-written file: a
 * downloads folder this server may not write, and a disk that fills up while the file is written
 * (small tmpfs mounts, one read-only; skipped where this process may not mount them).
 */

let server: TestServer;
let slskd: SlskdFake;
let dir: string;
let tiny: string | null = null;
let readOnly: string | null = null;

function mountTmpfs(target: string, options: string): boolean {
  try {
    fs.mkdirSync(target, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', target], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-storage-'));
  slskd = await startSlskdFake({ searchMs: 200, maxConcurrentSearches: 8 });
  if (mountTmpfs(path.join(dir, 'tiny'), 'size=256k')) tiny = path.join(dir, 'tiny');
  if (mountTmpfs(path.join(dir, 'ro'), 'ro,size=64k')) readOnly = path.join(dir, 'ro');
  server = await startTestServer();
  await setSettings(server, {
    downloads: { worker: { existingFileMode: 'download' } },
    integrations: { slskd: { url: slskd.url, apiKey: slskd.apiKey } },
  });
  await confirmClientFolders(server, 'slskd');
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await slskd?.close();
  if (tiny) execFileSync('umount', [tiny]);
  if (readOnly) execFileSync('umount', [readOnly]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const walk = (d: string): string[] =>
  fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)])) : [];

describe('storage failures', () => {
  it('fails with a clear error naming the folder when the downloads folder is not writable', async (t) => {
    if (!readOnly) return t.skip();
    const root = readOnly;
    await setSettings(server, { downloads: { folderPath: root } });
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Harbor Lights', albumName: 'Tidewater', trackNumber: 1, durationMs: 1000 });
    const failed = await settled(server, job.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(`The folder ${path.join(root, '.staging', String(job.id))} is on a read-only file system`);
    expect(walk(root)).toEqual([]);
  });

  it('fails with "disk full" and leaves no partial file when the disk fills while filing', async (t) => {
    if (!tiny) return t.skip();
    const root = path.join(tiny, 'music');
    await setSettings(server, { downloads: { folderPath: root } });
    // Room for the held copy in staging, not for a second (tagged) copy.
    // The size of one fake track: download one through the fake's own API.
    const sample = slskd.state.options.users[0]!.files[0]!;
    slskd.state.enqueue('quickpeer', [{ filename: sample.filename, size: 1 }]);
    await waitFor(() => fs.existsSync(slskd.state.localPath(sample)), 5000, 'the sample file');
    const size = fs.statSync(slskd.state.localPath(sample)).size;
    const st = fs.statfsSync(tiny);
    const room = (Math.ceil(size / st.bsize) + 1) * st.bsize;
    fs.writeFileSync(path.join(tiny, 'filler'), Buffer.alloc(Math.max(0, st.bavail * st.bsize - room)));
    const job = createJob(server, { artistName: 'Velvet Harbors', trackName: 'Salt and Iron', albumName: 'Tidewater', trackNumber: 2, durationMs: 1000 });
    const failed = await settled(server, job.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(`The disk holding ${path.join(root, 'Velvet Harbors', 'Tidewater')} is full; free some space and retry`);
    expect(walk(root).filter((f) => !f.includes(`${path.sep}.staging${path.sep}`))).toEqual([]);
    expect(walk(path.join(root, '.staging'))).toEqual([]);
  });
});
