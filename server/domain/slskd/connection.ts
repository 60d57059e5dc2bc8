import fs from 'node:fs';
import { z } from 'zod';
import { SlskdClient } from '../../integrations/slskd/index.js';
import { NotConfiguredError } from '../errors.js';
import { headerToken } from '../settings/fields.js';
import type { Settings } from '../settings/schema.js';
import { testConnection } from '../settings/testConnection.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock'> & { settings: SettingsStore; slskd: SlskdConnection };

export const SLSKD_NOT_CONFIGURED =
  'slskd is not configured: set its URL and API key in Settings (integrations.slskd.url, integrations.slskd.apiKey)';

/** A client for an slskd at `url`; the breaker reads the server's clock so tests can move past it. */
export function slskdClient(url: string, apiKey: string, clock: { now(): number }, timeoutMs = 15_000): SlskdClient {
  return new SlskdClient({ baseUrl: url, apiKey, timeoutMs, breaker: { now: () => clock.now() } });
}

/**
 * The configured slskd: one client (one breaker, one concurrency cap) for every caller, rebuilt
 * when the URL or API key changes.
 */
export class SlskdConnection {
  private client: SlskdClient | null = null;
  private key = '';

  constructor(private readonly ctx: Deps) {}

  get settings() {
    return this.ctx.settings.get().integrations.slskd;
  }

  get configured(): boolean {
    const s = this.settings;
    return s.enabled && s.url.trim() !== '' && s.apiKey.trim() !== '';
  }

  /** The shared client, or null when slskd is not configured. */
  current(): SlskdClient | null {
    if (!this.configured) return null;
    const s = this.settings;
    const key = `${s.url}\u0000${s.apiKey}`;
    if (!this.client || key !== this.key) {
      this.client = slskdClient(s.url, s.apiKey, this.ctx.clock);
      this.key = key;
    }
    return this.client;
  }

  /** The shared client; 409 NOT_CONFIGURED naming the missing settings otherwise. */
  require(): SlskdClient {
    const client = this.current();
    if (!client && !this.settings.enabled)
      throw new NotConfiguredError('integrations.slskd.enabled', 'slskd is switched off in Settings (integrations.slskd.enabled)');
    if (!client) throw new NotConfiguredError('integrations.slskd', SLSKD_NOT_CONFIGURED);
    return client;
  }

  get circuitOpen(): boolean {
    return this.client?.circuitOpen ?? false;
  }

  /** What slskd last said about its Soulseek server connection, for the client it was asked through. */
  private known: { client: SlskdClient; serverState: string | null; at: number } | null = null;
  private asking: Promise<void> | null = null;

  /**
   * slskd's Soulseek server state as it last reported it (e.g. `Connected, LoggedIn`), or null when
   * slskd is not configured or has not answered yet. Once the answer is a minute old (or missing)
   * slskd is asked again in the background; the caller never waits for it.
   */
  serverState(): string | null {
    const client = this.current();
    if (!client) return null;
    const known = this.known?.client === client ? this.known : null;
    if ((!known || this.ctx.clock.now() - known.at >= SERVER_STATE_FRESH_MS) && !this.asking && !client.circuitOpen) {
      this.asking = client
        .status()
        .then((st) => {
          this.known = { client, serverState: st.serverState ?? (st.connected ? 'Connected' : 'Disconnected'), at: this.ctx.clock.now() };
        })
        .catch(() => {
          this.known = { client, serverState: null, at: this.ctx.clock.now() };
        })
        .finally(() => {
          this.asking = null;
        });
    }
    return known?.serverState ?? null;
  }
}

/** How long slskd's reported server state is reused before it is asked again. */
const SERVER_STATE_FRESH_MS = 60_000;


export interface DownloadsFolderAccess {
  /** The folder slskd reports in its options (its own view, maybe inside a container); null when it reports none. */
  reported: string | null;
  /** Where this computer looks: `integrations.slskd.downloadPath`, or the reported folder when that is empty. */
  localPath: string | null;
  reachable: boolean;
  reason: string | null;
}

/** Can this computer read slskd's downloads folder? (Files are copied out of it, never moved.) */
export function downloadsFolderAccess(reported: string | null, downloadPath: string): DownloadsFolderAccess {
  const localPath = downloadPath.trim() !== '' ? downloadPath : reported;
  if (!localPath) {
    return { reported, localPath: null, reachable: false, reason: 'slskd reports no downloads folder; set integrations.slskd.downloadPath' };
  }
  const hint = downloadPath.trim() === '' ? ' (if slskd runs in a container or on another computer, set integrations.slskd.downloadPath)' : '';
  try {
    if (!fs.statSync(localPath).isDirectory()) return { reported, localPath, reachable: false, reason: `${localPath} is not a folder${hint}` };
    fs.accessSync(localPath, fs.constants.R_OK);
    return { reported, localPath, reachable: true, reason: null };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist on this computer' : code === 'EACCES' ? 'is not readable by this server' : 'cannot be opened';
    return { reported, localPath, reachable: false, reason: `${localPath} ${why}${hint}` };
  }
}

type SlskdFolders = Pick<Settings['integrations']['slskd'], 'downloadPath' | 'confirmedDownloadPath'>;

/**
 * The only folder finished slskd downloads are taken from: `downloadPath` when an administrator set
 * it, else the folder confirmed at the last Test (what slskd reported then); null when neither is
 * set. What slskd reports later is never trusted on its own: a client (or something posing as one)
 * could otherwise point the server at any folder on this computer.
 */
export function slskdTakeFolder(s: SlskdFolders): { path: string; origin: 'configured' | 'confirmed' } | null {
  if (s.downloadPath.trim() !== '') return { path: s.downloadPath, origin: 'configured' };
  if (s.confirmedDownloadPath.trim() !== '') return { path: s.confirmedDownloadPath, origin: 'confirmed' };
  return null;
}

/**
 * The connection test: slskd's version, its Soulseek connection, and whether its downloads folder
 * is reachable here. With `downloadPath` empty, a reachable folder slskd reports is saved as the
 * confirmed one (`confirmedDownloadPath`): pressing Test is how an administrator confirms it.
 */
export async function testSlskd(client: SlskdClient, settings: SettingsStore) {
  const saved = settings.get().integrations.slskd;
  const status = await client.status();
  const downloads = downloadsFolderAccess(await client.downloadsDirectory(), saved.downloadPath);
  const confirm = saved.downloadPath.trim() === '' && downloads.reachable && downloads.reported ? downloads.reported : null;
  if (confirm && confirm !== saved.confirmedDownloadPath) settings.update({ integrations: { slskd: { confirmedDownloadPath: confirm } } });
  const parts = [`Connected to slskd ${status.version}`];
  parts.push(status.connected ? 'logged in to Soulseek' : `not connected to Soulseek (${status.serverState ?? 'disconnected'})`);
  parts.push(
    !downloads.reachable
      ? `downloads folder not reachable: ${downloads.reason}`
      : confirm
        ? `downloads folder ${downloads.localPath} reachable and confirmed: finished downloads are copied only from there`
        : `downloads folder ${downloads.localPath} reachable`,
  );
  return {
    success: true as const,
    version: status.version,
    soulseekConnected: status.connected,
    downloadsFolder: downloads,
    confirmedFolder: confirm,
    message: parts.join('; '),
  };
}

/** The body of slskd's connection test: any of URL and API key (absent or masked: the saved ones). */
export const slskdTestBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    apiKey: headerToken.min(1),
  })
  .partial()
  .optional();

/**
 * POST /api/settings/slskd/test (and download-clients/slskd/test): the form's URL and API key, the
 * saved ones for what it leaves out or masks; the saved connection's client when they are the saved ones.
 */
export function testSlskdConnection(ctx: Deps, body: { url?: string; apiKey?: string } | undefined) {
  const connection = ctx.slskd;
  const c = testConnection({ setting: 'integrations.slskd', field: 'apiKey', saved: connection.settings, body, notConfigured: SLSKD_NOT_CONFIGURED });
  const client = connection.configured && c.isSaved ? connection.require() : slskdClient(c.url, c.secret, ctx.clock, 10_000);
  return testSlskd(client, ctx.settings);
}
