/**
 * The one error type every integration client throws. `kind` says what went wrong in terms the
 * product can act on; the HTTP layer maps it to the contract's error codes in one place.
 */
export type IntegrationErrorKind =
  | 'unreachable' // connection refused, DNS failure, reset
  | 'timeout'
  | 'unauthorized' // 401/403 from the service: wrong API key or credentials
  | 'not_found' // 404 for a specific resource
  | 'wrong_url' // the URL answers, but not as this service (HTML page, wrong URL base)
  | 'rate_limited' // 429 or the service's own rate-limit signal
  | 'bad_request' // 400/422 with the service's validation details
  | 'server_error' // 5xx
  | 'bad_response' // unparsable or unexpected body
  | 'circuit_open' // our breaker refuses calls for a while after repeated failures
  | 'refused'; // the address may not be connected to (link-local, metadata, or private outside the allow-list)

export class IntegrationError extends Error {
  override readonly name = 'IntegrationError';

  constructor(
    readonly service: string,
    readonly kind: IntegrationErrorKind,
    message: string,
    readonly status?: number,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export function isIntegrationError(err: unknown): err is IntegrationError {
  return err instanceof IntegrationError;
}
