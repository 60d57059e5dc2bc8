import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { NotConfiguredError, NotFoundError } from '../../domain/errors.js';
import { GOTIFY_NOT_CONFIGURED, testGotify, testWebhook } from '../../domain/notifications/service.js';
import { notificationEvents, webhookSettings } from '../../domain/settings/schema.js';
import { secretForTest } from '../../domain/settings/secretOrigin.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';

/** api.md §4.13: the push notifier (Gotify) test, and the test of a generic webhook (admin). */

const gotifyBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    token: z.string().max(1024),
  })
  .partial()
  .strict()
  .optional();

const gotifyResult = z.object({ success: z.literal(true), version: z.string(), messageId: z.number(), message: z.string() });

const inlineWebhook = webhookSettings.pick({ url: true, method: true, headers: true, bodyTemplate: true }).extend({ name: z.string().max(100).optional() }).strict();
const webhookBody = z
  .object({
    /** A saved webhook (notifications.webhooks[].id) … */
    id: z.string().min(1).max(64).optional(),
    /** … or one not saved yet. */
    webhook: inlineWebhook.optional(),
    event: z.enum(notificationEvents).default('job_blocked'),
  })
  .strict()
  .refine((b) => (b.id === undefined) !== (b.webhook === undefined), { error: 'send either id (a saved webhook) or webhook (its settings), not both' });

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
        const saved = ctx.settings.get().integrations.gotify;
        const url = body?.url ?? saved.url;
        const token = secretForTest({ setting: 'integrations.gotify', field: 'token', saved: { url: saved.url, secret: saved.token }, url, secret: body?.token });
        if (!url || !token) throw new NotConfiguredError('integrations.gotify', GOTIFY_NOT_CONFIGURED);
        return testGotify(ctx, url, token);
      },
    }),
    defineRoute({
      tag: 'settings',
      access: 'admin',
      method: 'post',
      path: '/api/settings/webhooks/test',
      summary: 'Send a test event (sample values) to a saved webhook, by id, or to one given inline',
      body: webhookBody,
      response: webhookResult,
      handler: ({ body }) => {
        const webhook = body.webhook ?? ctx.settings.get().notifications.webhooks.find((w) => w.id === body.id);
        if (!webhook) throw new NotFoundError('Webhook not found', `No saved webhook has the id ${body.id}`);
        return testWebhook(ctx, webhook, body.event);
      },
    }),
  ];
}
