import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { systemClock, type AppContext, type Clock } from './context.js';
import { inTransaction, openDatabase, shrinkMemory } from './db/connection.js';
import { jobsRepository } from './db/jobs.js';
import { sessionsRepository } from './db/sessions.js';
import { settingsRepository } from './db/settings.js';
import { usersRepository } from './db/users.js';
import { FailedLogins } from './domain/auth/failedLogins.js';
import { AuthService } from './domain/auth/service.js';
import type { InterfaceLister } from './domain/auth/lanBypass.js';
import { createSettingsStore } from './domain/settings/store.js';
import { UsersService } from './domain/users/service.js';
import { buildApp, mountUnderBasePath } from './http/app.js';
import { apiRoutes, routers, startAreas } from './areas.js';
import { createSocketAuthenticator } from './http/authenticate.js';
import { createLogger, type Logger } from './log.js';
import { prepareModuleWorkers } from './library/runWorker.js';
import { limitImageMemory } from './imageMemory.js';
import { reclaimWhenQuiet } from './memory.js';
import { loadSecrets } from './secrets.js';
import { JobQueue } from './jobs/queue.js';
import { Scheduler } from './jobs/scheduler.js';
import { Hub } from './ws/hub.js';
import { wire } from './wiring.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Finished jobs and run records are kept this long for the tasks screen and diagnosis. */
const JOB_HISTORY_MS = 7 * 24 * 3600_000;
/** Running jobs get this long to finish at shutdown; the whole shutdown stays within 5 s. */
const JOB_GRACE_MS = 2500;

function readAppVersion(): string {
  for (const candidate of [path.join(here, '..', 'package.json'), path.join(here, '..', '..', 'package.json')]) {
    try {
      return (JSON.parse(fs.readFileSync(candidate, 'utf8')) as { version: string }).version;
    } catch {
      // try the next location (source tree vs compiled dist/)
    }
  }
  return '0.0.0';
}

export interface StartOptions {
  config: Config;
  clock?: Clock;
  log?: Logger;
  /** Network interfaces, injectable so LAN auto-login is testable. */
  interfaces?: InterfaceLister;
}

export interface RunningServer {
  ctx: AppContext;
  http: http.Server;
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Opens the data directory and database, builds the app and starts listening. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  let { config } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  limitImageMemory();
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secrets = loadSecrets(config.dataDir);
  const dbPath = path.join(config.dataDir, 'tonearm.db');
  const db = openDatabase(dbPath, { reportStep: (msg, fields) => log.info(msg, fields) });

  const closers: (() => void | Promise<void>)[] = [];
  // After a busy spell, an idle server gives back its page cache and grown heap (server/memory.ts).
  closers.push(reclaimWhenQuiet(() => shrinkMemory(db)));
  const kv = settingsRepository(db);
  const settings = createSettingsStore(kv, { encryptionKey: secrets.encryptionKey });
  // The base path: TONEARM_BASE_PATH, else the setting (a change applies at the next start).
  if (!config.basePathFromEnv) config = { ...config, basePath: settings.get().network.basePath };
  const sessions = sessionsRepository(db);
  const users = new UsersService(usersRepository(db), sessions, secrets.encryptionKey, clock, (fn) => inTransaction(db, fn));
  const failedLogins = new FailedLogins({ clock, maxPerClient: config.rateLimit.loginMax, windowMs: config.rateLimit.windowMs });
  const auth = new AuthService({
    users,
    sessions,
    kv,
    settings,
    sessionKey: secrets.sessionKey,
    sessionTtlMs: config.sessionTtlMs,
    clock,
    failedLogins,
    ...(options.interfaces && { interfaces: options.interfaces }),
  });
  const hub = new Hub(createSocketAuthenticator(config, auth), log, clock);
  users.onDeactivated((userId) => hub.closeUser(userId));
  const jobsRepo = jobsRepository(db);
  const jobs = new JobQueue({ repo: jobsRepo, clock, log });
  const scheduler = new Scheduler(jobs, jobsRepo, clock, log);
  scheduler.define({ name: 'session-cleanup', every: 3600_000, handler: () => void auth.purgeExpiredSessions() });
  scheduler.define({
    name: 'job-history-prune',
    every: 24 * 3600_000,
    handler: () => void jobsRepo.prune(clock.now() - JOB_HISTORY_MS),
  });

  const ctx: AppContext = wire({
    config,
    db,
    dbPath,
    clock,
    log,
    secrets,
    kv,
    settings,
    users,
    auth,
    failedLogins,
    hub,
    jobs,
    jobsRepo,
    scheduler,
    ...(options.interfaces && { interfaces: options.interfaces }),
    appVersion: readAppVersion(),
    startedAt: clock.now(),
    features: new Set(),
    health: [],
    onClose: (fn) => void closers.push(fn),
  });

  // Run from the sources: the worker threads' bundles, before a scan on start needs one.
  await prepareModuleWorkers();
  await startAreas(ctx);
  // Registered last, so it runs first at shutdown: no job starts once areas begin to stop.
  closers.push(async () => {
    scheduler.stop();
    await jobs.stop(JOB_GRACE_MS);
  });
  jobs.start();
  scheduler.start();
  const { app } = buildApp(ctx, { apiRoutes, routers });
  const server = http.createServer(mountUnderBasePath(app, config.basePath));
  server.keepAliveTimeout = 65_000;
  hub.attach(server, config.basePath);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    ctx,
    http: server,
    port,
    url: `http://${shownHost}:${port}${config.basePath}`,
    close() {
      closing ??= (async () => {
        hub.close();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight streams are abandoned after a grace period, so shutdown stays under 5 s.
        const force = setTimeout(() => server.closeAllConnections(), 2000);
        for (const fn of closers.reverse()) {
          try {
            await fn();
          } catch (err) {
            log.error('shutdown step failed', { err });
          }
        }
        await stopped;
        clearTimeout(force);
        db.close();
      })();
      return closing;
    },
  };
}
