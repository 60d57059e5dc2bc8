import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLOW_RUN_QUEUE, refreshSchedules } from '../../server/domain/flows/schedule.js';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.js';
import { json, sleep, waitFor } from './helpers.js';

/**
 * The schedule of a flow on the injected clock: the run fires once at the set minute of the set
 * weekday (server time zone), not before and not twice; a window missed while the server was off
 * runs once at the next start, however many windows were missed.
 */

const local = (y: number, m: number, d: number, h = 0, min = 0, s = 0) => new Date(y, m - 1, d, h, min, s).getTime();
// Thursday 26 November 2026, 23:50 in the server's time zone.
const clock = new TestClock(local(2026, 11, 26, 23, 50));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-flow-schedule-'));
let server: TestServer;

afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const runs = (flowId: string) =>
  server.ctx.db.prepare('SELECT id, trigger, created_at AS createdAt FROM flow_runs WHERE flow_id = ? ORDER BY id').all(flowId) as { id: number; trigger: string; createdAt: number }[];
const flowRow = (id: string) => server.ctx.db.prepare('SELECT next_run_at AS nextRunAt, last_run_at AS lastRunAt FROM flows WHERE id = ?').get(id) as { nextRunAt: number; lastRunAt: number | null };

/** Lets the queue look at the clock now and gives it a moment. */
async function settle(ms = 400): Promise<void> {
  server.ctx.jobs.wake(FLOW_RUN_QUEUE);
  await sleep(ms);
}

describe('flow schedule', () => {
  let flowId: string;

  it('runs once at the set minute of the set day', async () => {
    server = await startTestServer({ dataDir, clock });
    const { flow } = await json(
      await server.api('/api/playlists/flows', { method: 'POST', token: server.admin.token, json: { name: 'Weekly', size: 5, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: '00:00' } }),
    );
    flowId = flow.id;
    expect(flow.nextRunAt).toBe(new Date(local(2026, 11, 27)).toISOString());

    clock.t = local(2026, 11, 26, 23, 59, 30);
    await settle();
    expect(runs(flowId)).toHaveLength(0);

    clock.t = local(2026, 11, 27, 0, 0, 0);
    server.ctx.jobs.wake(FLOW_RUN_QUEUE);
    await waitFor(() => runs(flowId).length === 1, 'the scheduled run');
    expect(runs(flowId)[0]).toMatchObject({ trigger: 'schedule', createdAt: local(2026, 11, 27) });

    // Later that day, and after the hourly check: still one run; the next is a week later.
    clock.t = local(2026, 11, 27, 0, 30);
    expect(refreshSchedules(server.ctx)).toBe(0);
    await settle();
    expect(runs(flowId)).toHaveLength(1);
    expect(flowRow(flowId).nextRunAt).toBe(local(2026, 12, 4));
  }, 30_000);

  it('a window missed while the server was off runs once at the next start', async () => {
    await server.stop();
    // Off over two Fridays (4 and 11 December); back on Saturday 12 December.
    clock.t = local(2026, 12, 12, 9, 0);
    server = await startTestServer({ dataDir, clock });
    await waitFor(() => runs(flowId).length === 2, 'the missed run');
    await settle(800);
    expect(runs(flowId)).toHaveLength(2);
    expect(runs(flowId)[1]).toMatchObject({ trigger: 'schedule', createdAt: local(2026, 12, 12, 9, 0) });
    expect(flowRow(flowId).nextRunAt).toBe(local(2026, 12, 18));
  }, 30_000);
});
