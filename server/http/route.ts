import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../domain/errors.js';
import { hasPermission, isUserAccount, type Principal } from '../domain/auth/principal.js';
import type { PermissionName } from '../domain/auth/permissions.js';

/**
 * Who may call a route.
 * - public: anyone; the principal is resolved when a credential is sent, else null.
 * - authenticated: any valid credential (session, API key, proxy identity, LAN auto-login).
 * - user: a real user account; the instance API key gets 403 "User account required".
 * - admin: an administrator (the API key counts).
 * - onboarding: anyone until onboarding completes, then 403.
 *
 * Until onboarding completes no account exists and every route answers 403 ONBOARDING_REQUIRED,
 * except onboarding routes and those marked `openBeforeOnboarding` (health, the image proxy, the
 * folder browser the wizard uses), which then answer anyone with no principal.
 * - media: like authenticated, and also `?token=<session>` or `?st=<stream token>`.
 * - { permission }: an administrator or a caller holding the permission.
 * - { userPermission }: a real user account holding the permission.
 */
export type Access =
  | 'public'
  | 'authenticated'
  | 'user'
  | 'admin'
  | 'onboarding'
  | 'media'
  | { permission: PermissionName }
  | { userPermission: PermissionName };

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Null only on public and onboarding routes called without a credential. */
  principal: Principal | null;
}

export interface RouteSpec<P, Q, B> {
  method: HttpMethod;
  /** Express path with real product names (`/api/settings/lidarr/profiles`). */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The success body (documents the route in /api/openapi.json), or 'binary' for media. */
  response: z.ZodType | 'binary' | 'empty';
  status?: number;
  /** Error code for invalid query/params (the canonical page uses INVALID_QUERY). */
  invalidCode?: string;
  /** Before onboarding completes, answer anyone (without reading credentials) instead of 403 ONBOARDING_REQUIRED. */
  openBeforeOnboarding?: boolean;
  /** Open to a session that signed in with a one-time password and has not chosen a new one yet. */
  whilePasswordChangeRequired?: boolean;
  /** Also serve HEAD for this GET route (express does it; documented for media routes). */
  handler: (ctx: RouteContext<P, Q, B>) => unknown;
}

export type RouteDefinition = RouteSpec<any, any, any>;

/** Declares a route: one object gives express its handler and OpenAPI its documentation. */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteDefinition {
  return spec;
}

export interface PrincipalResolver {
  /** The caller's principal; throws UnauthorizedError for a bad credential; null when none was sent. */
  resolve(req: Request, options: { media: boolean }): Promise<Principal | null>;
  isOnboarded(): boolean;
}

/**
 * Where the first NUL character sits in a parsed input (a string value or a key), or null. No field
 * of the API carries one, and SQLite text search, file paths and XML all break on it, so it is
 * refused here once for every route. Walks iteratively: a deeply nested body cannot exhaust the stack.
 */
function nulAt(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) return at;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const here = at === '' ? k : `${at}.${k}`;
        if (k.includes('\0')) return here;
        stack.push([child, here]);
      }
    }
  }
  return null;
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, what: string, code: string): T {
  const nul = nulAt(value);
  if (nul !== null) {
    const where = nul || what;
    throw new ValidationError(`${where}: must not contain NUL characters`, code, [{ path: nul, message: 'must not contain NUL characters' }]);
  }
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length ? issue.path.join('.') : what;
  throw new ValidationError(`${where}: ${issue.message}`, code, result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
}

async function authorize(def: RouteDefinition, req: Request, resolver: PrincipalResolver): Promise<Principal | null> {
  const { access } = def;
  if (access === 'onboarding') {
    if (resolver.isOnboarded()) throw new ForbiddenError('Onboarding already completed', 'Onboarding already completed');
    return null;
  }
  if (!resolver.isOnboarded()) {
    if (def.openBeforeOnboarding) return null;
    throw new ForbiddenError('Complete onboarding first: it creates the first administrator', 'Onboarding required', 'ONBOARDING_REQUIRED');
  }
  const caller = await resolver.resolve(req, { media: access === 'media' });
  if (access === 'public') return caller;
  if (!caller) throw new UnauthorizedError('Authentication required', 'AUTH_REQUIRED');
  if (caller.mustChangePassword && !def.whilePasswordChangeRequired)
    throw new ForbiddenError('Choose a new password first: you signed in with a one-time password', 'Password change required', 'PASSWORD_CHANGE_REQUIRED');
  if (access === 'authenticated' || access === 'media') return caller;
  if (access === 'admin') {
    if (caller.role !== 'admin') throw new ForbiddenError('Admin access required');
    return caller;
  }
  const needsUser = access === 'user' || 'userPermission' in access;
  if (needsUser && !isUserAccount(caller))
    throw new ForbiddenError('This operation needs a user session, not the API key', 'User account required');
  const permission = access === 'user' ? undefined : 'permission' in access ? access.permission : access.userPermission;
  if (permission && !hasPermission(caller, permission)) throw new ForbiddenError(`Permission required: ${permission}`);
  return caller;
}

/** The express handler for a route definition. */
export function routeHandler(def: RouteDefinition, resolver: PrincipalResolver, options: { checkResponses?: boolean } = {}) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = await authorize(def, req, resolver);
      const code = def.invalidCode ?? 'VALIDATION_ERROR';
      const params = parsePart(def.params, req.params, 'params', code);
      const query = parsePart(def.query, req.query ?? {}, 'query', code);
      const body = parsePart(def.body, req.body, 'body', 'VALIDATION_ERROR');
      const result = await def.handler({ req, res, params, query, body, principal });
      if (options.checkResponses && result !== undefined && !res.headersSent) checkResponse(def, result);
      if (result !== undefined && !res.headersSent) res.status(def.status ?? 200).json(result);
      else if (result === undefined && !res.headersSent && def.response === 'empty') res.status(def.status ?? 204).end();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The answer as it goes on the wire, against the route's response schema: the OpenAPI document and
 * the renderer's generated types come from these schemas, so with TONEARM_CHECK_RESPONSES (on in the
 * tests) an answer that has drifted from its schema is a 500 naming the fields.
 */
function checkResponse(def: RouteDefinition, result: unknown): void {
  if (typeof def.response === 'string') return;
  const wire: unknown = JSON.parse(JSON.stringify(result));
  const checked = def.response.safeParse(wire);
  if (checked.success) return;
  const where = checked.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  throw new Error(`The answer of ${def.method.toUpperCase()} ${def.path} does not match its response schema: ${where}`);
}
