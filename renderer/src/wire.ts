/**
 * The server's answers as types, read from wire.gen.ts (generated from GET /api/openapi.json by
 * `npm run api-types`): a screen names the route it reads instead of copying the shape by hand.
 */
import type { paths } from './wire.gen.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Success<O> = O extends { responses: infer R }
  ? R extends Record<200, infer A>
    ? A
    : R extends Record<201, infer B>
      ? B
      : R extends Record<202, infer C>
        ? C
        : never
  : never;

/** The JSON body a route answers with on success: `Answer<'/api/playlists/jobs'>`. */
export type Answer<P extends keyof paths, M extends Method = 'get'> = JsonOf<Success<Operation<P, M>>>;

/** The JSON body a route takes: `Body<'/api/settings', 'post'>`. */
export type Body<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer Q } ? JsonOf<NonNullable<Q>> : never;

/**
 * A type's named fields without its index signature: a loose request schema (zod `looseObject`) adds
 * `[key: string]: unknown`, under which `Pick<>` of a field the route no longer has would still
 * compile (as `unknown`). Pick from `Named<Body<…>>` and a renamed field fails the UI's typecheck.
 */
export type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
