/**
 * Hostile inputs for the fuzz tests: a seeded random source, the values that broke servers like
 * this one (bad percent-encodings, NUL bytes, numbers past 2^53 and 2^63, arrays for scalars,
 * oversized text), and a small request runner that records every 5xx or dropped connection.
 */

/** mulberry32: small, fast and the same sequence for the same seed on every machine. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick<T>(list: readonly T[]): T {
      return list[Math.floor(next() * list.length)]!;
    },
    sample<T>(list: readonly T[], n: number): T[] {
      const copy = [...list];
      const out: T[] = [];
      while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]!);
      return out;
    },
  };
}
export type Random = ReturnType<typeof seeded>;

/** Already percent-encoded text, put into a URL as is (the point is that it does not decode). */
export const MALFORMED_ENCODINGS = ['%E0%A4%A', '%', '%zz', '%FF', '%C0%AF', '%ED%A0%80', 'a%'];

/** Text values, encoded with encodeURIComponent before use. */
export const TEXT_VALUES = [
  '',
  '0',
  '-1',
  '1.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '1e3',
  '0x10',
  '99999999999999999999',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '9007199254740993',
  '-9007199254740993',
  'a\u0000b',
  '\u0000',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '"',
  "' OR 1=1 --",
  '"unterminated',
  'NEAR(a b)',
  'AND OR NOT',
  '*',
  '^',
  'a:b',
  '../../../../etc/passwd',
  'ü🎵\u200b',
  '   ',
  'x'.repeat(5000),
  '\u202e\ufeff',
  '<script>',
  'http://127.0.0.1:1/x',
];

/** Past what JavaScript holds exactly, past SQLite's integers, and the largest exact ones. */
const HUGE_NUMBERS = ['99999999999999999999', '9223372036854775808', '9007199254740991', '-9007199254740991', '2147483648'];

/** Always sent for every parameter (what most often reached SQLite or a Date unchecked), then `extra` drawn from the rest. */
export function textValues(rnd: Random, extra: number): string[] {
  return ['a\u0000b', rnd.pick(HUGE_NUMBERS), ...rnd.sample(TEXT_VALUES, extra)];
}

/** Always sent for every body field, then `extra` drawn from the rest. */
export function jsonValues(rnd: Random, extra: number): unknown[] {
  return ['a\u0000b', rnd.pick([9007199254740993, 1e308, -1]), rnd.pick([[], ['x', 1], { a: 1 }]), ...rnd.sample(JSON_VALUES, extra)];
}

/** JSON values for body fields. */
export const JSON_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  99999999999999999999,
  9007199254740993,
  '',
  'a\u0000b',
  'x'.repeat(100_000),
  '99999999999999999999',
  '\ud800',
  [],
  [1, 'a', null, {}],
  {},
  { nested: { deeper: [1, 2, 3] } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  nest(200),
];

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Whole request bodies sent as application/json regardless of the route's schema. */
export const RAW_JSON_BODIES = [
  '{',
  '[1,',
  'null',
  '"text"',
  '123',
  'true',
  '{"a":1}{',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"a\\u0000":1}',
  '['.repeat(50_000) + ']'.repeat(50_000),
  '{"a":' + '1'.repeat(400) + '}',
  '\ufeff{}',
];

export interface Attempt {
  label: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Extra check of a completed answer (e.g. a Subsonic "Internal server error"); returns a problem or null. */
  check?: (status: number, contentType: string, text: string) => string | null;
}

export interface Failure {
  attempt: Attempt;
  problem: string;
}

const describeBody = (b: Attempt['body']) => {
  if (b === undefined) return '';
  const s = typeof b === 'string' ? b : `<${b.length} bytes>`;
  return s.length > 200 ? `${JSON.stringify(s.slice(0, 200))}… (${s.length} chars)` : JSON.stringify(s);
};

/** Credentials shortened in printed requests: the shape matters, not the token. */
const redact = (headers: Record<string, string> | undefined) =>
  headers &&
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, /^(authorization|x-api-key)$/i.test(k) ? `${v.slice(0, 12)}…` : v]));

export function formatFailure(f: Failure): string {
  const { attempt: a } = f;
  const url = a.url.length > 300 ? `${a.url.slice(0, 300)}… (${a.url.length} chars)` : a.url;
  return `[${a.label}] ${a.method} ${url} ${a.headers ? JSON.stringify(redact(a.headers)) : ''} ${describeBody(a.body)}\n    -> ${f.problem}`;
}

/** Sends one attempt; a 5xx, a dropped connection or a failed check is returned as a problem. */
export async function send(base: string, attempt: Attempt): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(base + attempt.url, {
      method: attempt.method,
      ...(attempt.headers && { headers: attempt.headers }),
      ...(attempt.body !== undefined && { body: typeof attempt.body === 'string' ? attempt.body : new Uint8Array(attempt.body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(20_000),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return `no answer: ${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}`;
  }
  let text: string;
  try {
    const buf = Buffer.from(await res.arrayBuffer());
    text = buf.subarray(0, 4000).toString('utf8');
  } catch (err) {
    return `status ${res.status}, then the body was cut: ${(err as Error).message}`;
  }
  if (res.status >= 500) return `status ${res.status}: ${text.slice(0, 300)}`;
  return attempt.check?.(res.status, res.headers.get('content-type') ?? '', text) ?? null;
}

/** Runs attempts a few at a time (the order of results does not matter; the list is seeded). */
export async function runAll(base: string, attempts: Attempt[], concurrency = 4): Promise<Failure[]> {
  const failures: Failure[] = [];
  let i = 0;
  const worker = async () => {
    while (i < attempts.length) {
      const attempt = attempts[i++]!;
      const problem = await send(base, attempt);
      if (problem) failures.push({ attempt, problem });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failures;
}
