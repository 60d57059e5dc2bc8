import { LIDARR_INDEX_QUEUE, LidarrIndexService } from '../../library/lidarrIndexService.js';
import { RequestsService, type Deps as RequestsServiceDeps } from '../requests/service.js';
import { LidarrConnection, type Deps as LidarrConnectionDeps } from './connection.js';
import { DownloadStatuses, type Deps as LidarrDownloadStatusesDeps } from './downloadStatuses.js';
import { LidarrLibrary, type Deps as LidarrLibraryDeps } from './library.js';
import type { Kernel } from '../../kernel.js';
import type { Broadcaster } from '../events.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'dbPath' | 'jobs' | 'log' | 'onClose' | 'scheduler'>
  & {
    hub: Broadcaster;
    settings: SettingsStore;
    lidarr: LidarrServices;
  }
  & LidarrConnectionDeps
  & LidarrDownloadStatusesDeps
  & LidarrLibraryDeps
  & RequestsServiceDeps;

/** Everything Lidarr-related of one running server, built once per context. */
export interface LidarrServices {
  connection: LidarrConnection;
  index: LidarrIndexService;
  library: LidarrLibrary;
  statuses: DownloadStatuses;
  requests: RequestsService;
}

const RESYNC_MS = 6 * 3600_000;
/** The Lidarr services of a running server (built once by server/wiring.ts). */
export function createLidarrServices(ctx: Deps): LidarrServices {
  const connection = new LidarrConnection(ctx);
  const statuses = new DownloadStatuses(ctx, connection);
  let requestsService: RequestsService | null = null;
  const index = new LidarrIndexService({
    db: ctx.db,
    jobs: ctx.jobs,
    dbPath: ctx.dbPath,
    target: () => {
      if (!connection.configured) return null;
      const s = connection.settings;
      return { baseUrl: s.url, apiKey: s.apiKey, pathMappings: s.pathMappings };
    },
    broadcast: (type, payload) => ctx.hub.broadcast('library', type, payload, { audience: () => true }),
    log: ctx.log,
    now: () => ctx.clock.now(),
    onIndexed: () => {
      requestsService?.invalidate();
      statuses.nudge();
    },
  });
  const library = new LidarrLibrary(ctx, connection, {
    reindexArtists: (ids, reason) => index.requestArtists(ids, reason),
    downloadsChanged: () => {
      requestsService?.invalidate();
      statuses.nudge();
    },
  });
  requestsService = new RequestsService(ctx, connection, library, statuses);
  return { connection, index, library, statuses, requests: requestsService };
}

/** The Lidarr block of the detailed health answer. */
export function lidarrHealth(ctx: { lidarr: LidarrServices }) {
  const { connection } = ctx.lidarr;
  return {
    lidarr: { configured: connection.configured, circuitOpen: connection.circuitOpen },
    lidarrConfigured: connection.configured,
  };
}

/**
 * Background start: index Lidarr's library (incremental) at start, when the connection or path
 * mappings change, and every 6 hours; poll download statuses while anyone listens; report health.
 */
export function startLidarr(ctx: Deps): void {
  const lidarr = ctx.lidarr;
  ctx.scheduler.define({ name: LIDARR_INDEX_QUEUE, queue: LIDARR_INDEX_QUEUE, onDemand: true, detail: () => lidarr.index.describe() });
  lidarr.index.start();
  lidarr.library.registerJobs();
  lidarr.statuses.start();
  if (lidarr.connection.configured && ctx.config.scanOnStart) lidarr.index.requestFull('start-up');
  ctx.settings.onChange((next, previous) => {
    const a = next.integrations.lidarr;
    const b = previous.integrations.lidarr;
    const changed = a.url !== b.url || a.apiKey !== b.apiKey || JSON.stringify(a.pathMappings) !== JSON.stringify(b.pathMappings);
    if (changed && lidarr.connection.configured) lidarr.index.requestFull('Lidarr settings changed');
  });
  ctx.scheduler.define({
    name: 'lidarr-resync',
    every: RESYNC_MS,
    handler: () => {
      if (lidarr.connection.configured) lidarr.index.requestFull('periodic resync');
    },
  });
  ctx.onClose(async () => {
    lidarr.statuses.stop();
    await lidarr.index.stop();
  });
}
