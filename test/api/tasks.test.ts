import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe('scheduled tasks', () => {
  it('lists every scheduled task with its schedule and next run, for administrators only', async () => {
    const res = await server.api('/api/settings/tasks', { token: server.admin.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    const names = body.tasks.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['session-cleanup', 'job-history-prune', 'lidarr-resync']));
    const cleanup = body.tasks.find((t: any) => t.name === 'session-cleanup');
    expect(cleanup).toMatchObject({ queue: 'scheduled-task', schedule: '@every 1h', lastStatus: null, running: false });
    expect(Date.parse(cleanup.nextRunAt)).toBeGreaterThan(server.clock.now());
    expect(Array.isArray(body.queues)).toBe(true);

    const user = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username: 'tasker', password: 'long enough pw', role: 'user' } });
    expect(user.status).toBe(201);
    const login = await json(await server.api('/api/auth/login', { method: 'POST', json: { username: 'tasker', password: 'long enough pw' } }));
    expect((await server.api('/api/settings/tasks', { token: login.token })).status).toBe(403);
  });

  it('clears a job stuck past its claim by a process that is gone, and its open run record', async () => {
    const db = server.ctx.db;
    const now = server.clock.now();
    const { id } = db
      .prepare(
        `INSERT INTO jobs (queue, payload, run_at, status, attempts, claimed_by, claim_expires_at, created_at, updated_at)
         VALUES ('nobody-handles', '{}', ?, 'running', 1, 'gone-process', ?, ?, ?) RETURNING id`,
      )
      .get(now, now - 1000, now, now) as { id: number };
    db.prepare(`INSERT INTO job_runs (job_id, queue, attempt, worker_id, status, started_at) VALUES (?, 'nobody-handles', 1, 'gone-process', 'running', ?)`).run(id, now);
    const res = await server.api('/api/settings/tasks/clear-stale', { method: 'POST', token: server.admin.token });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.success).toBe(true);
    expect(body.cleared).toBeGreaterThanOrEqual(1);
    expect(db.prepare('SELECT status, claimed_by FROM jobs WHERE id = ?').get(id)).toEqual({ status: 'pending', claimed_by: null });
    expect(db.prepare('SELECT status FROM job_runs WHERE job_id = ?').get(id)).toEqual({ status: 'abandoned' });
    const again = await json(await server.api('/api/settings/tasks/clear-stale', { method: 'POST', token: server.admin.token }));
    expect(again.cleared).toBe(0);
  });
});
