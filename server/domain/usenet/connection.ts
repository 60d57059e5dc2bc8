import fs from 'node:fs';
import { z } from 'zod';
import { headerToken } from '../settings/fields.js';
import type { Settings } from '../settings/schema.js';
import type { SettingsStore } from '../settings/store.js';
import { testConnection } from '../settings/testConnection.js';
import { localCompletedPath } from './paths.js';
import { NzbgetClient } from '../../integrations/nzbget/index.js';
import { ProwlarrClient } from '../../integrations/prowlarr/index.js';
import { SabnzbdClient } from '../../integrations/sabnzbd/index.js';

/** The Usenet source (decisions §7): Prowlarr searches, SABnzbd or NZBGet downloads. */

type Integrations = Settings['integrations'];

const filled = (...values: string[]) => values.every((v) => v.trim() !== '');

/** Settings present (the `*Configured` flags of GET /api/health); `enabled` is reported separately. */
export function usenetStatus(i: Integrations) {
  const prowlarrConfigured = filled(i.prowlarr.url, i.prowlarr.apiKey);
  const sabnzbdConfigured = filled(i.sabnzbd.url, i.sabnzbd.apiKey);
  // NZBGet may run without a login; its URL is what it needs.
  const nzbgetConfigured = filled(i.nzbget.url);
  const configured = prowlarrConfigured && (sabnzbdConfigured || nzbgetConfigured);
  const enabled =
    configured &&
    i.prowlarr.enabled &&
    ((sabnzbdConfigured && i.sabnzbd.enabled) || (nzbgetConfigured && i.nzbget.enabled));
  // The client that would download: the enabled configured one with the lower priority number.
  const clients = [
    ...(sabnzbdConfigured && i.sabnzbd.enabled ? [i.sabnzbd.priority] : []),
    ...(nzbgetConfigured && i.nzbget.enabled ? [i.nzbget.priority] : []),
  ];
  const priority = clients.length ? Math.min(...clients) : Math.min(i.sabnzbd.priority, i.nzbget.priority);
  return { configured, enabled, priority, prowlarrConfigured, sabnzbdConfigured, nzbgetConfigured };
}

const TEST_TIMEOUT_MS = 10_000;

export const PROWLARR_NOT_CONFIGURED = 'Prowlarr is not configured: set its URL and API key (integrations.prowlarr.url, integrations.prowlarr.apiKey)';
export const SABNZBD_NOT_CONFIGURED = 'SABnzbd is not configured: set its URL and API key (integrations.sabnzbd.url, integrations.sabnzbd.apiKey)';
export const NZBGET_NOT_CONFIGURED = 'NZBGet is not configured: set its URL (integrations.nzbget.url) and, if it asks for one, its username and password';

export const prowlarrClient = (url: string, apiKey: string, timeoutMs = TEST_TIMEOUT_MS) => new ProwlarrClient({ baseUrl: url, apiKey, timeoutMs });
export const sabnzbdClient = (url: string, apiKey: string, timeoutMs = TEST_TIMEOUT_MS) => new SabnzbdClient({ baseUrl: url, apiKey, timeoutMs });
export const nzbgetClient = (url: string, username: string, password: string, timeoutMs = TEST_TIMEOUT_MS) =>
  new NzbgetClient({ baseUrl: url, username, password, timeoutMs });

/** Status plus the indexers, so a key that works but has nothing to search says so. */
export async function testProwlarr(client: ProwlarrClient) {
  const status = await client.status();
  const indexers = await client.indexers();
  const usenet = indexers.filter((i) => i.protocol === 'usenet' && i.enable).length;
  return {
    success: true as const,
    version: status.version,
    usenetIndexers: usenet,
    message:
      usenet > 0
        ? `Connected to Prowlarr ${status.version}; ${usenet} enabled Usenet indexer${usenet === 1 ? '' : 's'}`
        : `Connected to Prowlarr ${status.version}, but it has no enabled Usenet indexer`,
  };
}

export interface CompletedFolder {
  /** The folder as the download client reports it. */
  reported: string;
  /** Where this computer looks for it (after `completedPath`). */
  local: string;
  readable: boolean;
  reason: string | null;
}

/** Can this computer read the client's completed folder? Filing downloads depends on it. */
export function completedFolder(reported: string, completedPath: string): CompletedFolder {
  const local = localCompletedPath(reported, reported, completedPath) ?? reported;
  if (reported === '' && completedPath === '') return { reported, local, readable: false, reason: 'the download client reports no completed folder' };
  try {
    if (!fs.statSync(local).isDirectory()) return { reported, local, readable: false, reason: 'not a folder' };
    fs.accessSync(local, fs.constants.R_OK);
    return { reported, local, readable: true, reason: null };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'folder not found on this computer; set completedPath to where it is mounted here'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : 'not readable';
    return { reported, local, readable: false, reason };
  }
}

const withFolder = (connected: string, folder: CompletedFolder, confirmed: boolean) =>
  !folder.readable
    ? `${connected}, but its completed folder ${folder.local} is not readable here: ${folder.reason}`
    : confirmed
      ? `${connected}; completed folder readable at ${folder.local} and confirmed: finished downloads are copied only from there`
      : `${connected}; completed folder readable at ${folder.local}`;

/**
 * With `completedPath` empty, a readable completed folder the client reports is saved as the
 * confirmed one (`confirmedCompletedPath`): pressing Test is how an administrator confirms it, and
 * downloads are then taken only from there. Returns the folder it confirmed, or null.
 */
function confirmFolder(settings: SettingsStore, name: 'sabnzbd' | 'nzbget', folder: CompletedFolder): string | null {
  const saved = settings.get().integrations[name];
  if (saved.completedPath.trim() !== '' || !folder.readable || folder.reported === '') return null;
  if (saved.confirmedCompletedPath !== folder.reported) settings.update({ integrations: { [name]: { confirmedCompletedPath: folder.reported } } });
  return folder.reported;
}

export async function testSabnzbd(client: SabnzbdClient, settings: SettingsStore) {
  const { version } = await client.testConnection();
  const completed = completedFolder(await client.completeDir(), settings.get().integrations.sabnzbd.completedPath);
  const confirmed = confirmFolder(settings, 'sabnzbd', completed);
  return { success: true as const, version, completedFolder: completed, confirmedFolder: confirmed, message: withFolder(`Connected to SABnzbd ${version}`, completed, confirmed !== null) };
}

export async function testNzbget(client: NzbgetClient, settings: SettingsStore) {
  const version = await client.version();
  const completed = completedFolder(await client.destDir(), settings.get().integrations.nzbget.completedPath);
  const confirmed = confirmFolder(settings, 'nzbget', completed);
  return { success: true as const, version, completedFolder: completed, confirmedFolder: confirmed, message: withFolder(`Connected to NZBGet ${version}`, completed, confirmed !== null) };
}

/** Prowlarr's indexers as the settings screen lists them. */
export async function listIndexers(client: ProwlarrClient) {
  const indexers = await client.indexers();
  return indexers.map((i) => ({
    id: i.id,
    name: i.name,
    protocol: i.protocol,
    enabled: i.enable,
    priority: i.priority ?? null,
    supportsSearch: i.supportsSearch ?? null,
    audioCategories: (i.capabilities?.categories ?? []).some((c) => c.id >= 3000 && c.id < 4000),
  }));
}

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const apiKeyBody = z.object({ url, apiKey: headerToken }).partial().strict().optional();
const nzbgetBody = z.object({ url, username: z.string().max(256), password: z.string().max(1024) }).partial().strict().optional();

/** The bodies of the connection tests: any of the fields (absent or masked secrets: the saved ones). */
export const usenetTestBodies = { prowlarr: apiKeyBody, sabnzbd: apiKeyBody, nzbget: nzbgetBody } as const;
export type UsenetTestName = keyof typeof usenetTestBodies;

/** The saved Prowlarr's URL and API key (GET /api/settings/prowlarr/indexers); 503 NOT_CONFIGURED without them. */
export function savedProwlarr(settings: SettingsStore): ProwlarrClient {
  const c = testConnection({ setting: 'integrations.prowlarr', field: 'apiKey', saved: settings.get().integrations.prowlarr, body: undefined, notConfigured: PROWLARR_NOT_CONFIGURED });
  return prowlarrClient(c.url, c.secret);
}

/**
 * The connection tests of Prowlarr, SABnzbd and NZBGet (POST /api/settings/<name>/test and
 * download-clients/<name>/test): the form's values, the saved ones for what it leaves out or masks.
 */
export function testUsenetConnection(
  settings: SettingsStore,
  name: UsenetTestName,
  body: { url?: string; apiKey?: string; username?: string; password?: string } | undefined,
): Promise<unknown> {
  const integrations = settings.get().integrations;
  if (name === 'prowlarr') {
    const c = testConnection({ setting: 'integrations.prowlarr', field: 'apiKey', saved: integrations.prowlarr, body, notConfigured: PROWLARR_NOT_CONFIGURED });
    return testProwlarr(prowlarrClient(c.url, c.secret));
  }
  if (name === 'sabnzbd') {
    const c = testConnection({ setting: 'integrations.sabnzbd', field: 'apiKey', saved: integrations.sabnzbd, body, notConfigured: SABNZBD_NOT_CONFIGURED });
    return testSabnzbd(sabnzbdClient(c.url, c.secret), settings);
  }
  // NZBGet may run without a login.
  const c = testConnection({ setting: 'integrations.nzbget', field: 'password', saved: integrations.nzbget, body, notConfigured: NZBGET_NOT_CONFIGURED, secretRequired: false });
  return testNzbget(nzbgetClient(c.url, body?.username ?? integrations.nzbget.username, c.secret), settings);
}
