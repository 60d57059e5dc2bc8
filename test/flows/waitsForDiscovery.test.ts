import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_RUN_QUEUE, REFRESH_WAIT_MS } from '../../server/domain/flows/schedule.js';
import { makeUser } from '../downloads/helpers.js';
import type { LastFmFake } from '../fakes/lastfm/index.js';
import type { TestServer } from '../helpers/server.js';
import { addLibrary, json, startFlowServer, waitFor } from './helpers.js';

/**
 * Issue 24 §6: a flow run that starts while the owner's discovery refresh is under way waits for it
 * (a durable run job in the queue, due when the refresh ends) instead of planning nothing; a run of a
 * user whose recommendations were never built queues the refresh first. So "set Last.fm, create a
 * Discover flow, Run now" fills the flow.
 */

let server: TestServer;
let lastfm: LastFmFake;

beforeAll(async () => {
  ({ server, lastfm } = await startFlowServer());
  addLibrary(server, 'ABCDEFGH'.split('').map((c) => `Lib ${c}`), []);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), lastfm?.close()]);
});

type Run = { id: number; status: string; error: string | null; planned: number };
const runsOf = (flowId: string) => server.ctx.db.prepare('SELECT id, status, error, planned FROM flow_runs WHERE flow_id = ? ORDER BY id').all(flowId) as Run[];
const createFlow = async (token: string, name: string) =>
  (await json(await server.api('/api/playlists/flows', { method: 'POST', token, json: { name, size: 6, mix: { discover: 100 }, scheduleDays: [5], scheduleTime: "00:00" } }))).flow as {
    id: string;
  };
const start = async (token: string, flowId: string) => json(await server.api(`/api/playlists/start/${flowId}`, { method: 'POST', token }));
const waitingJobs = (flowId: string) =>
  server.ctx.db.prepare(`SELECT id, payload, run_at AS runAt FROM jobs WHERE queue = ? AND status = 'pending' AND dedupe_key = ?`).all(FLOW_RUN_QUEUE, `flow-wait:${flowId}`) as {
    id: number;
    payload: string;
    runAt: number;
  }[];

describe('a flow run and the discovery refresh', () => {
  it('started while the refresh runs, the run waits in the queue and fills the flow when the refresh ends', async () => {
    const user = await makeUser(server, 'waiter', { accessFlow: true });
    const flow = await createFlow(user.token, 'While refreshing');
    // The refresh is under way and slow (every Last.fm answer takes a while).
    lastfm.faults.delayMs = 150;
    expect((await server.api('/api/discover/refresh', { method: 'POST', token: user.token })).status).toBeLessThan(300);
    expect(server.ctx.discovery.refreshOpen(user.id)).toBe(true);
    await start(user.token, flow.id);

    // The run did not plan: it waits as a durable job of the run queue, shown as waiting for discovery.
    const parked = await waitFor(() => waitingJobs(flow.id)[0], 'the waiting run job');
    expect(JSON.parse(parked.payload)).toEqual({ flowId: flow.id, trigger: 'manual', afterRefresh: true });
    expect(parked.runAt).toBeGreaterThan(server.clock.now());
    expect(parked.runAt).toBeLessThanOrEqual(server.clock.now() + REFRESH_WAIT_MS);
    expect(runsOf(flow.id)).toEqual([]);
    const status = await json(await server.api('/api/playlists/status', { token: user.token }));
    expect(status.operationQueue.items).toContainEqual(expect.objectContaining({ type: 'run', flowId: flow.id, waitingFor: 'discovery' }));

    lastfm.faults.delayMs = 0;
    const run = await waitFor(() => runsOf(flow.id).find((r) => r.status !== 'planning'), 'the run after the refresh', 30_000);
    expect(run).toMatchObject({ status: 'downloading', planned: 6, error: null });
    expect(server.ctx.discovery.repo.recommendationCount(user.id)).toBeGreaterThan(0);
    expect(waitingJobs(flow.id)).toEqual([]);
  }, 60_000);

  it('a refresh that does not end in time: the waiting run is due on its own after REFRESH_WAIT_MS (queue time, no timer of its own)', async () => {
    const user = await makeUser(server, 'patient', { accessFlow: true });
    // A Last.fm listening history: the refresh asks Last.fm for it (the library's answers are cached by now).
    lastfm.addUser({ name: 'patientfm', topArtists: { '3month': [{ name: 'Heard One', playcount: 5 }] } });
    const patched = await server.api(`/api/users/${user.id}`, { method: 'PATCH', token: server.admin.token, json: { listeningHistory: { provider: 'lastfm', username: 'patientfm' } } });
    expect(patched.status).toBe(200);
    const flow = await createFlow(user.token, 'Deadline');
    lastfm.faults.delayMs = 2000;
    try {
      await start(user.token, flow.id);
      const parked = await waitFor(() => waitingJobs(flow.id)[0], 'the waiting run job');
      expect(server.ctx.discovery.refreshOpen(user.id)).toBe(true);
      server.clock.advance(parked.runAt - server.clock.now());
      server.ctx.jobs.wake(FLOW_RUN_QUEUE);
      // It starts planning without waiting again, while the refresh still runs.
      await waitFor(() => runsOf(flow.id)[0], 'the run at its deadline', 30_000);
      expect(server.ctx.discovery.refreshOpen(user.id)).toBe(true);
      expect(waitingJobs(flow.id)).toEqual([]);
    } finally {
      lastfm.faults.delayMs = 0;
    }
    await waitFor(() => !server.ctx.discovery.refreshOpen(user.id), 'the refresh to end', 30_000);
  }, 60_000);

  it('set Last.fm, create a Discover flow, Run now: the first refresh is queued and the flow fills', async () => {
    const user = await makeUser(server, 'newcomer', { accessFlow: true });
    expect(server.ctx.discovery.needsFirstRefresh(user.id)).toBe(true);
    const flow = await createFlow(user.token, 'Right away');
    await start(user.token, flow.id);
    const run = await waitFor(() => runsOf(flow.id).find((r) => r.status !== 'planning'), 'the run', 30_000);
    expect(run).toMatchObject({ status: 'downloading', planned: 6, error: null });
    expect(runsOf(flow.id)).toHaveLength(1);
  }, 60_000);
});
