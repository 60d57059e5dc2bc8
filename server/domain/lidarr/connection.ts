import { LidarrClient } from '../../integrations/lidarr/index.js';
import { NotConfiguredError } from '../errors.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock'> & { settings: SettingsStore };

export const LIDARR_NOT_CONFIGURED =
  'Lidarr is not configured: set its URL and API key in Settings (integrations.lidarr.url, integrations.lidarr.apiKey)';

/**
 * A client for a Lidarr at `url`; the breaker reads the server's clock so tests can move past it.
 * `quoteNothing` for URLs anyone may type (onboarding): errors then never repeat the answer.
 */
export function lidarrClient(url: string, apiKey: string, clock: { now(): number }, timeoutMs = 15_000, quoteNothing = false): LidarrClient {
  return new LidarrClient({ baseUrl: url, apiKey, timeoutMs, maxConcurrent: 8, breaker: { now: () => clock.now() }, quoteNothing });
}

/**
 * The configured Lidarr: one client (one breaker, one concurrency cap) shared by every route and
 * background task, rebuilt when the URL or API key changes.
 */
export class LidarrConnection {
  private client: LidarrClient | null = null;
  private key = '';

  constructor(private readonly ctx: Deps) {}

  get settings() {
    return this.ctx.settings.get().integrations.lidarr;
  }

  get configured(): boolean {
    const s = this.settings;
    return s.enabled && s.url.trim() !== '' && s.apiKey.trim() !== '';
  }

  /** The shared client, or null when Lidarr is not configured. */
  current(): LidarrClient | null {
    if (!this.configured) return null;
    const s = this.settings;
    const key = `${s.url}\u0000${s.apiKey}`;
    if (!this.client || key !== this.key) {
      this.client = lidarrClient(s.url, s.apiKey, this.ctx.clock);
      this.key = key;
    }
    return this.client;
  }

  /** The shared client; 409 NOT_CONFIGURED naming the missing settings otherwise. */
  require(): LidarrClient {
    const client = this.current();
    if (!client && !this.settings.enabled)
      throw new NotConfiguredError('integrations.lidarr.enabled', 'Lidarr is switched off in Settings (integrations.lidarr.enabled)');
    if (!client) throw new NotConfiguredError('integrations.lidarr', LIDARR_NOT_CONFIGURED);
    return client;
  }

  get circuitOpen(): boolean {
    return this.client?.circuitOpen ?? false;
  }
}
