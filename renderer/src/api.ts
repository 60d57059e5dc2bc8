import { readableError } from './messages';
import { SESSION_EXPIRED, session, signOut } from './session';
import { withBase } from './base';

/** An error answered by the API: `{error, message?, code?}`; `text` is what a person should read. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(text);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not treat a 401 as the end of the session (the sign-in form itself). */
  anonymous?: boolean;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Calls the public HTTP API with the session token; a rejected session sends the user back to sign-in. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = session.get().token;
  if (token && !options.anonymous) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withBase(withQuery(path, options.query)), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The server cannot be reached. Check that Tonearm is running.', 'NETWORK', null);
  }
  const text = await res.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (res.ok) return body as T;

  const err = (body && typeof body === 'object' ? body : {}) as { error?: string; message?: string; code?: string };
  const message = readableError(err) ?? err.message ?? err.error ?? `Request failed (${res.status})`;
  if (res.status === 401 && !options.anonymous && (err.code === 'SESSION_INVALID' || token)) {
    signOut(SESSION_EXPIRED);
  }
  throw new ApiError(res.status, message, err.code, body);
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.text;
  if (err instanceof Error) return err.message;
  return String(err);
}

export const isNotFound = (err: unknown) => err instanceof ApiError && err.status === 404;
