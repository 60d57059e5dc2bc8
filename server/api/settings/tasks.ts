import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { defineRoute } from '../../http/route.js';

const taskSchema = z.object({
  name: z.string(),
  queue: z.string(),
  schedule: z.string().describe('`@every 1h` or a cron expression in the server time zone'),
  nextRunAt: z.string().nullable(),
  lastStartedAt: z.string().nullable(),
  lastFinishedAt: z.string().nullable(),
  lastDurationMs: z.number().nullable(),
  lastStatus: z.string().nullable().describe('running, succeeded, failed or abandoned'),
  lastError: z.string().nullable(),
  running: z.boolean(),
  detail: z.string().nullable().describe('what is left for the task to do, when it says'),
});

/** api.md 4.13: the scheduled tasks of the durable job queue. */
export function taskRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/settings/tasks',
      summary: 'Scheduled tasks with last run, next run, duration and last error; queue depths',
      tag: 'settings',
      access: 'admin',
      response: z.object({
        tasks: z.array(taskSchema),
        queues: z.array(z.object({ queue: z.string(), pending: z.number(), running: z.number(), dead: z.number() })),
      }),
      handler: () => ({ tasks: ctx.scheduler.list(), queues: ctx.jobsRepo.counts() }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings/tasks/clear-stale',
      summary: 'Give back jobs stuck past their claim and close run records left running',
      tag: 'settings',
      access: 'admin',
      response: z.object({ success: z.literal(true), cleared: z.number().int() }),
      handler: () => ({ success: true as const, cleared: ctx.jobs.recoverLapsed() }),
    }),
  ];
}
