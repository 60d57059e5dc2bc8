import { plexLinks, plexPublishIdentities, type PlexLinkRow } from '../../db/plex.js';
import { IntegrationError } from '../../integrations/errors.js';
import { NotConfiguredError } from '../errors.js';
import { originOf } from '../settings/secretOrigin.js';
import {
  plexServerClient,
  plexServerOf,
  plexTv,
  plexTokenForUser,
  relinkRequired,
  sealToken,
  tokenMayGoTo,
  type PlexServerConnection,
  type Deps as PlexConnectionDeps,
} from './connection.js';
import { decrypt } from '../../secrets.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'db' | 'secrets'> & PlexConnectionDeps;

/**
 * Whose Plex playlists a Tonearm playlist becomes. A user with a Plex link (their own account, or a
 * Plex Home user an administrator linked for them) gets it as their own Plex playlist, made with
 * their own access token for the chosen server: plex.tv's resources list, asked with the user's
 * token, names the server with a token of that user's (for a managed or home user too, whose
 * switched token is what is stored in the link). Everyone else's playlists stay under the
 * administrator's server token, as before.
 *
 * Identities are spelled into the publication's account: the administrator's is the server's own
 * account string (`url|machine|section`, what publications had before), a user's adds
 * `|user:<tonearm id>:<link kind>:<plex user id>`, so a new link (or none) is another account and
 * the publication moves (service.ts). The user's server token and the addresses plex.tv listed for
 * the server are kept in `plex_publish_identities` (encrypted), also after the link is gone, until
 * what was published under it is deleted there; then the row is pruned.
 */

/** The administrator's publication account of the configured server and library: another one starts afresh. */
export function plexServerAccount(s: { url: string; machineIdentifier: string; librarySectionId: string }): string {
  return `${s.url.replace(/\/+$/, '')}|${s.machineIdentifier}|${s.librarySectionId}`;
}

const USER_PART = /\|user:(\d+):(\w+):([^|]*)$/;

/** The administrator's account string of a publication account (a user's without its user part). */
export function plexBaseAccount(account: string): string {
  return account.replace(USER_PART, '');
}

export function plexUserAccount(base: string, link: Pick<PlexLinkRow, 'userId' | 'kind' | 'plexUserId' | 'plexUuid'>): string {
  return `${base}|user:${link.userId}:${link.kind}:${link.plexUserId ?? link.plexUuid ?? ''}`;
}

/** The account a playlist of this owner is published under: the owner's own Plex identity when linked. */
export function plexAccountFor(ctx: Deps, base: string, ownerUserId: number | null): { account: string; own: boolean } {
  const link = ownerUserId === null ? undefined : plexLinks.get(ctx.db, ownerUserId);
  return link ? { account: plexUserAccount(base, link), own: true } : { account: base, own: false };
}

/** The identity of a user account string is still that user's current link. */
function currentLink(ctx: Deps, account: string): PlexLinkRow | undefined {
  const m = USER_PART.exec(account);
  if (!m) return undefined;
  const link = plexLinks.get(ctx.db, Number(m[1]));
  return link && plexUserAccount(plexBaseAccount(account), link) === account ? link : undefined;
}

/** Drops identities whose link is gone and under which nothing is published any more. */
export function prunePlexIdentities(ctx: Deps): number {
  return plexPublishIdentities.prune(ctx.db, (row) => currentLink(ctx, row.account) !== undefined);
}

/**
 * Asks plex.tv, with the user's own token, for their token for the chosen server and where it
 * listed the server; stores both (encrypted) for the account.
 */
async function resolveIdentity(ctx: Deps, account: string, link: PlexLinkRow, machineIdentifier: string): Promise<{ token: string; origins: string[] }> {
  const userToken = plexTokenForUser(ctx, link.userId);
  if (!userToken) throw new NotConfiguredError('plex-link', `The Plex link of ${link.username ?? 'this user'} cannot be read any more: link Plex again`);
  let servers;
  try {
    servers = await plexTv(ctx, userToken).servers();
  } catch (err) {
    if (err instanceof IntegrationError && err.kind === 'unauthorized') {
      plexLinks.setError(ctx.db, link.userId, 'plex.tv no longer accepts this link: link Plex again');
    }
    throw err;
  }
  const server = servers.find((s) => s.clientIdentifier === machineIdentifier);
  if (!server?.accessToken) {
    const message = `The Plex server is not shared with the Plex account ${link.username ?? link.title ?? ''}`.trim();
    plexLinks.setError(ctx.db, link.userId, message);
    throw new IntegrationError('plex', 'unauthorized', message);
  }
  const origins = [...new Set(server.connections.map((c) => originOf(c.uri)).filter((o) => o !== ''))];
  plexPublishIdentities.put(ctx.db, { account, userId: link.userId, linkAt: link.linkedAt, tokenEnc: sealToken(ctx, server.accessToken), origins, updatedAt: ctx.clock.now() });
  if (link.lastError) plexLinks.setError(ctx.db, link.userId, null);
  return { token: server.accessToken, origins };
}

/**
 * The configured server under a publication account: the administrator's token for the server's
 * own account string, the user's own server token for a user's. Null for a user identity whose link
 * is gone and whose token was never resolved (nothing can be done under it). The token goes only to
 * an address plex.tv listed for the server (to that user or to the administrator) or the one saved
 * when Plex was connected; any other is 409 NOT_CONFIGURED, nothing sent.
 */
export async function plexServerForAccount(ctx: Deps, account: string, options: { refresh?: boolean } = {}): Promise<PlexServerConnection | null> {
  const admin = plexServerOf(ctx);
  if (!USER_PART.test(account)) return admin;
  const link = currentLink(ctx, account);
  const stored = plexPublishIdentities.get(ctx.db, account);
  let token: string | null = null;
  let origins: string[] = [];
  if (stored && (!link || (stored.linkAt === link.linkedAt && !options.refresh))) {
    try {
      token = decrypt(ctx.secrets.encryptionKey, stored.tokenEnc);
      origins = stored.origins;
    } catch {
      token = null;
    }
  }
  if (token === null) {
    if (!link) return null;
    ({ token, origins } = await resolveIdentity(ctx, account, link, admin.machineIdentifier));
  }
  if (!origins.includes(originOf(admin.url)) && !tokenMayGoTo(ctx, admin.url, admin.machineIdentifier)) throw relinkRequired(admin.url);
  return { ...admin, client: plexServerClient(ctx, admin.url, token) };
}

/** The configured server with a user's own server token (their playlists are theirs), or null when the user has no Plex link. */
export async function plexServerForUser(ctx: Deps, userId: number): Promise<PlexServerConnection | null> {
  const s = plexServerOf(ctx);
  const link = plexLinks.get(ctx.db, userId);
  if (!link) return null;
  return plexServerForAccount(ctx, plexUserAccount(plexServerAccount(s), link));
}
