import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { rateLimit } from 'express-rate-limit';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { newRequestId } from '../log.js';
import { resolveAlias } from './aliases.js';
import { createPrincipalResolver } from './authenticate.js';
import { corsMiddleware } from './cors.js';
import { errorHandler } from './errors.js';
import { buildOpenApi } from './openapi.js';
import { defineRoute, routeHandler, type RouteDefinition } from './route.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// server/http in the source tree, dist/server/http when compiled.
const defaultUiDir = [path.resolve(here, '../../renderer/dist'), path.resolve(here, '../../../renderer/dist')].find((d) =>
  fs.existsSync(d),
) ?? path.resolve(here, '../../renderer/dist');

const tooManyRequests = (req: Request, res: Response) => {
  const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
  if (reset) res.setHeader('Retry-After', String(Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000))));
  res.status(429).json({ error: 'Too many requests', code: 'RATE_LIMITED', message: 'Request limit reached; try again later' });
};

export interface BuiltApp {
  app: express.Express;
  routes: RouteDefinition[];
}

/** Assembles middleware in order: ids and logging, headers, CORS, aliases, limits, body, routes, errors. */
/** What the composition root (server/areas.ts) assembles: the /api routes and the other routers. */
export interface Areas {
  apiRoutes(ctx: AppContext): RouteDefinition[];
  routers: ((ctx: AppContext) => { mount: string; router: express.Router })[];
}

export function buildApp(ctx: AppContext, { apiRoutes, routers }: Areas): BuiltApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('query parser', 'extended');

  app.use((req, res, next) => {
    const id = newRequestId();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    res.on('finish', () => {
      ctx.log.info('request', {
        requestId: id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      });
    });
    next();
  });

  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          // Deezer's 30-second previews (artist pages, Discover presets) play from its CDN.
          mediaSrc: ["'self'", 'blob:', 'https://*.dzcdn.net'],
          connectSrc: ["'self'", 'ws:', 'wss:'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'"],
          objectSrc: ["'none'"],
          frameAncestors: ["'self'"],
          baseUri: ["'self'"],
        },
      },
      // Served over plain HTTP on a home LAN: no HSTS, no upgrade of requests to https.
      strictTransportSecurity: false,
      crossOriginEmbedderPolicy: false,
      // Players on other origins load /rest media and artwork.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  app.use(corsMiddleware(ctx));

  // Neutral spellings of product names are served by the same handlers (decisions §1).
  app.use((req, _res, next) => {
    const [pathname, query] = splitUrl(req.url);
    const real = resolveAlias(pathname);
    if (real) req.url = real + query;
    next();
  });

  // The only redirect in the API: the legacy /api/weekly-flow prefix.
  app.use('/api/weekly-flow', (req, res) => {
    const [pathname, query] = splitUrl(req.url);
    res.redirect(308, `${ctx.config.basePath}/api/playlists${pathname === '/' ? '' : pathname}${query}`);
  });

  const limiterOptions = {
    windowMs: ctx.config.rateLimit.windowMs,
    limit: ctx.config.rateLimit.max,
    standardHeaders: 'draft-7' as const,
    legacyHeaders: false,
    handler: tooManyRequests,
  };
  app.use('/api', rateLimit(limiterOptions));
  app.use('/rest', rateLimit(limiterOptions));
  app.use('/share', rateLimit(limiterOptions));
  // Failed password checks are limited where they happen, by ctx.failedLogins (one limiter for all).

  app.use('/api', express.json({ limit: '5mb', strict: false }));

  const resolver = createPrincipalResolver(ctx.config, ctx.auth);
  const routes = apiRoutes(ctx);
  const openapiRoute = defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This OpenAPI document',
    tag: 'meta',
    access: 'public',
    // The onboarding wizard reads it to offer only the integration steps this build serves.
    openBeforeOnboarding: true,
    response: z.object({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }).loose(),
    handler: () => document,
  });
  routes.push(openapiRoute);
  const document = buildOpenApi(routes, ctx.appVersion, ctx.config.basePath);

  const router = express.Router({ caseSensitive: false, strict: false });
  for (const def of routes) router[def.method](def.path, routeHandler(def, resolver, { checkResponses: ctx.config.checkResponses }));
  app.use(router);
  for (const make of routers) {
    const { mount, router: sub } = make(ctx);
    app.use(mount, sub);
  }

  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });

  serveUi(app, ctx);
  app.use(errorHandler(ctx.log));
  return { app, routes };
}

/**
 * Serves `app` under the base path (TONEARM_BASE_PATH or the setting): `/music/...` reaches it with
 * the prefix taken off, `/` (and `/music` without its slash) redirect to `/music/`, anything else
 * answers 404. Without a base path the app is served as it is.
 */
export function mountUnderBasePath(app: express.Express, basePath: string): express.Express {
  if (!basePath) return app;
  const outer = express();
  outer.disable('x-powered-by');
  outer.set('trust proxy', app.get('trust proxy'));
  outer.get('/', (_req, res) => res.redirect(302, `${basePath}/`));
  outer.use((req, res, next) => {
    const [pathname, query] = splitUrl(req.url);
    if (pathname === basePath && (req.method === 'GET' || req.method === 'HEAD')) return res.redirect(301, `${basePath}/${query}`);
    next();
  });
  outer.use(basePath, app);
  outer.use((req, res) => {
    if (req.path.startsWith('/api/') || req.path.startsWith('/rest/')) res.status(404).json({ error: 'Not found', message: `This server answers under ${basePath}/` });
    else res.status(404).type('text/plain').send(`Not found: this server answers under ${basePath}/\n`);
  });
  return outer;
}

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i === -1 ? [url, ''] : [url.slice(0, i), url.slice(i)];
}

/** The web UI: static files with an SPA fallback for client-side routes. */
function serveUi(app: express.Express, ctx: AppContext) {
  const dir = ctx.config.uiDir ?? defaultUiDir;
  const index = path.join(dir, 'index.html');
  const sendIndex = (_req: Request, res: Response) => {
    const html = indexHtml(index, ctx.config.basePath);
    if (html === null) {
      res.status(503).type('text/plain').send('The Tonearm web UI has not been built. Run `npm run build:ui`.\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  };
  // index.html always goes through sendIndex: it carries the base path the UI runs under.
  app.get('/index.html', sendIndex);
  app.use(express.static(dir, { index: false, maxAge: '1h', setHeaders: noCacheForHtml }));
  app.get(/^\/(?!api\/|api$|rest\/|rest$|share\/|share$|ws$).*/, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    sendIndex(req, res);
  });
}

let indexCache: { file: string; mtimeMs: number; basePath: string; html: string } | undefined;

/**
 * The UI's index.html with `<base href="<base path>/">` and `<meta name="tonearm-base">` added: its
 * assets are built with relative URLs (vite `base: './'`), so they load under any base path, and the
 * UI prefixes its own API calls and links with the meta's value. Null when the UI is not built.
 */
function indexHtml(file: string, basePath: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return null;
  }
  if (indexCache?.file === file && indexCache.mtimeMs === stat.mtimeMs && indexCache.basePath === basePath) return indexCache.html;
  const raw = fs.readFileSync(file, 'utf8');
  const head = `<base href="${basePath}/" />\n    <meta name="tonearm-base" content="${basePath}" />`;
  const html = raw.replace(/<head>/i, `<head>\n    ${head}`);
  indexCache = { file, mtimeMs: stat.mtimeMs, basePath, html };
  return html;
}

function noCacheForHtml(res: Response, file: string) {
  if (file.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
  else if (/[.-][0-9a-zA-Z_-]{8,}\.(js|css)$/.test(file)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
}
