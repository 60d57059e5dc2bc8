import { z } from 'zod';

/**
 * Plex's JSON carries numbers and booleans; its XML carries the same values as attribute strings
 * ("12", "1"). These schemas accept both, so one schema reads either answer.
 */
export const plexNumber = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).transform(Number);
export const plexFlag = z.union([z.boolean(), z.number(), z.string()]).transform((v) => v === true || v === 1 || v === '1' || v === 'true');
/** Ids and keys: numbers in one answer, strings in another; always strings here. */
export const plexKey = z.union([z.string(), z.number()]).transform(String);
export const optionalText = z.union([z.string(), z.number()]).transform(String).nullish().transform((v) => v ?? null);

/** One or many (XML with a single child, a JSON field that may be missing) as a list. */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}
