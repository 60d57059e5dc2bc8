import { invalidParameter, missingParameter } from './errors.js';

type Raw = Map<string, string[]>;

/** A decimal integer JavaScript holds exactly (|n| < 2^53, so SQLite stores it as an integer too). */
function toInteger(name: string, s: string): number {
  if (!/^-?\d+$/.test(s.trim())) throw invalidParameter(name, 'not an integer');
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw invalidParameter(name, `out of range (at most ${Number.MAX_SAFE_INTEGER} in magnitude)`);
  return n;
}

/**
 * The parameters of one /rest call: query string and form body merged, repeated keys kept as lists.
 * Names are case-sensitive, as in the protocol.
 */
export class Params {
  private constructor(private readonly raw: Raw) {}

  static from(queryString: string, body: unknown): Params {
    const raw: Raw = new Map();
    const add = (k: string, v: string) => {
      const list = raw.get(k);
      if (list) list.push(v);
      else raw.set(k, [v]);
    };
    for (const [k, v] of new URLSearchParams(queryString)) add(k, v);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
        if (Array.isArray(v)) for (const item of v) add(k, String(item));
        else if (v !== undefined && v !== null && typeof v !== 'object') add(k, String(v));
      }
    }
    return new Params(raw);
  }

  has(name: string): boolean {
    return this.raw.has(name);
  }

  /** First value, or undefined when absent. */
  string(name: string): string | undefined {
    const v = this.raw.get(name)?.[0];
    if (v !== undefined && v.includes('\0')) throw invalidParameter(name, 'contains a NUL character');
    return v;
  }

  /** First value as sent, NUL characters included: only for choosing the answer's format before anything can fail. */
  unchecked(name: string): string | undefined {
    return this.raw.get(name)?.[0];
  }

  required(name: string): string {
    const v = this.string(name);
    if (v === undefined || v === '') throw missingParameter(name);
    return v;
  }

  list(name: string): string[] {
    const values = (this.raw.get(name) ?? []).filter((v) => v !== '');
    if (values.some((v) => v.includes('\0'))) throw invalidParameter(name, 'contains a NUL character');
    return values;
  }

  int(name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
    const v = this.optionalInt(name);
    if (v === undefined) return fallback;
    if (bounds.min !== undefined && v < bounds.min) throw invalidParameter(name, `must be at least ${bounds.min}`);
    return bounds.max !== undefined ? Math.min(v, bounds.max) : v;
  }

  optionalInt(name: string): number | undefined {
    const s = this.string(name);
    if (s === undefined || s === '') return undefined;
    return toInteger(name, s);
  }

  requiredInt(name: string): number {
    if (this.string(name) === undefined || this.string(name) === '') throw missingParameter(name);
    return this.optionalInt(name)!;
  }

  intList(name: string): number[] {
    return this.list(name).map((s) => toInteger(name, s));
  }

  bool(name: string, fallback: boolean): boolean {
    const s = this.string(name)?.toLowerCase();
    if (s === undefined || s === '') return fallback;
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
    throw invalidParameter(name, 'not a boolean');
  }
}
