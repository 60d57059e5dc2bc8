import type { AppContext } from '../../context.js';
import { discoveryOf } from '../discovery/service.js';
import { downloadsOf } from '../downloads/service.js';
import { playlistsOf } from '../playlists/registry.js';
import { FLOW_OP_QUEUE, FLOW_REFRESH_TASK, FLOW_RUN_QUEUE, refreshSchedules, type RunPayload } from './schedule.js';
import { flowProvider, flowsOf, type OpPayload } from './service.js';
import { startStatusPush } from './status.js';
import { startFlowVisibility } from './visibility.js';

/** Registers the flow queues, the hourly schedule check, the flow playlists and the `flows` feature. */
export function startFlows(ctx: AppContext): void {
  const svc = flowsOf(ctx);
  playlistsOf(ctx).register(flowProvider(ctx));
  ctx.jobs.register<RunPayload>(FLOW_RUN_QUEUE, { concurrency: 1, maxAttempts: 3, backoff: { baseMs: 60_000, maxMs: 3600_000 }, handler: (job) => svc.runJob(job) });
  ctx.jobs.register<OpPayload>(FLOW_OP_QUEUE, { concurrency: 1, maxAttempts: 3, handler: (job) => svc.opJob(job) });
  downloadsOf(ctx).onEvent((e) => {
    if (e.type === 'job_updated') svc.onJobChanged(e.job, e.previousStatus);
  });
  ctx.scheduler.define({ name: FLOW_REFRESH_TASK, every: 3600_000, runOnFirstStart: true, handler: () => refreshSchedules(ctx) });
  discoveryOf(ctx).onRefreshEnded((userId) => svc.discoveryRefreshed(userId));
  svc.watchTrackSummaries();
  startFlowVisibility(ctx);
  startStatusPush(ctx);
  ctx.features.add('flows');
}
