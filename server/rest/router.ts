import express, { type Request, type Response } from 'express';
import type { AppContext } from '../context.js';
import { DomainError, ForbiddenError, NotFoundError, TooManyRequestsError, ValidationError } from '../domain/errors.js';
import { authenticate } from './auth.js';
import { createRestContext, SENT, type RestCall, type RestContext, type RestMethod } from './context.js';
import { ErrorCode, SubsonicError, missingParameter, notSupported } from './errors.js';
import { annotationMethods } from './methods/annotation.js';
import { bookmarkMethods } from './methods/bookmarks.js';
import { browsingMethods } from './methods/browsing.js';
import { listMethods } from './methods/lists.js';
import { mediaMethods } from './methods/media.js';
import { playlistMethods } from './methods/playlists.js';
import { podcastMethods } from './methods/podcasts.js';
import { radioMethods } from './methods/radio.js';
import { searchMethods } from './methods/searching.js';
import { sharingMethods } from './methods/sharing.js';
import { systemMethods } from './methods/system.js';
import { userMethods } from './methods/users.js';
import { requestErrorInfo } from '../http/requestErrors.js';
import { Params } from './params.js';
import { envelope, isValidCallback, send, type Format, type Payload } from './wire.js';

export const METHODS: RestMethod[] = [
  ...systemMethods,
  ...browsingMethods,
  ...listMethods,
  ...searchMethods,
  ...playlistMethods,
  ...mediaMethods,
  ...annotationMethods,
  ...bookmarkMethods,
  ...userMethods,
  ...radioMethods,
  ...podcastMethods,
  ...sharingMethods,
];

const SUPPORTED_MAJOR = 1;
const SUPPORTED_MINOR = 16;

/** `v` as the protocol defines it: 20 when the client is older than we serve, 30 when newer. */
function checkVersion(v: string | undefined): void {
  if (v === undefined || v === '') throw missingParameter('v');
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v.trim());
  if (!m || Number(m[1]) < SUPPORTED_MAJOR)
    throw new SubsonicError(ErrorCode.clientMustUpgrade, `Incompatible Subsonic REST protocol version ${v}: client must upgrade`);
  if (Number(m[1]) > SUPPORTED_MAJOR || Number(m[2]) > SUPPORTED_MINOR)
    throw new SubsonicError(ErrorCode.serverMustUpgrade, `Incompatible Subsonic REST protocol version ${v}: server must upgrade`);
}

function toSubsonicError(err: unknown, rc: RestContext): SubsonicError {
  if (err instanceof SubsonicError) return err;
  // Too many failed sign-ins: code 0 (generic) with the wait in the message, HTTP 200 as the protocol
  // wants (Retry-After is set too). Not 40: clients read 40 as "the saved password is wrong" and
  // some then drop it or stop retrying, while code 0 shows our message and keeps the credentials.
  if (err instanceof TooManyRequestsError) return new SubsonicError(ErrorCode.generic, err.message);
  if (err instanceof NotFoundError) return new SubsonicError(ErrorCode.notFound, err.message || err.error);
  if (err instanceof ForbiddenError) return new SubsonicError(ErrorCode.notAuthorized, err.message);
  if (err instanceof ValidationError || err instanceof DomainError) return new SubsonicError(ErrorCode.generic, err.message);
  rc.app.log.error('subsonic method failed', { err });
  return new SubsonicError(ErrorCode.generic, 'Internal server error');
}

/** The response format a call asked for (`f`, `callback`), read from the query alone so it is known before the body is. */
function requestedFormat(params: Params): { format: Format; callback: string | undefined; refusal?: SubsonicError } {
  const f = (params.unchecked('f') ?? 'xml').toLowerCase();
  const callback = params.unchecked('callback');
  if (f === 'jsonp' && !isValidCallback(callback))
    return { format: 'json', callback, refusal: new SubsonicError(ErrorCode.generic, 'f=jsonp needs a callback that is a JavaScript identifier') };
  const format: Format = f === 'json' ? 'json' : f === 'jsonp' ? 'jsonp' : 'xml';
  if (f !== 'xml' && f !== 'json' && f !== 'jsonp')
    return { format, callback, refusal: new SubsonicError(ErrorCode.generic, `Unsupported response format f=${f.slice(0, 40)}`) };
  return { format, callback };
}

const queryOf = (req: Request) => {
  const i = req.url.indexOf('?');
  return i === -1 ? '' : req.url.slice(i + 1);
};

/** The /rest router: `/rest/<method>` and `/rest/<method>.view`, GET and form POST, any letter case. */
export function createRestRouter(app: AppContext, rc: RestContext = createRestContext(app)): express.Router {
  const methods = new Map(METHODS.map((m) => [m.name.toLowerCase(), m]));
  const router = express.Router();
  const fail = (res: Response, format: Format, callback: string | undefined, e: SubsonicError) => {
    const body: Payload = { ...envelope('failed', app.appVersion), error: { code: e.code, message: e.message } };
    send(res, format, callback, body, e.httpStatus);
  };
  router.use(express.urlencoded({ extended: false, limit: '5mb' }));
  router.use(async (req: Request, res: Response) => {
    if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'HEAD') {
      res.status(405).setHeader('Allow', 'GET, HEAD, POST').end();
      return;
    }
    const params = Params.from(queryOf(req), req.body);
    let name: string;
    try {
      name = decodeURIComponent(req.path.replace(/^\/+/, '')).replace(/\.view$/i, '');
    } catch {
      name = '';
    }
    const { format, callback, refusal } = requestedFormat(params);
    if (refusal) return fail(res, format, callback, refusal);
    try {
      const method = methods.get(name.toLowerCase());
      let user: RestCall['user'] | null = null;
      if (!method?.public) {
        checkVersion(params.string('v'));
        // No account exists before onboarding; say so rather than "wrong password".
        if (!app.auth.isOnboarded())
          throw new SubsonicError(ErrorCode.wrongCredentials, 'Tonearm is not set up yet: complete onboarding in its web UI first');
        user = await authenticate(params, req, app.users, rc.restKeys, app.failedLogins);
      }
      if (!method) throw notSupported(name || '(none)');
      const call: RestCall = {
        rc,
        req,
        res,
        params,
        user: user ?? { id: -1, username: '', role: 'user', permissions: {} as RestCall['user']['permissions'] },
        client: (params.string('c') ?? '').slice(0, 100) || 'unknown',
        format,
      };
      const result = await method.handler(call);
      if (result === SENT) return;
      send(res, format, callback, { ...envelope('ok', app.appVersion), ...(result ?? {}) });
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof TooManyRequestsError && err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      fail(res, format, callback, toSubsonicError(err, rc));
    }
  });
  // A body the parser refused (too large, bad encoding or charset): a Subsonic error in the asked format.
  router.use((err: unknown, req: Request, res: Response, next: express.NextFunction) => {
    const info = requestErrorInfo(err);
    if (!info || res.headersSent) return next(err);
    const { format, callback } = requestedFormat(Params.from(queryOf(req), undefined));
    fail(res, format, callback, new SubsonicError(ErrorCode.generic, info.message));
  });
  return router;
}
