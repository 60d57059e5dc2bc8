import type { Settings } from '../settings/schema.js';
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

export async function testSabnzbd(client: SabnzbdClient) {
  const { version } = await client.testConnection();
  return { success: true as const, version, message: `Connected to SABnzbd ${version}` };
}

export async function testNzbget(client: NzbgetClient) {
  const version = await client.version();
  return { success: true as const, version, message: `Connected to NZBGet ${version}` };
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
