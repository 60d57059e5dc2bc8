import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanRuns } from '../../server/db/libraryScanRuns.js';
import { standaloneScanService } from '../helpers/scanService.js';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-scanstart-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a scan whose worker thread cannot start', () => {
  it('fails with the reason instead of staying running, and the next scan starts a thread again', async () => {
    const music = path.join(dir, 'music');
    fs.mkdirSync(music);
    const dbPath = path.join(dir, 'library.db');
    let attempts = 0;
    const { db, jobs, service, close } = standaloneScanService(dbPath, {
      roots: () => [music],
      spawnWorker: () => {
        attempts++;
        throw new Error('Initiated Worker with invalid execArgv flags: --example');
      },
    });
    const ended = async (id: number) => {
      for (let i = 0; i < 400; i++) {
        const run = scanRuns.get(db, id);
        if (run && run.status !== 'queued' && run.status !== 'running') return run;
        await new Promise((r) => setTimeout(r, 25));
      }
      return scanRuns.get(db, id);
    };
    try {
      service.start();
      jobs.start();
      const first = service.requestScan('full', 'test');
      expect(await ended(first)).toMatchObject({ status: 'failed', error: 'scan worker failed: could not start: Initiated Worker with invalid execArgv flags: --example' });
      const second = service.requestScan('full', 'test');
      expect(await ended(second)).toMatchObject({ status: 'failed' });
      expect(attempts).toBe(2);
      await service.whenIdle();
    } finally {
      await close();
    }
  });
});
