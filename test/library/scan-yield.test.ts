import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import { ScanStoppedError, scanLibrary } from '../../server/library/scanner.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';

// The scan worker walks and reads with synchronous calls; its thread must still take a `stop`
// message (a macrotask) while a scan runs, not only once the scan is over.
let dir: string;
let music: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanyield-'));
  music = path.join(dir, 'music');
  const template = makeMp3Template(dir);
  for (let i = 0; i < 200; i++) {
    writeTaggedMp3(path.join(music, `Artist ${i % 4}`, `Album ${i % 20}`, `${i}.mp3`), template, { title: `Track ${i}`, artist: `Artist ${i % 4}`, album: `Album ${i % 20}`, track: i + 1 });
  }
  db = openDatabase(path.join(dir, 'library.db'));
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a running scan and its thread', () => {
  it('lets a stop arriving as a message (macrotask) end the scan after a batch', async () => {
    // A first scan to the end: every module the reads need is loaded (no I/O left but the files').
    const first = await scanLibrary(db, { runId: scanRuns.enqueue(db, 'full', 'test', Date.now()), mode: 'full', roots: [music], imageDir: path.join(dir, 'images') });
    expect(first.filesIndexed).toBe(200);
    let stop = false;
    let indexedWhenStopped = -1;
    const runId = scanRuns.enqueue(db, 'full', 'test', Date.now());
    const scan = scanLibrary(db, {
      runId,
      mode: 'full',
      roots: [music],
      imageDir: path.join(dir, 'images'),
      batchSize: 10,
      shouldStop: () => stop,
      afterBatch: (counts) => {
        if (stop && indexedWhenStopped < 0) indexedWhenStopped = counts.filesIndexed;
      },
    });
    // As the worker's message handler would: on a later turn of the event loop.
    setImmediate(() => (stop = true));
    await expect(scan).rejects.toBeInstanceOf(ScanStoppedError);
    expect(indexedWhenStopped).toBeGreaterThanOrEqual(0);
    expect(indexedWhenStopped).toBeLessThan(100);
  });
});
