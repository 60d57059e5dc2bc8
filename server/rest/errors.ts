/** Subsonic error codes (HTTP 200 bodies with status="failed"), with the protocol's meanings. */
export const ErrorCode = {
  generic: 0,
  missingParameter: 10,
  clientMustUpgrade: 20,
  serverMustUpgrade: 30,
  wrongCredentials: 40,
  tokenAuthNotSupported: 41,
  mechanismNotSupported: 42,
  conflictingMechanisms: 43,
  invalidApiKey: 44,
  notAuthorized: 50,
  notFound: 70,
} as const;

export class SubsonicError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** HTTP status for binary endpoints and the concurrency limit; protocol errors stay 200. */
    readonly httpStatus = 200,
  ) {
    super(message);
    this.name = 'SubsonicError';
  }
}

export const missingParameter = (name: string) =>
  new SubsonicError(ErrorCode.missingParameter, `Required parameter is missing: ${name}`);
export const invalidParameter = (name: string, why = 'invalid value') =>
  new SubsonicError(ErrorCode.generic, `Invalid parameter ${name}: ${why}`);
export const notFound = (what = 'The requested data was not found') => new SubsonicError(ErrorCode.notFound, what);
export const notAuthorized = (what = 'User is not authorized for the given operation') =>
  new SubsonicError(ErrorCode.notAuthorized, what);
export const notSupported = (method: string) =>
  new SubsonicError(ErrorCode.generic, `Method not supported by this server: ${method}`);
