import type { NextFunction, Request, Response } from 'express';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotConfiguredError,
  NotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationError,
} from '../domain/errors.js';
import { IntegrationError } from '../integrations/errors.js';
import type { Logger } from '../log.js';
import { requestErrorInfo } from './requestErrors.js';

export interface ErrorBody {
  error: string;
  message?: string;
  code?: string;
  details?: unknown;
}

const upstreamStatus: Record<IntegrationError['kind'], [number, string]> = {
  unreachable: [502, 'UPSTREAM_UNAVAILABLE'],
  timeout: [502, 'UPSTREAM_UNAVAILABLE'],
  server_error: [502, 'UPSTREAM_UNAVAILABLE'],
  bad_response: [502, 'UPSTREAM_UNAVAILABLE'],
  wrong_url: [502, 'UPSTREAM_UNAVAILABLE'],
  circuit_open: [502, 'UPSTREAM_UNAVAILABLE'],
  unauthorized: [502, 'UPSTREAM_AUTH_FAILED'],
  rate_limited: [503, 'UPSTREAM_RATE_LIMITED'],
  not_found: [404, 'UPSTREAM_NOT_FOUND'],
  bad_request: [400, 'UPSTREAM_REJECTED'],
  refused: [400, 'TARGET_REFUSED'],
};

const upstreamError = (kind: IntegrationError['kind'], status: number): string =>
  kind === 'refused'
    ? 'Address refused'
    : status === 503
      ? 'Upstream rate limited'
      : status === 404
        ? 'Not found upstream'
        : status === 400
          ? 'Upstream rejected the request'
          : 'Upstream unavailable';

/** The one place where error values become HTTP statuses and the contract's JSON bodies. */
export function toHttpError(err: unknown): { status: number; body: ErrorBody } | null {
  const withMessage = (status: number, error: string, e: DomainError, code = e.code) => ({
    status,
    body: { error, ...(e.message && { message: e.message }), ...(code && { code }), ...(e.details !== undefined && { details: e.details }) },
  });
  if (err instanceof ValidationError) return withMessage(400, 'Invalid request', err, err.code ?? 'VALIDATION_ERROR');
  if (err instanceof UnauthorizedError) return withMessage(401, 'Unauthorized', err, err.code ?? 'AUTH_REQUIRED');
  if (err instanceof ForbiddenError) return { status: 403, body: { error: err.error, message: err.message, ...(err.code && { code: err.code }) } };
  if (err instanceof NotFoundError) return withMessage(404, err.error, err);
  if (err instanceof NotConfiguredError) return withMessage(409, 'Not configured', err, 'NOT_CONFIGURED');
  if (err instanceof ConflictError) return withMessage(409, 'Conflict', err);
  if (err instanceof TooManyRequestsError) return withMessage(429, 'Too many requests', err, 'RATE_LIMITED');
  if (err instanceof IntegrationError) {
    const [status, code] = upstreamStatus[err.kind];
    return {
      status,
      body: {
        error: upstreamError(err.kind, status),
        code,
        message: `${err.service}: ${err.message}`,
        ...(err.kind === 'bad_request' && err.details !== undefined && { details: err.details }),
      },
    };
  }
  const unreadable = requestErrorInfo(err);
  if (unreadable) return { status: unreadable.status, body: { error: unreadable.error, code: unreadable.code, message: unreadable.message } };
  return null;
}

export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = toHttpError(err);
    if (res.headersSent) {
      log.warn('error after response started', { requestId: res.locals.requestId, err });
      res.destroy();
      return;
    }
    if (mapped) {
      if (err instanceof TooManyRequestsError && err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      res.status(mapped.status).json(mapped.body);
      return;
    }
    // Hidden 500: the cause goes to the log only.
    log.error('unhandled error', { requestId: res.locals.requestId, method: req.method, path: req.path, err });
    res.status(500).json({ error: 'Internal server error' });
  };
}
