import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sqliteVersion } from '../db/connection.js';
import { publicUser, type Principal } from './auth/principal.js';
import { downloadsRoot, type Deps as DownloadsLayoutDeps } from './downloads/layout.js';
import { DOWNLOAD_SOURCES, type SourcesDeps } from './downloads/sources/index.js';
import { activeNewsFeeds } from '../integrations/news/sources.js';
import type { Kernel } from '../kernel.js';
import type { OidcService } from './auth/oidc.js';
import type { AuthService } from './auth/service.js';
import type { Broadcaster } from './events.js';
import type { SettingsStore } from './settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
/** Adds fields to the detailed `GET /api/health` answer (integrations, library, ...); areas.ts declares them. */
export type HealthContributor = (principal: Principal) => Record<string, unknown> | Promise<Record<string, unknown>>;

export type Deps =
  Pick<Kernel, 'appVersion' | 'clock' | 'config' | 'db' | 'dbPath' | 'startedAt'>
  & {
    auth: AuthService;
    health: HealthContributor[];
    hub: Broadcaster;
    settings: SettingsStore;
    oidc: OidcService;
  }
  & DownloadsLayoutDeps
  & SourcesDeps;

const configured = (...values: string[]) => values.every((v) => v.trim() !== '');

type DiskRole = 'data' | 'music' | 'downloads';

/**
 * One `system.diskSpace[]` item per folder the server uses. A folder that does not exist (yet) is
 * measured on its nearest existing parent (`statTarget`) and reported with `available: false`.
 */
export async function diskSpace(folders: { role: DiskRole; location: string }[]) {
  const seen = new Set<string>();
  const out = [];
  for (const { role, location } of folders) {
    if (!location || seen.has(`${role}\u0000${location}`)) continue;
    seen.add(`${role}\u0000${location}`);
    let statTarget = path.resolve(location);
    let available = true;
    let stats: fs.StatsFs | null = null;
    for (;;) {
      try {
        stats = await fs.promises.statfs(statTarget);
        break;
      } catch {
        available = false;
        const parent = path.dirname(statTarget);
        if (parent === statTarget) break;
        statTarget = parent;
      }
    }
    const totalBytes = stats ? stats.blocks * stats.bsize : null;
    const freeBytes = stats ? stats.bavail * stats.bsize : null;
    const usedPercent =
      stats && stats.blocks > 0 ? Math.round(((stats.blocks - stats.bfree) / stats.blocks) * 1000) / 10 : null;
    out.push({ role, location, statTarget, available, freeBytes, totalBytes, usedPercent });
  }
  return out;
}

/** The discovery block of decisions §7; honest zeros until discovery exists in this build. */
const discoveryIdle = {
  provider: null,
  capabilities: {
    arbitraryTagSearch: false,
    flows: { discover: false, focus: false, mix: false, trending: false },
    genreSections: false,
    globalTrending: false,
    personalizedRecommendations: false,
    relatedArtists: false,
  },
  isUpdating: false,
  lastUpdated: null,
  recommendationsCount: 0,
  globalTopCount: 0,
  cachedImagesCount: 0,
  cachedImagesSizeBytes: 0,
  updatePhase: null,
  updateProgress: null,
  updateProgressMessage: null,
};

/** The detailed part of GET /api/health (decisions §7); areas add their own fields. */
export async function healthReport(ctx: Deps, principal: Principal, ip: string) {
  const s = ctx.settings.get();
  const i = s.integrations;
  const lidarrConfigured = configured(i.lidarr.url, i.lidarr.apiKey);
  const sources = DOWNLOAD_SOURCES.map((source) => ({ source, health: source.health(ctx) }));
  const now = ctx.clock.now();
  const report: Record<string, unknown> = {
    user: publicUser(principal),
    authUser: principal.username,
    lidarr: { configured: lidarrConfigured, circuitOpen: false },
    lidarrConfigured,
    // Each source's `*Configured` flags (slskdConfigured, usenetConfigured, ..., ytdlpConfigured).
    ...Object.assign({}, ...sources.map((s) => s.health.flags)),
    lastfmConfigured: configured(i.lastfm.apiKey),
    musicbrainzConfigured: false,
    metadataConfigured: false,
    ticketmasterConfigured: i.ticketmaster.enabled && configured(i.ticketmaster.apiKey),
    // The built-in publications count: news works without a NewsAPI key unless every feed is switched off.
    newsConfigured: i.news.enabled && (configured(i.news.apiKey) || activeNewsFeeds(i.news).length > 0),
    inboxEnabled: s.inbox.enabled,
    rootFolderConfigured: configured(i.lidarr.rootFolderPath) || configured(s.downloads.folderPath),
    proxyAuthEnabled: ctx.config.authProxy !== null,
    proxyLogoutUrl: ctx.config.proxyLogoutUrl,
    oidcLogoutUrl: ctx.oidc.enabled() ? ctx.oidc.settings().logoutUrl : null,
    // Sources exist in settings before their download pipeline does; `enabled` reports the user's switch.
    downloadSources: Object.fromEntries(sources.map(({ source, health }) => [source.id, { id: source.id, label: source.label, ...health.entry }])),
    metadataProviders: {},
    system: {
      version: ctx.appVersion,
      platform: process.platform,
      arch: process.arch,
      nodeVersion: process.version,
      hostname: os.hostname(),
      mode: 'server',
      docker: fs.existsSync('/.dockerenv'),
      dataDir: ctx.config.dataDir,
      databasePath: ctx.dbPath,
      database: { engine: 'sqlite', label: 'SQLite', version: sqliteVersion(ctx.db) },
      diskSpace: await diskSpace([
        { role: 'data', location: ctx.config.dataDir },
        ...[...ctx.config.musicDirs, ...s.library.musicFolders].map((location) => ({ role: 'music' as const, location })),
        { role: 'downloads', location: downloadsRoot(ctx) },
      ]),
      startedAt: new Date(ctx.startedAt).toISOString(),
      uptimeSeconds: Math.floor((now - ctx.startedAt) / 1000),
      startupDirectory: process.cwd(),
      links: [],
    },
    websocket: (({ totalClients, channels }) => ({ clients: totalClients, channels }))(ctx.hub.stats()),
    localNetworkBypass: ctx.auth.lanBypassStatus(ip),
    library: { artistCount: 0, lastScan: null },
    discovery: discoveryIdle,
  };
  for (const contribute of ctx.health) Object.assign(report, await contribute(principal));
  return report;
}
