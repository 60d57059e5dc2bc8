import {
  FLOW_OP_QUEUE,
  FLOW_REFRESH_TASK,
  FLOW_RUN_QUEUE,
  refreshSchedules,
  type RunPayload,
  type Deps as FlowsScheduleDeps,
} from './schedule.js';
import { flowProvider } from './provider.js';
import type { OpPayload, Deps as FlowsServiceDeps, FlowService } from './service.js';
import { startStatusPush, type Deps as FlowsStatusDeps } from './status.js';
import { startFlowVisibility, type Deps as FlowsVisibilityDeps } from './visibility.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { DownloadService } from '../downloads/service.js';
import type { PlaylistRegistry } from '../playlists/registry.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'jobs' | 'scheduler'>
  & {
    discovery: DiscoveryService;
    downloads: DownloadService;
    flows: FlowService;
    playlists: PlaylistRegistry;
  }
  & FlowsScheduleDeps
  & FlowsServiceDeps
  & FlowsStatusDeps
  & FlowsVisibilityDeps;

/** Registers the flow queues, the hourly schedule check, the flow playlists and the `flows` feature. */
export function startFlows(ctx: Deps): void {
  const svc = ctx.flows;
  ctx.playlists.register(flowProvider(ctx));
  ctx.jobs.register<RunPayload>(FLOW_RUN_QUEUE, { concurrency: 1, maxAttempts: 3, backoff: { baseMs: 60_000, maxMs: 3600_000 }, handler: (job) => svc.runJob(job) });
  ctx.jobs.register<OpPayload>(FLOW_OP_QUEUE, { concurrency: 1, maxAttempts: 3, handler: (job) => svc.opJob(job) });
  ctx.downloads.onEvent((e) => {
    if (e.type === 'job_updated') svc.onJobChanged(e.job, e.previousStatus);
  });
  ctx.scheduler.define({ name: FLOW_REFRESH_TASK, every: 3600_000, runOnFirstStart: true, handler: () => refreshSchedules(ctx) });
  ctx.discovery.onRefreshEnded((userId) => svc.discoveryRefreshed(userId));
  svc.watchTrackSummaries();
  startFlowVisibility(ctx);
  startStatusPush(ctx);
}
