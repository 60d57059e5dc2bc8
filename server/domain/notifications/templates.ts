import type { NotificationEventType, WebhookSettings } from '../settings/schema.js';

/** The placeholder values of one event (`$artistName` …); empty strings where a value does not apply. */
export interface NotificationVars {
  event: NotificationEventType;
  artistName: string;
  trackName: string;
  albumName: string;
  status: string;
  reason: string;
  jobId: string;
  reviewUrl: string;
  /** The flow a track was downloaded for; empty until flows exist. */
  flowName: string;
  flowPath: string;
}

export const placeholderNames = [
  'event',
  'artistName',
  'trackName',
  'albumName',
  'status',
  'reason',
  'jobId',
  'reviewUrl',
  'flowName',
  'flowPath',
  'title',
  'message',
] as const;

/** The built-in title and message of each event; Gotify templates in the settings replace them. */
export const defaultTexts: Record<NotificationEventType, { title: string; message: string }> = {
  job_blocked: { title: 'Held for review: $artistName – $trackName', message: '$reason\n\nReview it: $reviewUrl' },
  job_failed: { title: 'Download failed: $artistName – $trackName', message: '$reason' },
  job_done: { title: 'Downloaded: $artistName – $trackName', message: '$albumName' },
  album_complete: { title: 'Album complete: $artistName – $albumName', message: 'Every track of $albumName is in the library.' },
};

const PLACEHOLDER = /\$([A-Za-z]+)/g;

/** JSON string escaping without the quotes, so `"$trackName"` in a template stays one valid string. */
const jsonEscape = (value: string) => JSON.stringify(value).slice(1, -1);

/**
 * Replaces `$name` with its value; unknown names stay as written. With `json`, values are
 * JSON-escaped (a title with quotes cannot break the document or add fields to it).
 */
export function fillPlaceholders(template: string, values: Record<string, string>, json = false): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name]!;
    return json ? jsonEscape(value) : value;
  });
}

/** The values including the rendered `$title` and `$message` of the event. */
export function placeholderValues(vars: NotificationVars, texts = defaultTexts[vars.event]): Record<string, string> {
  const base: Record<string, string> = { ...vars };
  // A line whose placeholders are all empty (no review address, no reason) is left out.
  const tidy = (text: string) =>
    text
      .split('\n')
      .filter((line) => {
        const names = [...line.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((n) => Object.hasOwn(base, n));
        return names.length === 0 || names.some((n) => base[n] !== '');
      })
      .map((line) => fillPlaceholders(line, base))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  return { ...base, title: tidy(texts.title), message: tidy(texts.message) };
}

/** Whether a body template is a JSON document (its placeholders then get JSON escaping). */
export function isJsonTemplate(template: string): boolean {
  try {
    JSON.parse(fillPlaceholders(template, Object.fromEntries(placeholderNames.map((n) => [n, '']))));
    return true;
  } catch {
    return false;
  }
}

/** What a webhook sends: its template filled in, or a JSON document with every field. */
export function webhookBody(webhook: Pick<WebhookSettings, 'bodyTemplate'>, vars: NotificationVars): { body: string; contentType: string } {
  const values = placeholderValues(vars);
  if (webhook.bodyTemplate.trim() === '') {
    const { title, message, ...rest } = values;
    return { body: JSON.stringify({ ...rest, title, message }), contentType: 'application/json' };
  }
  if (isJsonTemplate(webhook.bodyTemplate)) return { body: fillPlaceholders(webhook.bodyTemplate, values, true), contentType: 'application/json' };
  return { body: fillPlaceholders(webhook.bodyTemplate, values), contentType: 'text/plain; charset=utf-8' };
}
