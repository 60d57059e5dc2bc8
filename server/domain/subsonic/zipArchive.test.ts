import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipSourceChangedError, writeZip } from './zipArchive.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-zip-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A destination that rewrites `file` in place (same size, other bytes) when the first entry's header arrives. */
function changingOnHeader(file: string) {
  let writes = 0;
  return new Writable({
    write(_chunk, _encoding, done) {
      if (writes++ === 0) fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size, 0x5a));
      done();
    },
  });
}

const sink = () => new Writable({ write: (_c, _e, done) => done() });

function entryOf(file: string) {
  const st = fs.statSync(file);
  return { file, name: path.basename(file), size: st.size, mtimeMs: st.mtimeMs };
}

describe('writeZip', () => {
  it('refuses a file that changes between its CRC and its bytes, whether it changed just before or long ago', async () => {
    const fresh = path.join(dir, 'fresh.bin');
    fs.writeFileSync(fresh, Buffer.alloc(3 * 1024 * 1024, 1));
    await expect(writeZip([entryOf(fresh)], changingOnHeader(fresh))).rejects.toBeInstanceOf(ZipSourceChangedError);

    const settled = path.join(dir, 'settled.bin');
    fs.writeFileSync(settled, Buffer.alloc(3 * 1024 * 1024, 2));
    // Settled: last changed more than a second ago (the state the version check relies on).
    await expect.poll(() => Date.now() - fs.statSync(settled).ctimeMs, { timeout: 5000, interval: 100 }).toBeGreaterThan(1100);
    await expect(writeZip([entryOf(settled)], changingOnHeader(settled))).rejects.toBeInstanceOf(ZipSourceChangedError);
  });

  it('archives unchanged files, settled or not', async () => {
    const a = path.join(dir, 'a.bin');
    fs.writeFileSync(a, Buffer.alloc(1024 * 1024 + 5, 3));
    await expect(writeZip([entryOf(a)], sink())).resolves.toBeUndefined();
    await expect.poll(() => Date.now() - fs.statSync(a).ctimeMs, { timeout: 5000, interval: 100 }).toBeGreaterThan(1100);
    await expect(writeZip([entryOf(a)], sink())).resolves.toBeUndefined();
  });
});
