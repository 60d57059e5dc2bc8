import fs from 'node:fs';
import os from 'node:os';
import type { AppContext } from '../context.js';
import { publicUser, type Principal } from './auth/principal.js';

const configured = (...values: string[]) => values.every((v) => v.trim() !== '');

async function diskSpace(paths: string[]) {
  const out: { path: string; totalBytes: number; freeBytes: number }[] = [];
  for (const p of [...new Set(paths)]) {
    try {
      const s = await fs.promises.statfs(p);
      out.push({ path: p, totalBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize });
    } catch {
      // a folder that is gone or unreadable is simply not reported
    }
  }
  return out;
}

/** The detailed part of GET /api/health (decisions §7); areas add their own fields. */
export async function healthReport(ctx: AppContext, principal: Principal, ip: string) {
  const s = ctx.settings.get();
  const i = s.integrations;
  const lidarrConfigured = configured(i.lidarr.url, i.lidarr.apiKey);
  const slskdConfigured = configured(i.slskd.url);
  const sqliteVersion = (ctx.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  const now = ctx.clock.now();
  const report: Record<string, unknown> = {
    user: publicUser(principal),
    authUser: principal.username,
    lidarr: { configured: lidarrConfigured, circuitOpen: false },
    lidarrConfigured,
    slskdConfigured,
    usenetConfigured: false,
    sabnzbdConfigured: false,
    nzbgetConfigured: false,
    prowlarrConfigured: false,
    ytdlpConfigured: false,
    lastfmConfigured: configured(i.lastfm.apiKey),
    musicbrainzConfigured: false,
    metadataConfigured: false,
    ticketmasterConfigured: false,
    newsConfigured: false,
    inboxEnabled: false,
    rootFolderConfigured: configured(i.lidarr.rootFolderPath) || configured(s.downloads.folderPath),
    proxyAuthEnabled: ctx.config.authProxy !== null,
    downloadSources: {
      slskd: { id: 'slskd', label: 'Soulseek (slskd)', configured: slskdConfigured, enabled: false, priority: 10 },
      usenet: { id: 'usenet', label: 'Usenet', configured: false, enabled: false, priority: 20 },
      ytdlp: { id: 'ytdlp', label: 'yt-dlp', configured: false, enabled: false, priority: 50 },
    },
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
      database: { engine: 'sqlite', label: 'SQLite', version: sqliteVersion },
      diskSpace: await diskSpace([ctx.config.dataDir, ...ctx.config.musicDirs, ...s.library.musicFolders]),
      startedAt: new Date(ctx.startedAt).toISOString(),
      uptimeSeconds: Math.floor((now - ctx.startedAt) / 1000),
      startupDirectory: process.cwd(),
      links: [],
    },
    websocket: (({ totalClients, channels }) => ({ clients: totalClients, channels }))(ctx.hub.stats()),
    localNetworkBypass: ctx.auth.lanBypassStatus(ip),
    library: { artistCount: 0, lastScan: null },
    discovery: { enabled: false, recommendations: false, trending: false, nearbyShows: false },
  };
  for (const contribute of ctx.health) Object.assign(report, await contribute(principal));
  return report;
}
