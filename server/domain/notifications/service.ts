import { notificationDeliveries, type DeliveryRow } from '../../db/notifications.js';
import { IntegrationError } from '../../integrations/errors.js';
import { DiscordWebhookClient, type DiscordEmbedField } from '../../integrations/discord/index.js';
import { GotifyClient } from '../../integrations/gotify/index.js';
import { NtfyClient } from '../../integrations/ntfy/index.js';
import { callWebhook } from '../../integrations/webhook/index.js';
import { PermanentJobError, RetryJobError, type Job } from '../../jobs/queue.js';
import { lanServerUrls } from '../network/lanAddresses.js';
import { type DownloadEvent, type DownloadService } from '../downloads/service.js';
import type { NotificationEventType, Settings, WebhookSettings } from '../settings/schema.js';
import { notificationEventsOf, type NotificationEvent } from './events.js';
import { defaultTexts, placeholderValues, webhookBody, type NotificationVars } from './templates.js';
import type { JobLinks } from '../../jobs/links.js';
import type { Kernel } from '../../kernel.js';
import type { InterfaceLister } from '../auth/lanBypass.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'jobs' | 'log' | 'onClose' | 'scheduler'>
  & {
    interfaces?: InterfaceLister;
    settings: SettingsStore;
    downloads: DownloadService;
    notificationOutbox: JobLinks<DeliveryRow>;
  };

/** The outbox queue: one queue job per (event, destination). */
export const NOTIFICATIONS_QUEUE = 'notifications';
/** 30 s, 1 min, 2 min, 4 min between the five attempts (±20 %). */
export const NOTIFICATION_ATTEMPTS = 5;
export const NOTIFICATION_BACKOFF = { baseMs: 30_000, maxMs: 30 * 60_000 };
/**
 * A rate limit is the service asking for patience, not a fault of the message: a delivery still
 * rate limited at its last queue attempt gets a new queue job (after the service's Retry-After),
 * up to this many attempts in all.
 */
export const RATE_LIMITED_MAX_ATTEMPTS = 20;
/** Delivered and failed outbox rows are kept this long for diagnosis. */
const KEEP_MS = 30 * 24 * 3600_000;

/** The destination no longer exists or is switched off: nothing to retry. */
class NotDeliverable extends Error {}

/** IntegrationError kinds that another attempt with the same settings cannot fix. */
const finalKinds = new Set(['unauthorized', 'bad_request', 'refused', 'wrong_url', 'not_found']);

export const GOTIFY_NOT_CONFIGURED = 'Gotify is not configured: set its URL and an application token (integrations.gotify.url, integrations.gotify.token)';
export const NTFY_NOT_CONFIGURED = 'ntfy is not configured: set its server URL and a topic (integrations.ntfy.url, integrations.ntfy.topic)';
export const DISCORD_NOT_CONFIGURED = 'Discord is not configured: set the webhook address of a channel (integrations.discord.webhookUrl)';

/** Registers the outbox queue and turns download events into deliveries (areas.ts `services`). */
export function startNotifications(ctx: Deps): void {
  notificationDeliveries.prune(ctx.db, ctx.clock.now() - KEEP_MS);
  const outbox = ctx.notificationOutbox;
  ctx.jobs.register<{ deliveryId: number }>(NOTIFICATIONS_QUEUE, {
    concurrency: 2,
    maxAttempts: NOTIFICATION_ATTEMPTS,
    backoff: NOTIFICATION_BACKOFF,
    // Each attempt is bounded by the client timeouts (10 s Gotify, ntfy and Discord, 30 s webhooks).
    visibilityTimeoutMs: 2 * 60_000,
    handler: (job) => deliver(ctx, job),
  });
  const off = ctx.downloads.onEvent((e) => {
    try {
      recordEvent(ctx, e);
    } catch (err) {
      ctx.log.warn('notification not recorded', { jobId: e.job.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
  ctx.onClose(() => {
    off();
    outbox.close();
  });
  outbox.repair();
}

/**
 * The outbox rows and their queue jobs (JobLinks): written together; a pending row whose job is gone
 * (a data folder restored, a job removed by hand) gets one at start and from the scheduler's repair task.
 */
export function createNotificationOutbox(ctx: Deps): JobLinks<DeliveryRow> {
  return ctx.scheduler.link<DeliveryRow>({
      name: 'notification deliveries',
      queue: NOTIFICATIONS_QUEUE,
      orphans: () => notificationDeliveries.withoutLiveJob(ctx.db),
      job: (row) => ({ payload: { deliveryId: row.id }, options: { dedupeKey: row.attempts === 0 ? `delivery:${row.id}` : `delivery:${row.id}:${row.attempts + 1}`, name: `${row.event} → ${row.destination}` } }),
      link: (row, jobId) => notificationDeliveries.setQueueJob(ctx.db, row.id, jobId),
  });
}

/** Where an event goes under the current settings: `gotify`, `ntfy`, `discord` and `webhook:<id>`. */
export function destinationsFor(settings: Settings, event: NotificationEventType): string[] {
  const out: string[] = [];
  if (gotifyConfigured(settings) && settings.notifications.gotify.events.includes(event)) out.push('gotify');
  if (ntfyConfigured(settings) && settings.notifications.ntfy.events.includes(event)) out.push('ntfy');
  if (discordConfigured(settings) && settings.notifications.discord.events.includes(event)) out.push('discord');
  for (const w of settings.notifications.webhooks) if (w.enabled && w.events.includes(event)) out.push(`webhook:${w.id}`);
  return out;
}

export function gotifyConfigured(settings: Settings): boolean {
  const g = settings.integrations.gotify;
  return g.enabled && g.url !== '' && g.token !== '';
}

export function ntfyConfigured(settings: Settings): boolean {
  const n = settings.integrations.ntfy;
  return n.enabled && n.url !== '' && n.topic !== '';
}

export function discordConfigured(settings: Settings): boolean {
  const d = settings.integrations.discord;
  return d.enabled && d.webhookUrl !== '';
}

function anyDestination(settings: Settings): boolean {
  return gotifyConfigured(settings) || ntfyConfigured(settings) || discordConfigured(settings) || settings.notifications.webhooks.some((w) => w.enabled);
}

/**
 * Writes the outbox rows and their queue jobs in one transaction, synchronously and without any
 * network call, so the transition that raised the event is never slowed or failed by a notifier.
 */
function recordEvent(ctx: Deps, e: DownloadEvent): void {
  const settings = ctx.settings.get();
  if (!anyDestination(settings)) return;
  const deliveries = notificationEventsOf(ctx.db, e, (id) => reviewUrl(ctx, id)).flatMap((event) =>
    destinationsFor(settings, event.vars.event).map((destination) => ({ event, destination })),
  );
  if (deliveries.length === 0) return;
  ctx.notificationOutbox.write(
    () =>
      deliveries.map((d) =>
        notificationDeliveries.insert(
          ctx.db,
          { eventKey: d.event.key, event: d.event.vars.event, destination: d.destination, vars: JSON.stringify(d.event.vars) },
          ctx.clock.now(),
        ),
      ),
    // Already recorded (undefined): this event was seen before (a replayed transition) and is not sent again.
    (rows) => rows.filter((r): r is DeliveryRow => r !== undefined),
  );
}

/** Where `$reviewUrl` points: the configured public address, else this server's first LAN address. */
export function reviewUrl(ctx: Deps, jobId: number | null): string {
  const base = publicBaseUrl(ctx);
  if (!base) return '';
  return `${base}/review${jobId === null ? '' : `?job=${jobId}`}`;
}

/** The configured public address (settings, then TONEARM_PUBLIC_URL), else this server's first LAN address. */
function publicBaseUrl(ctx: Deps): string {
  const configured = ctx.settings.get().notifications.publicUrl || ctx.config.publicUrl;
  if (configured) return configured.replace(/\/+$/, '');
  if (ctx.config.port === 0) return '';
  const lan = lanServerUrls(ctx.config.host, ctx.config.port, ctx.interfaces)[0]?.url;
  return lan ? lan + ctx.config.basePath : '';
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** The queue handler: sends one outbox row, records the attempt, and tells the queue whether to retry. */
async function deliver(ctx: Deps, job: Job<{ deliveryId: number }>): Promise<void> {
  const row = notificationDeliveries.get(ctx.db, job.payload.deliveryId);
  // Delivered already (a queue job run again after a crash between sending and settling) or pruned.
  if (!row || row.status !== 'pending') return;
  const vars = JSON.parse(row.vars) as NotificationVars;
  try {
    await send(ctx, row.destination, vars, job.signal);
    notificationDeliveries.recordAttempt(ctx.db, row.id, { status: 'delivered', error: null }, ctx.clock.now());
  } catch (err) {
    // Shutdown: the queue releases the job and this attempt does not count.
    if (job.signal.aborted) throw err;
    const final = err instanceof NotDeliverable || (err instanceof IntegrationError && finalKinds.has(err.kind));
    const hinted = err instanceof IntegrationError ? (err.details as { retryAfterMs?: number } | undefined)?.retryAfterMs : undefined;
    const message = describe(err);
    const rateLimited = err instanceof IntegrationError && err.kind === 'rate_limited';
    if (rateLimited && job.attempt >= job.maxAttempts && row.attempts + 1 < RATE_LIMITED_MAX_ATTEMPTS) {
      const delayMs = Math.max(hinted ?? NOTIFICATION_BACKOFF.baseMs, 1000);
      // One transaction: the row never stays pending without a queue job that will send it.
      ctx.jobs.transaction(() => {
        notificationDeliveries.recordAttempt(ctx.db, row.id, { status: 'pending', error: message }, ctx.clock.now());
        ctx.notificationOutbox.attach(row, { delayMs });
      });
      return;
    }
    const last = final || job.attempt >= job.maxAttempts;
    notificationDeliveries.recordAttempt(ctx.db, row.id, { status: last ? 'failed' : 'pending', error: message }, ctx.clock.now());
    if (last) ctx.log.warn('notification not delivered', { destination: row.destination, event: row.event, attempts: job.attempt, error: message });
    if (final) throw new PermanentJobError(message);
    if (hinted !== undefined) throw new RetryJobError(message, Math.max(hinted, 1000));
    throw err;
  }
}

async function send(ctx: Deps, destination: string, vars: NotificationVars, signal: AbortSignal): Promise<void> {
  const settings = ctx.settings.get();
  if (destination === 'gotify') {
    if (!gotifyConfigured(settings)) throw new NotDeliverable('Gotify is no longer configured or is switched off');
    const { url, token } = settings.integrations.gotify;
    await sendGotify(new GotifyClient({ baseUrl: url, token }), settings, vars, signal);
    return;
  }
  if (destination === 'ntfy') {
    if (!ntfyConfigured(settings)) throw new NotDeliverable('ntfy is no longer configured or is switched off');
    const { url, token, topic } = settings.integrations.ntfy;
    await sendNtfy(new NtfyClient({ baseUrl: url, token }), topic, settings, vars, pageUrl(ctx, vars), signal);
    return;
  }
  if (destination === 'discord') {
    if (!discordConfigured(settings)) throw new NotDeliverable('Discord is no longer configured or is switched off');
    await sendDiscord(new DiscordWebhookClient({ webhookUrl: settings.integrations.discord.webhookUrl }), settings, vars, pageUrl(ctx, vars), ctx.clock.now(), signal);
    return;
  }
  const id = destination.slice('webhook:'.length);
  const webhook = settings.notifications.webhooks.find((w) => w.id === id);
  if (!webhook || !webhook.enabled) throw new NotDeliverable(`Webhook ${id} no longer exists or is switched off`);
  await sendWebhook(webhook, vars, signal);
}

/** A Gotify message: markdown, with the review link opened when the notification is clicked. */
async function sendGotify(client: GotifyClient, settings: Settings, vars: NotificationVars, signal?: AbortSignal) {
  const custom = settings.notifications.gotify.templates[vars.event] ?? {};
  const texts = { ...defaultTexts[vars.event], ...custom };
  const values = placeholderValues(vars, texts);
  return client.sendMessage(
    {
      title: values.title!,
      message: values.message || values.title!,
      priority: settings.notifications.gotify.priority,
      extras: {
        'client::display': { contentType: 'text/markdown' },
        ...(vars.reviewUrl && { 'client::notification': { click: { url: vars.reviewUrl } } }),
      },
    },
    signal,
  );
}

/** The page of this server an event is about: the review of a held track, else the downloads. */
function pageUrl(ctx: Deps, vars: NotificationVars): string {
  if (vars.reviewUrl) return vars.reviewUrl;
  const base = publicBaseUrl(ctx);
  return base ? `${base}/downloads` : '';
}

/** The title and message of an event for a destination: its own texts where set, else the built-in ones. */
function renderedTexts(templates: Settings['notifications']['gotify']['templates'], vars: NotificationVars) {
  return placeholderValues(vars, { ...defaultTexts[vars.event], ...(templates[vars.event] ?? {}) });
}

/** An ntfy message: the event's priority and tags, the page opened when it is tapped. */
function sendNtfy(client: NtfyClient, topic: string, settings: Settings, vars: NotificationVars, link: string, signal?: AbortSignal) {
  const n = settings.notifications.ntfy;
  const values = renderedTexts(n.templates, vars);
  return client.publish(
    {
      topic,
      title: values.title!,
      message: values.message || values.title!,
      priority: n.priorities[vars.event],
      tags: n.tags[vars.event],
      ...(link && { click: link }),
    },
    signal,
  );
}

/** Embed colours per event: amber held, red failed, green done, blue album complete. */
export const discordColors: Record<NotificationEventType, number> = { job_blocked: 0xf0a020, job_failed: 0xd83c3e, job_done: 0x3ba55c, album_complete: 0x5865f2 };

/** The embed's fields: artist, title (the track, or the album when it is complete) and reason, where they apply. */
function discordFields(vars: NotificationVars): DiscordEmbedField[] {
  const fields: DiscordEmbedField[] = [{ name: 'Artist', value: vars.artistName, inline: true }];
  if (vars.event === 'album_complete') fields.push({ name: 'Album', value: vars.albumName, inline: true });
  else fields.push({ name: 'Title', value: vars.trackName, inline: true }, { name: 'Album', value: vars.albumName, inline: true });
  fields.push({ name: 'Reason', value: vars.reason, inline: false });
  return fields;
}

/** A Discord message: one embed with the event's title and text, artist, title and reason, and a link to the page. */
function sendDiscord(client: DiscordWebhookClient, settings: Settings, vars: NotificationVars, link: string, now: number, signal?: AbortSignal) {
  const values = renderedTexts(settings.notifications.discord.templates, vars);
  return client.execute(
    {
      username: 'Tonearm',
      embeds: [
        {
          title: values.title!,
          description: values.message,
          ...(link && { url: link }),
          color: discordColors[vars.event],
          fields: discordFields(vars),
          timestamp: new Date(now).toISOString(),
        },
      ],
    },
    signal,
  );
}

function sendWebhook(webhook: Pick<WebhookSettings, 'url' | 'method' | 'headers' | 'bodyTemplate'>, vars: NotificationVars, signal?: AbortSignal) {
  const { body, contentType } = webhookBody(webhook, vars);
  return callWebhook({ url: webhook.url, method: webhook.method, headers: webhook.headers, body, contentType, ...(signal && { signal }) });
}

/** Made-up values for test messages, so a template can be checked before a real event happens. */
function sampleVars(ctx: Deps, event: NotificationEventType): NotificationVars {
  return {
    event,
    artistName: 'Tonearm',
    trackName: 'Test notification',
    albumName: 'Test album',
    status: event === 'album_complete' ? 'complete' : event === 'job_blocked' ? 'blocked' : event === 'job_failed' ? 'failed' : 'done',
    reason: 'This is a test message from Tonearm',
    jobId: '0',
    reviewUrl: reviewUrl(ctx, null),
    flowName: '',
    flowPath: '',
  };
}

/** `POST /api/settings/gotify/test`: checks that this is Gotify, then sends a real test message. */
export async function testGotify(ctx: Deps, url: string, token: string) {
  const client = new GotifyClient({ baseUrl: url, token, timeoutMs: 10_000 });
  const { version } = await client.version();
  const sent = await client.sendMessage({
    title: 'Tonearm – Test',
    message: 'Notifications from Tonearm reach this Gotify application.',
    priority: ctx.settings.get().notifications.gotify.priority,
  });
  return { success: true as const, version, messageId: sent.id, message: `Sent a test message to Gotify ${version} (message ${sent.id})` };
}

/** `POST /api/settings/ntfy/test`: publishes a test message to the topic with the settings given. */
export async function testNtfy(ctx: Deps, url: string, topic: string, token: string) {
  const client = new NtfyClient({ baseUrl: url, token, timeoutMs: 10_000 });
  const link = pageUrl(ctx, sampleVars(ctx, 'job_blocked'));
  const sent = await client.publish({
    topic,
    title: 'Tonearm – Test',
    message: 'Notifications from Tonearm reach this ntfy topic.',
    priority: 3,
    tags: ['musical_note'],
    ...(link && { click: link }),
  });
  return { success: true as const, messageId: sent.id, message: `Sent a test message to the ntfy topic ${sent.topic} (message ${sent.id})` };
}

/** `POST /api/settings/discord/test`: sends a test embed (sample values) to the webhook. */
export async function testDiscord(ctx: Deps, webhookUrl: string) {
  const client = new DiscordWebhookClient({ webhookUrl, timeoutMs: 10_000 });
  const vars = sampleVars(ctx, 'job_blocked');
  const link = pageUrl(ctx, vars);
  const sent = await client.execute({
    username: 'Tonearm',
    embeds: [
      {
        title: 'Tonearm – Test',
        description: 'Notifications from Tonearm reach this channel.',
        ...(link && { url: link }),
        color: discordColors.job_blocked,
        fields: discordFields(vars),
        timestamp: new Date(ctx.clock.now()).toISOString(),
      },
    ],
  });
  const id = sent?.id ?? null;
  return { success: true as const, messageId: id, message: `Sent a test message to the Discord webhook${id ? ` (message ${id})` : ''}` };
}

/** `POST /api/settings/webhooks/test`: sends one event with sample values to a webhook. */
export async function testWebhook(ctx: Deps, webhook: Pick<WebhookSettings, 'url' | 'method' | 'headers' | 'bodyTemplate'>, event: NotificationEventType) {
  const { status } = await sendWebhook(webhook, sampleVars(ctx, event));
  return { success: true as const, status, message: `The webhook answered HTTP ${status} to a test ${event} event` };
}
