import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotConfiguredError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { DISCORD_NOT_CONFIGURED, GOTIFY_NOT_CONFIGURED, NTFY_NOT_CONFIGURED, testDiscord, testGotify, testNtfy, testWebhook } from '../../domain/notifications/service.js';
import { headerToken } from '../../domain/settings/fields.js';
import { notificationEvents, SECRET_MASK, settingsSchema, webhookSettings } from '../../domain/settings/schema.js';
import { headersWithSaved, keepsStoredSecret } from '../../domain/settings/secretOrigin.js';
import { testConnection } from '../../domain/settings/testConnection.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the push notifier tests (Gotify; ntfy and Discord, decisions §12), and the test of a generic webhook (admin). */

const gotifyBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    token: headerToken,
  })
  .partial()
  .strict()
  .optional();

const gotifyResult = z.object({ success: z.literal(true), version: z.string(), messageId: z.number(), message: z.string() });

const integrationShapes = settingsSchema.shape.integrations.unwrap().shape;
const ntfyBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    topic: integrationShapes.ntfy.unwrap().shape.topic.unwrap(),
    token: headerToken,
  })
  .partial()
  .strict()
  .optional();
const ntfyResult = z.object({ success: z.literal(true), messageId: z.string(), message: z.string() });

const discordBody = z
  .object({ webhookUrl: z.union([z.literal(SECRET_MASK), integrationShapes.discord.unwrap().shape.webhookUrl.unwrap()]) })
  .partial()
  .strict()
  .optional();
const discordResult = z.object({ success: z.literal(true), messageId: z.string().nullable(), message: z.string() });

const inlineWebhook = webhookSettings
  .pick({ url: true, method: true, headers: true, bodyTemplate: true })
  .extend({ name: z.string().max(100).optional() })
  .strict();
const webhookBody = z
  .object({
    /** A saved webhook (notifications.webhooks[].id); with `webhook`, the one whose masked header values to use. */
    id: z.string().min(1).max(64).optional(),
    /** The webhook's settings as edited (not saved yet). */
    webhook: z.looseObject({ url: z.unknown(), headers: z.unknown().optional() }).optional(),
    event: z.enum(notificationEvents).default('job_blocked'),
  })
  .strict()
  .refine((b) => b.id !== undefined || b.webhook !== undefined, { error: 'send id (a saved webhook) or webhook (its settings)' });

const webhookResult = z.object({ success: z.literal(true), status: z.number(), message: z.string() });

export function notificationRoutes(ctx: AppContext): RouteDefinition[] {
  return [
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/gotify/test',
      summary:
        'Send a test message to Gotify with an application token; absent or masked values are the saved ones (the saved token only goes to the saved address)',
      body: gotifyBody,
      response: gotifyResult,
      handler: ({ body }) => {
        const c = testConnection({ setting: 'integrations.gotify', field: 'token', saved: ctx.settings.get().integrations.gotify, body, notConfigured: GOTIFY_NOT_CONFIGURED });
        return testGotify(ctx, c.url, c.secret);
      },
    }),
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/ntfy/test',
      summary: 'Publish a test message to an ntfy topic; absent values are the saved ones, and the saved access token only goes to the saved server',
      body: ntfyBody,
      response: ntfyResult,
      handler: ({ body }) => {
        const saved = ctx.settings.get().integrations.ntfy;
        const c = testConnection({ setting: 'integrations.ntfy', field: 'token', saved, body, notConfigured: NTFY_NOT_CONFIGURED, secretRequired: false });
        const topic = body?.topic ?? saved.topic;
        if (!topic) throw new NotConfiguredError('integrations.ntfy', NTFY_NOT_CONFIGURED);
        return testNtfy(ctx, c.url, topic, c.secret);
      },
    }),
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/discord/test',
      summary: 'Send a test embed to a Discord webhook; an absent or masked address is the saved one',
      body: discordBody,
      response: discordResult,
      handler: ({ body }) => {
        const webhookUrl = keepsStoredSecret(body?.webhookUrl) ? ctx.settings.get().integrations.discord.webhookUrl : body!.webhookUrl!;
        if (!webhookUrl) throw new NotConfiguredError('integrations.discord', DISCORD_NOT_CONFIGURED);
        return testDiscord(ctx, webhookUrl);
      },
    }),
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/webhooks/test',
      summary: 'Send a test event (sample values) to a saved webhook (id) or to one as edited (webhook; masked header values are the saved ones of id, sent only to its address)',
      body: webhookBody,
      response: webhookResult,
      handler: ({ body }) => {
        const saved = body.id === undefined ? undefined : ctx.settings.get().notifications.webhooks.find((w) => w.id === body.id);
        if (body.id !== undefined && !saved) throw new NotFoundError('Webhook not found', `No saved webhook has the id ${body.id}`);
        if (!body.webhook) return testWebhook(ctx, saved!, body.event);
        // Masked header values (credentials) come from the saved webhook, and only to its address.
        const edited = { ...body.webhook, headers: headersWithSaved('webhook', saved, body.webhook) };
        const parsed = inlineWebhook.safeParse(edited);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new ValidationError(`webhook.${issue.path.join('.')}: ${issue.message}`, 'VALIDATION_ERROR', parsed.error.issues.map((i) => ({ path: ['webhook', ...i.path].join('.'), message: i.message })));
        }
        return testWebhook(ctx, parsed.data, body.event);
      },
    }),
  ];
}
