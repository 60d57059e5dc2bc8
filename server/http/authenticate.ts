import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { Config } from '../config.js';
import type { AuthService } from '../domain/auth/service.js';
import type { Principal } from '../domain/auth/principal.js';
import { UnauthorizedError } from '../domain/errors.js';
import { normalizeIp } from '../domain/auth/lanBypass.js';
import type { PrincipalResolver } from './route.js';

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The proxy must be our direct peer; X-Forwarded-For is never consulted for this. */
export function proxyIdentity(config: Config, req: IncomingMessage): string | undefined {
  if (!config.authProxy) return undefined;
  const peer = normalizeIp(req.socket.remoteAddress);
  if (!config.authProxy.trustedIps.map(normalizeIp).includes(peer)) return undefined;
  return header(req, config.authProxy.header)?.trim() || undefined;
}

/** Resolves credentials in the contract's order: bearer, proxy, API key, basic, media tokens, LAN. */
export function createPrincipalResolver(config: Config, auth: AuthService): PrincipalResolver {
  return {
    isOnboarded: () => auth.isOnboarded(),
    async resolve(req: Request, { media }): Promise<Principal | null> {
      const authorization = header(req, 'authorization') ?? '';
      const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
      if (bearer) {
        const p = auth.resolveSession(bearer.trim());
        if (!p) throw new UnauthorizedError('Session expired or invalid', 'SESSION_INVALID');
        return p;
      }
      const proxyUser = proxyIdentity(config, req);
      if (proxyUser) return auth.resolveProxyUser(proxyUser);

      const apiKey = header(req, 'x-api-key') ?? (typeof req.query.api_key === 'string' ? req.query.api_key : undefined);
      if (apiKey) {
        const p = auth.resolveApiKey(apiKey);
        if (!p) throw new UnauthorizedError('Invalid API key', 'AUTH_REQUIRED');
        return p;
      }
      const basic = /^Basic\s+(.+)$/i.exec(authorization)?.[1];
      if (basic) {
        const decoded = Buffer.from(basic, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        const p = colon > 0 ? await auth.resolveBasic(decoded.slice(0, colon), decoded.slice(colon + 1), req.ip) : null;
        if (!p) throw new UnauthorizedError('Invalid username or password', 'AUTH_REQUIRED');
        return p;
      }
      if (media) {
        const st = typeof req.query.st === 'string' ? req.query.st : undefined;
        if (st) {
          const p = auth.resolveStreamToken(st);
          if (!p) throw new UnauthorizedError('Stream token expired or invalid', 'SESSION_INVALID');
          return p;
        }
        const token = typeof req.query.token === 'string' ? req.query.token : undefined;
        if (token) {
          const p = auth.resolveSession(token);
          if (!p) throw new UnauthorizedError('Session expired or invalid', 'SESSION_INVALID');
          return p;
        }
      }
      return auth.resolveLan(req.socket.remoteAddress ?? '');
    },
  };
}

/** WebSocket handshake: `?token=`, proxy identity or LAN auto-login; never the API key. Nobody before onboarding. */
export function createSocketAuthenticator(config: Config, auth: AuthService) {
  return async (req: IncomingMessage): Promise<Principal | null> => {
    if (!auth.isOnboarded()) return null;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const token = url.searchParams.get('token');
    if (token) return auth.resolveSession(token);
    const proxyUser = proxyIdentity(config, req);
    if (proxyUser) return auth.resolveProxyUser(proxyUser);
    const lan = auth.resolveLan(req.socket.remoteAddress ?? '');
    return lan;
  };
}
