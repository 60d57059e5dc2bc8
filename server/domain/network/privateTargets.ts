import type { PrivateTargets } from '../../integrations/guardedFetch.js';
import type { Role } from '../auth/permissions.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config'> & { settings: SettingsStore };

/**
 * The hosts an administrator allowed despite the private-address guard: ALLOW_PRIVATE_TARGETS and
 * the `security.allowPrivateTargets` setting together. Public content (feeds, podcasts, imports)
 * and the URLs people other than administrators enter may reach a private address only through
 * this list.
 */
export function allowedPrivateTargets(ctx: Deps): string[] {
  const fromSettings = ctx.settings.get().security.allowPrivateTargets;
  return [...new Set([...ctx.config.allowPrivateTargets, ...fromSettings])];
}

/**
 * The policy for a service address a person entered for themselves (their Koito server): an
 * administrator runs the server and may point at the LAN and loopback like the admin settings do;
 * anyone else only at public addresses and the hosts an administrator allowed, so an account
 * cannot make the server probe its own ports or the LAN.
 */
export function userEnteredTargets(ctx: Deps, role: Role): PrivateTargets {
  return role === 'admin' ? 'lan' : allowedPrivateTargets(ctx);
}
