import { NotConfiguredError } from '../errors.js';
import { secretForTest } from './secretOrigin.js';

/** What a connection test connects with (testConnection below). */
export interface TestConnection {
  url: string;
  secret: string;
  /** The saved URL and secret exactly: the caller may use the connection it already keeps. */
  isSaved: boolean;
}

/**
 * The URL and secret a settings "Test" button sends (api.md §4.13): the form's values, and the saved
 * ones for what it leaves out or sends masked. The saved secret only goes to the saved origin (400
 * SECRET_REENTRY_REQUIRED otherwise, secretOrigin.ts). 503 NOT_CONFIGURED with `notConfigured` when
 * there is no URL, or no secret where the service needs one. Every connection test of the settings
 * (Lidarr, slskd, Prowlarr, SABnzbd, NZBGet, Navidrome, Gotify, ntfy, the playback servers) goes through here.
 */
export function testConnection<F extends string>(args: {
  /** The settings block, e.g. `integrations.slskd` (names the field in errors). */
  setting: string;
  /** The secret's field in that block: `apiKey`, `password`, `token`. */
  field: F;
  saved: { url: string } & Record<F, string>;
  body: ({ url?: string } & Partial<Record<F, unknown>>) | undefined;
  notConfigured: string;
  /** False where the service may run without one (NZBGet's login, an ntfy token, a Subsonic password). */
  secretRequired?: boolean;
}): TestConnection {
  const { setting, field, saved, body } = args;
  const url = body?.url ?? saved.url;
  const secret = secretForTest({ setting, field, saved: { url: saved.url, secret: saved[field] }, url, secret: body?.[field] });
  if (!url || ((args.secretRequired ?? true) && !secret)) throw new NotConfiguredError(setting, args.notConfigured);
  return { url, secret, isSaved: url === saved.url && secret === saved[field] };
}
