/** When flows run on their own: each enabled flow keeps its next weekly run queued as a delayed job, checked hourly. */
import { flows, type FlowRow } from '../../db/flows.js';
import { queueJobAliveLookup } from '../../db/flowQueries.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'jobs'>;

/** Runs of flows (planning, then their tracks become download jobs): one queue job per run. */
export const FLOW_RUN_QUEUE = 'flow-run';
export type RunPayload = {
  flowId: string;
  trigger: 'manual' | 'schedule' | 'create';
  /** A run that waited for the owner's discovery refresh: it plans without waiting again. */
  afterRefresh?: boolean;
};

/** The dedupe key of a run waiting for the owner's discovery refresh (one per flow). */
export const waitKey = (flowId: string) => `flow-wait:${flowId}`;
/** A run waiting for a discovery refresh runs after this long anyway (a refresh that ended unseen, e.g. across a restart). */
export const REFRESH_WAIT_MS = 10 * 60_000;

/** Disabling and deleting a flow stop its jobs and rotate its files out in the background. */
export const FLOW_OP_QUEUE = 'flow-operation';

/** The hourly check that every enabled flow has its next scheduled run queued (reference: weekly-flow-refresh). */
export const FLOW_REFRESH_TASK = 'weekly-flow-refresh';

/** The next fire of a weekly schedule strictly after `after`, in the server's time zone. */
export function nextFireAfter(days: number[], time: string, after: number): number {
  const [h, m] = time.split(':').map(Number) as [number, number];
  const base = new Date(after);
  for (let d = 0; d <= 7; d++) {
    const c = new Date(base.getFullYear(), base.getMonth(), base.getDate() + d, h, m, 0, 0);
    if (c.getTime() > after && days.includes(c.getDay())) return c.getTime();
  }
  return Number.MAX_SAFE_INTEGER;
}

/** Queues the flow's next scheduled run (a delayed durable job) in place of the one queued before. */
export function scheduleNext(ctx: Deps, f: FlowRow, after = ctx.clock.now()): void {
  if (f.nextQueueJobId !== null) ctx.jobs.cancel(f.nextQueueJobId);
  if (!f.enabled || f.ownerUserId === null) {
    flows.setState(ctx.db, f.id, { nextQueueJobId: null, nextRunAt: null }, ctx.clock.now());
    return;
  }
  const at = nextFireAfter(f.scheduleDays, f.scheduleTime, after);
  const q = ctx.jobs.enqueue<RunPayload>(FLOW_RUN_QUEUE, { flowId: f.id, trigger: 'schedule' }, { name: `flow schedule ${f.id}`, runAt: at, maxAttempts: 3 });
  flows.setState(ctx.db, f.id, { nextQueueJobId: q.id, nextRunAt: at }, ctx.clock.now());
}

/** The hourly check: an enabled flow without a queued next run gets one (a run already due runs now). */
export function refreshSchedules(ctx: Deps): number {
  let fixed = 0;
  const alive = queueJobAliveLookup(ctx.db);
  for (const f of flows.list(ctx.db)) {
    if (!f.enabled || f.ownerUserId === null) continue;
    if (f.nextQueueJobId !== null && alive(f.nextQueueJobId)) continue;
    const missed = f.nextRunAt !== null && f.nextRunAt <= ctx.clock.now() && (f.lastRunAt === null || f.lastRunAt < f.nextRunAt);
    if (missed) {
      const q = ctx.jobs.enqueue<RunPayload>(FLOW_RUN_QUEUE, { flowId: f.id, trigger: 'schedule' }, { name: `flow schedule ${f.id}`, maxAttempts: 3 });
      flows.setState(ctx.db, f.id, { nextQueueJobId: q.id }, ctx.clock.now());
    } else scheduleNext(ctx, f);
    fixed++;
  }
  return fixed;
}
