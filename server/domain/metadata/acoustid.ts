import { createHash } from 'node:crypto';
import { AcoustIdClient, type AcoustIdMatch } from '../../integrations/acoustid/client.js';
import { chromaprintOf } from '../../library/chromaprint.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';
import type { MetadataService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'config'> & { settings: SettingsStore; metadata: MetadataService };

/**
 * What a file sounds like, by its Chromaprint fingerprint looked up on AcoustID
 * (`integrations.acoustid.apiKey`, TONEARM_ACOUSTID_URL). Lookups are cached in the metadata cache
 * (kind `acoustid`, keyed by a hash of fingerprint and duration) and spaced to AcoustID's 3/s.
 * Without a key, a tool or a reachable AcoustID the answer is `skipped` with the reason in words.
 */

export type SoundLookup = { status: 'skipped'; note: string } | { status: 'ok'; matches: AcoustIdMatch[] };

const CACHE_KIND = 'acoustid';
const FRESH_MS = 30 * 86_400_000;

export class AcoustIdService {
  private client: { key: string; api: AcoustIdClient } | null = null;

  constructor(private readonly ctx: Deps) {}

  /** Why the check cannot run (null: it can). */
  unavailable(): string | null {
    const s = this.ctx.settings.get().integrations.acoustid;
    if (!s.enabled) return 'the AcoustID check is switched off (integrations.acoustid.enabled)';
    if (!s.apiKey) return 'no AcoustID application key is set (Settings → integrations.acoustid.apiKey)';
    return null;
  }

  private api(): AcoustIdClient {
    const s = this.ctx.settings.get().integrations.acoustid;
    const ua = this.ctx.metadata.userAgent();
    const key = `${s.apiKey} ${ua}`;
    if (!this.client || this.client.key !== key) {
      const spacing = this.ctx.config.upstreams.spacingMs;
      this.client = {
        key,
        // AcoustID's 3 requests/s is kept even when tests shorten the other services' spacing.
        api: new AcoustIdClient({ baseUrl: this.ctx.config.upstreams.acoustid, apiKey: s.apiKey, userAgent: ua, ...(spacing !== null && { spacingMs: Math.max(spacing, 340) }) }),
      };
    }
    return this.client.api;
  }

  /** Fingerprints `file` (on the tool thread, at background priority) and looks it up. */
  async identify(file: string, durationMs: number, signal?: AbortSignal): Promise<SoundLookup> {
    const off = this.unavailable();
    if (off) return { status: 'skipped', note: off };
    const fp = await chromaprintOf(locateFfmpeg(this.ctx.config.ffmpegPath), file, signal);
    if ('unavailable' in fp) return { status: 'skipped', note: fp.unavailable };
    return this.lookup(fp.fingerprint, durationMs, signal);
  }

  async lookup(fingerprint: string, durationMs: number, signal?: AbortSignal): Promise<SoundLookup> {
    const seconds = Math.max(1, Math.round(durationMs / 1000));
    const cache = this.ctx.metadata.cache;
    const key = createHash('sha1').update(`${seconds}\u0000${fingerprint}`).digest('hex');
    const cached = cache.get(CACHE_KIND, key);
    if (cached && cached.found && this.ctx.clock.now() - cached.fetchedAt < FRESH_MS) return { status: 'ok', matches: cached.payload as AcoustIdMatch[] };
    try {
      const matches = await this.api().lookup(fingerprint, seconds, signal);
      cache.put(CACHE_KIND, key, matches, this.ctx.clock.now());
      return { status: 'ok', matches };
    } catch (err) {
      if (signal?.aborted) throw err;
      return { status: 'skipped', note: `the AcoustID lookup failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}

