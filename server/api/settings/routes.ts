import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ConflictError } from '../../domain/errors.js';
import { settingsSchema } from '../../domain/settings/schema.js';
import { maskSecrets } from '../../domain/settings/store.js';
import { defineRoute } from '../../http/route.js';

export function settingsRoutes(ctx: AppContext) {
  const view = () => ({ ...maskSecrets(ctx.settings.get()), onboardingComplete: ctx.auth.isOnboarded() });
  const response = settingsSchema.extend({ onboardingComplete: z.boolean() });
  return [
    defineRoute({
      method: 'get',
      path: '/api/settings',
      summary: 'Read settings (secrets masked)',
      tag: 'settings',
      access: 'admin',
      response,
      handler: view,
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings',
      summary: 'Validate and merge settings; a masked secret sent back keeps the stored one',
      tag: 'settings',
      access: 'admin',
      body: z.record(z.string(), z.unknown()),
      response,
      handler: ({ body }) => {
        const { onboardingComplete: _ignored, ...patch } = body;
        const next = ctx.settings.preview(patch);
        const wasOn = ctx.settings.get().security.localNetworkBypass.enabled;
        if (next.security.localNetworkBypass.enabled && !wasOn) {
          const reason = ctx.auth.ineligibility();
          if (reason)
            throw new ConflictError(`LAN auto-login is only possible with a single administrator account (${reason})`, reason.toUpperCase());
        }
        ctx.settings.update(patch);
        if (wasOn && !next.security.localNetworkBypass.enabled) ctx.hub.closeVia('lan');
        return view();
      },
    }),
  ];
}
