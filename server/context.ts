import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/connection.js';
import type { JobsRepository } from './db/jobs.js';
import type { SettingsRepository } from './db/settings.js';
import type { FailedLogins } from './domain/auth/failedLogins.js';
import type { AuthService } from './domain/auth/service.js';
import type { Principal } from './domain/auth/principal.js';
import type { InterfaceLister } from './domain/auth/lanBypass.js';
import type { SettingsStore } from './domain/settings/store.js';
import type { UsersService } from './domain/users/service.js';
import type { Logger } from './log.js';
import type { Secrets } from './secrets.js';
import type { JobQueue } from './jobs/queue.js';
import type { Scheduler } from './jobs/scheduler.js';
import type { Hub } from './ws/hub.js';

export { systemClock, type Clock } from './clock.js';

/** Adds fields to the detailed `GET /api/health` answer (integrations, library, ...). */
export type HealthContributor = (principal: Principal) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Everything a route factory or a service needs, built once at start-up. */
export interface AppContext {
  config: Config;
  db: Db;
  dbPath: string;
  clock: Clock;
  log: Logger;
  secrets: Secrets;
  kv: SettingsRepository;
  settings: SettingsStore;
  users: UsersService;
  auth: AuthService;
  /** The shared limiter on failed password checks (login, Basic, /rest, password change, OIDC exchange). */
  failedLogins: FailedLogins;
  hub: Hub;
  /** Durable background work: areas register queues and enqueue jobs; it starts after every area. */
  jobs: JobQueue;
  jobsRepo: JobsRepository;
  /** Recurring tasks on the job queue; areas define theirs while starting. */
  scheduler: Scheduler;
  /** This computer's network interfaces (injectable for tests); undefined means the real ones. */
  interfaces?: InterfaceLister;
  appVersion: string;
  startedAt: number;
  /** Capability names for `api.features`; an area adds its name once its routes work. */
  features: Set<string>;
  health: HealthContributor[];
  /** Runs on shutdown, last registered first. */
  onClose(fn: () => void | Promise<void>): void;
}
