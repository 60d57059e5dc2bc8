import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { scanRuns, type ScanCounts } from '../../server/db/libraryScanRuns.js';
import { scanLibrary, type ScanPhase } from '../../server/library/scanner.js';
import { makeMp3Template, writeTaggedMp3 } from '../fixtures/audio.js';
import { startTestServer } from '../helpers/server.js';

// A progress bar needs to know whether filesSeen is final: walking (still growing) or reading.
let dir: string;
let first: string;
let second: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanphase-'));
  first = path.join(dir, 'first');
  second = path.join(dir, 'second');
  const template = makeMp3Template(dir);
  for (let i = 0; i < 60; i++) {
    const root = i < 30 ? first : second;
    writeTaggedMp3(path.join(root, `Artist ${i % 3}`, `Album ${i % 6}`, `${i}.mp3`), template, { title: `Track ${i}`, artist: `Artist ${i % 3}`, album: `Album ${i % 6}`, track: i + 1 });
  }
  db = openDatabase(path.join(dir, 'library.db'));
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('scan progress phases', () => {
  it('reports walking while files are still being found, then reading with the final total long before the end', async () => {
    const reports: { phase: ScanPhase; counts: ScanCounts }[] = [];
    const runId = scanRuns.enqueue(db, 'full', 'test', Date.now());
    const result = await scanLibrary(db, {
      runId,
      mode: 'full',
      roots: [first, second],
      imageDir: path.join(dir, 'images'),
      batchSize: 5,
      concurrency: 1,
      progressMs: 0,
      onProgress: (counts, phase) => reports.push({ phase, counts }),
    });
    expect(result).toMatchObject({ filesSeen: 60, filesIndexed: 60, filesFailed: 0 });
    const phases = reports.map((r) => r.phase);
    // Never back to walking once reading.
    expect(phases.slice(phases.indexOf('reading')).every((p) => p === 'reading')).toBe(true);
    const reading = reports.filter((r) => r.phase === 'reading');
    expect(reading.length).toBeGreaterThan(1);
    expect(reading.every((r) => r.counts.filesSeen === 60)).toBe(true);
    // Both folders are listed up front: the total is known while most files are still unread.
    expect(reading[0]!.counts.filesIndexed).toBeLessThan(30);
    expect(reports.at(-1)).toEqual({ phase: 'reading', counts: expect.objectContaining({ filesSeen: 60, filesIndexed: 60 }) });
  });

  it('says reading at once for a scan of changed files only', async () => {
    const reports: ScanPhase[] = [];
    const runId = scanRuns.enqueue(db, 'quick', 'test', Date.now());
    const file = path.join(first, 'Artist 0', 'Album 0', '0.mp3');
    await scanLibrary(db, { runId, mode: 'quick', roots: [first], paths: [file], imageDir: path.join(dir, 'images'), progressMs: 0, onProgress: (_c, phase) => reports.push(phase) });
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((p) => p === 'reading')).toBe(true);
  });

  it('carries the phase in /ws library_scan_progress messages', async () => {
    const dataDir = path.join(dir, 'data');
    const server = await startTestServer({ dataDir, musicDirs: [first, second], env: { TONEARM_SCAN_ON_START: 'false', TONEARM_LIBRARY_WATCH: 'false' } });
    try {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws?token=${server.admin.token}`);
      const messages: Record<string, any>[] = [];
      ws.on('message', (m) => messages.push(JSON.parse(String(m))));
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ type: 'subscribe', channels: ['library'] }));
      for (let i = 0; i < 100 && !messages.some((m) => m.type === 'subscribed'); i++) await new Promise((r) => setTimeout(r, 20));
      const res = await server.api('/api/library/refresh', { method: 'POST', json: { mode: 'full' }, headers: server.admin.headers });
      const { jobId } = (await res.json()) as { jobId: string };
      for (let i = 0; i < 1000 && !messages.some((m) => m.type === 'library_scan_completed' && m.jobId === jobId); i++) await new Promise((r) => setTimeout(r, 20));
      ws.close();
      const progress = messages.filter((m) => m.type === 'library_scan_progress' && m.jobId === jobId);
      expect(progress.length).toBeGreaterThan(0);
      for (const m of progress) expect(['walking', 'reading']).toContain(m.phase);
      expect(progress.at(-1)).toMatchObject({ phase: 'reading', filesSeen: 60, filesIndexed: 60 });
    } finally {
      await server.stop();
    }
  }, 60_000);
});
