/**
 * The few error values the product raises. The HTTP layer (server/http/errors.ts) maps each to
 * the contract's JSON body in one place; domain code never builds HTTP responses.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the input is wrong. */
export class ValidationError extends DomainError {}
/** 401: no valid credential. */
export class UnauthorizedError extends DomainError {}
/** 403: the credential is valid but may not do this. */
export class ForbiddenError extends DomainError {
  constructor(
    message: string,
    readonly error: string = 'Forbidden',
    code?: string,
  ) {
    super(message, code);
  }
}
/**
 * 404 for a route that exists but finds no such record. `error` names the record ("Artist not found"):
 * the bare "Not found" is reserved for unknown paths (decisions §4), which clients tell apart by it.
 */
export class NotFoundError extends DomainError {
  constructor(
    readonly error: string,
    message?: string,
  ) {
    super(message ?? '');
  }
}
/** 409: the current state forbids the change. */
export class ConflictError extends DomainError {}
/** 409 NOT_CONFIGURED: a feature needs an integration that is not set up. */
export class NotConfiguredError extends DomainError {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message, 'NOT_CONFIGURED');
  }
}
/** 429 from our own limiters (not upstream); retryAfterSeconds becomes the Retry-After header. */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, 'RATE_LIMITED');
  }
}
