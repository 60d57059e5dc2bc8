import { ValidationError } from '../errors.js';
import { SECRET_FIELD, SECRET_MASK, type Settings, type WebhookSettings } from './schema.js';

/**
 * A stored secret (API key, password, token) goes only to the origin (scheme, host and port) it was
 * saved with. Changing an integration's URL to another origin while sending the secret back masked
 * (or leaving it out) would hand it to a host nobody entered it for, so it must be typed again.
 */
export const SECRET_REENTRY_REQUIRED = 'SECRET_REENTRY_REQUIRED';

const labels: Record<string, string> = { apiKey: 'API key', apiSecret: 'API secret', password: 'password', token: 'token', webhookUrl: 'webhook address' };

/** `scheme://host:port` of a URL; '' when empty or not a URL. */
export function originOf(url: string): string {
  try {
    return url.trim() === '' ? '' : new URL(url).origin;
  } catch {
    return '';
  }
}

/** True when the value means "keep the stored secret": the mask, or nothing at all. */
export function keepsStoredSecret(value: unknown): boolean {
  return value === undefined || value === SECRET_MASK;
}

function reentryError(path: string, field: string, to: string, from: string): ValidationError {
  const what = labels[field] ?? field;
  const message =
    `${path}: the URL now points at ${to}${from ? ` instead of ${from}` : ''}; enter the ${what} again ` +
    `(a stored ${what} is only sent to the address it was saved for)`;
  return new ValidationError(message, SECRET_REENTRY_REQUIRED, [{ path, message }]);
}

/**
 * The secret a connection test sends: the one typed in, or the stored one when the test keeps it
 * and its URL has the saved URL's origin. 400 SECRET_REENTRY_REQUIRED otherwise.
 */
export function secretForTest(args: { setting: string; field: string; saved: { url: string; secret: string }; url: string; secret: unknown }): string {
  if (!keepsStoredSecret(args.secret)) return String(args.secret);
  if (args.saved.secret === '') return '';
  const from = originOf(args.saved.url);
  const to = originOf(args.url);
  if (from !== to) throw reentryError(`${args.setting}.${args.field}`, args.field, to, from);
  return args.saved.secret;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Refuses a settings change that moves an integration to another origin while keeping a stored
 * secret. Clearing the URL is allowed (nothing is sent); a secret typed in the same change is fine.
 */
export function refuseSecretsMovedToAnotherOrigin(previous: Settings, patch: unknown, next: Settings): void {
  // Connections live in `integrations`, and for Jellyfin in `playback` (decisions §12).
  for (const section of ['integrations', 'playback'] as const) {
    const patchBlocks = isObject(patch) && isObject(patch[section]) ? patch[section] : {};
    for (const [name, block] of Object.entries(next[section]) as Array<[string, Json]>) {
      if (typeof block.url !== 'string' || block.url === '') continue;
      const before = (previous[section] as Record<string, Json>)[name] ?? {};
      const from = originOf(String(before.url ?? ''));
      const to = originOf(block.url);
      if (from === to) continue;
      const sent = isObject(patchBlocks[name]) ? patchBlocks[name] : {};
      for (const [field, value] of Object.entries(block)) {
        if (!SECRET_FIELD.test(field) || typeof value !== 'string' || value === '') continue;
        if (keepsStoredSecret(sent[field]) && before[field] === value) throw reentryError(`${section}.${name}.${field}`, field, to, from);
      }
    }
  }
}

type WebhookTarget = Pick<WebhookSettings, 'url' | 'headers'>;

/**
 * A webhook's headers with masked values replaced by the saved webhook's (same id), only while the
 * URL keeps the saved origin; 400 SECRET_REENTRY_REQUIRED otherwise.
 */
export function headersWithSaved(path: string, saved: WebhookTarget | undefined, sent: { url: unknown; headers?: unknown }): unknown {
  if (!isObject(sent.headers)) return sent.headers;
  const out: Json = {};
  for (const [name, value] of Object.entries(sent.headers)) {
    if (value !== SECRET_MASK) {
      out[name] = value;
      continue;
    }
    const stored = saved && Object.entries(saved.headers).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
    const from = saved ? originOf(saved.url) : '';
    const to = originOf(typeof sent.url === 'string' ? sent.url : '');
    if (stored === undefined || from !== to) throw reentryError(`${path}.headers.${name}`, `${name} header`, to, from);
    out[name] = stored;
  }
  return out;
}

/** The settings patch with masked webhook header values restored from the stored webhooks (matched by id). */
export function restoreMaskedWebhookHeaders(previous: Settings, patch: unknown): unknown {
  if (!isObject(patch) || !isObject(patch.notifications) || !Array.isArray(patch.notifications.webhooks)) return patch;
  const webhooks = patch.notifications.webhooks.map((w: unknown, i: number) => {
    if (!isObject(w)) return w;
    const saved = previous.notifications.webhooks.find((s) => s.id === w.id);
    // Without a URL the webhook is invalid anyway; the schema names that.
    if (typeof w.url !== 'string') return w;
    return { ...w, headers: headersWithSaved(`notifications.webhooks.${i}`, saved, { url: w.url, headers: w.headers }) };
  });
  return { ...patch, notifications: { ...patch.notifications, webhooks } };
}
