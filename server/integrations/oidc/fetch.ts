import { IntegrationError } from '../errors.js';
import { exchange } from '../http.js';
import type { PrivateTargets } from '../guardedFetch.js';

/**
 * The `fetch` that `openid-client` is given (its `customFetch`): every request to the OpenID provider
 * (discovery, JWKS, token, userinfo) goes through the guarded exchange, so the address rules
 * (link-local and metadata addresses refused, redirects only within the provider's origin), the
 * timeout and the error mapping are the same as for every other outgoing call. Failures are
 * IntegrationErrors; `openid-client` wraps them, `integrationCause` finds them again.
 */
export interface OidcFetchOptions {
  allowPrivateTargets?: PrivateTargets;
  timeoutMs?: number;
}

const SERVICE = 'OpenID provider';
const MAX_BYTES = 1024 * 1024;

type FetchBody = string | URLSearchParams | ArrayBuffer | Uint8Array | ReadableStream | null | undefined;

export function oidcFetch(options: OidcFetchOptions = {}) {
  return async (url: string, init: { method: string; headers: Record<string, string>; body?: FetchBody; signal?: AbortSignal }): Promise<Response> => {
    // One spelling of Content-Type (the exchange adds a JSON one when it finds none); a form body says it is one, as fetch does.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers)) headers[name.toLowerCase() === 'content-type' ? 'Content-Type' : name] = value;
    if (init.body instanceof URLSearchParams) headers['Content-Type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    const answer = await exchange({
      service: SERVICE,
      url,
      method: init.method,
      headers,
      body: await bodyText(init.body),
      timeoutMs: options.timeoutMs ?? 10_000,
      allowPrivateTargets: options.allowPrivateTargets ?? 'lan',
      maxBytes: MAX_BYTES,
      ...(init.signal && { signal: init.signal }),
    });
    const answered = new Headers();
    for (const [name, value] of Object.entries(answer.headers ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) answered.append(name, v);
    }
    // The body is already read as text; the wire's length and encoding no longer describe it.
    answered.delete('content-length');
    answered.delete('content-encoding');
    const empty = answer.text === '' || [204, 205, 304].includes(answer.status);
    return new Response(empty ? null : answer.text, { status: answer.status, headers: answered });
  };
}

async function bodyText(body: FetchBody): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return new Response(body as BodyInit).text();
}

/** The IntegrationError behind an error `openid-client` threw (it wraps what its fetch threw), if any. */
export function integrationCause(err: unknown): IntegrationError | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof IntegrationError) return e;
  }
  return null;
}
