import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/connection.js';
import type { JobsRepository } from './db/jobs.js';
import type { SettingsRepository } from './db/settings.js';
import type { Logger } from './log.js';
import type { Secrets } from './secrets.js';
import type { JobQueue } from './jobs/queue.js';
import type { Scheduler } from './jobs/scheduler.js';

export { systemClock, type Clock } from './clock.js';

/**
 * The infrastructure every part of the server may be given: configuration, the database, the clock,
 * the log, the job queue. A service names the fields it uses (`Pick<Kernel, 'db' | 'clock'>` plus the
 * services it calls) in its own deps type; the composition root (server/areas.ts, server/wiring.ts)
 * hands it the assembled context, which has them all.
 */
export interface Kernel {
  config: Config;
  db: Db;
  dbPath: string;
  clock: Clock;
  log: Logger;
  secrets: Secrets;
  kv: SettingsRepository;
  /** Durable background work: areas register queues and enqueue jobs; it starts after every area. */
  jobs: JobQueue;
  jobsRepo: JobsRepository;
  /** Recurring tasks on the job queue; areas define theirs while starting. */
  scheduler: Scheduler;
  appVersion: string;
  startedAt: number;
  /** Runs on shutdown, last registered first. */
  onClose(fn: () => void | Promise<void>): void;
}
