import { expect, it } from 'vitest';
import type { Same } from '../../server/http/same.js';

/**
 * Same<> is what ties a route's response schema to the domain type it presents (server/http/same.ts).
 * Each line below is checked by the typecheck (`npx tsc --noEmit -p tsconfig.json`): a `true` that
 * should be `false` fails to compile, so a Same<> that lets a missing optional key slip fails here.
 */
it('tells apart types that differ in a key (optional ones too, at any depth) or in nullability', () => {
  const checks = [
    true satisfies Same<{ a: string; b: { c: number | null }[] }, { a: string; b: { c: number | null }[] }>,
    false satisfies Same<{ a: string; b?: number }, { a: string }>,
    false satisfies Same<{ x: { a: string; b?: number }[] }, { x: { a: string }[] }>,
    false satisfies Same<{ x: { y: { a: string } | null } }, { x: { y: { a: string; z?: string } | null } }>,
    false satisfies Same<{ a: string | null }, { a: string }>,
    false satisfies Same<{ a: 'x' | 'y' }, { a: string }>,
    // An open object (a zod catchall) and a Record<string, unknown> intersection name the same keys.
    true satisfies Same<{ a: string; [k: string]: unknown }, { a: string } & Record<string, unknown>>,
    false satisfies Same<{ a: string; [k: string]: unknown }, { a: string; b: number } & Record<string, unknown>>,
    false satisfies Same<{ 1: string }, { 2: string }>,
    // A key that can only be undefined is never sent (inferred unions of object literals carry them).
    true satisfies Same<{ ok: false } | { ok: true; n: number }, { ok: false; n?: undefined } | { ok: true; n: number }>,
    false satisfies Same<{ a: string }, { a: string; b?: number }>,
  ];
  expect(checks).toEqual([true, false, false, false, false, false, true, false, false, true, false]);
});
