import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../context.js';

const ALLOWED_HEADERS = 'Content-Type, Authorization';
const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * /rest is open to browser players. /api allows only the origins in CORS_ORIGIN and the
 * settings; its preflight allows Content-Type and Authorization but not X-Api-Key.
 */
export function corsMiddleware(ctx: AppContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (req.path.startsWith('/rest')) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? 'Content-Type');
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
      return next();
    }
    if (!origin || !req.path.startsWith('/api')) return next();
    const sameOrigin = origin === `${req.protocol}://${req.headers.host}`;
    if (sameOrigin) return next();
    const allowed = new Set([...ctx.config.corsOrigins, ...ctx.settings.get().security.corsOrigins].map(normalizeOrigin));
    const isAllowed = allowed.has('*') || allowed.has(normalizeOrigin(origin));
    res.vary('Origin');
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!isAllowed) {
      if (preflight) {
        res.status(403).json({ error: 'Forbidden', message: 'Cross-origin requests from this origin are not allowed' });
        return;
      }
      return next();
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (preflight) {
      res.setHeader('Access-Control-Allow-Methods', METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}

function normalizeOrigin(o: string): string {
  try {
    return o === '*' ? o : new URL(o).origin;
  } catch {
    return o;
  }
}
