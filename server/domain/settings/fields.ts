import { z } from 'zod';
import { isNeverAllowedAddress } from '../../integrations/guardedFetch.js';

/**
 * Fields that settings blocks share: schema.ts and the download sources' own blocks
 * (downloads/sources/<id>.settings.ts) build from these. A leaf: it imports nothing that reads the
 * `Settings` type, so a source's block can live beside the source without an import cycle.
 */

/** Literal link-local and metadata addresses are refused when saved; names are checked when connecting. */
export const connectable = (url: string) => {
  if (!URL.canParse(url)) return true; // z.url has said so already (zod runs both checks)
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return !/^[\d.]+$|:/.test(host) || !isNeverAllowedAddress(host);
};

/** A URL of a service the user runs; empty string means "not configured". */
export const serviceUrl = z
  .union([
    z.literal(''),
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine(connectable, { error: 'is a link-local or cloud metadata address, which is never allowed' }),
  ])
  .default('');
export const secret = z.string().max(1024).default('');
/**
 * An API key or token: sent in an HTTP header (or a query string), so printable ASCII without
 * spaces. Checked where it comes in (400), not when a request with it fails later.
 */
export const headerToken = z
  .string()
  .trim()
  .max(1024)
  .regex(/^[\x21-\x7e]*$/, { error: 'must be printable ASCII without spaces (API keys and tokens are sent in HTTP headers)' });
export const key = headerToken.default('');
/** Every integration block can be switched off without losing its settings (decisions §2). */
export const enabled = z.boolean().default(true);
/** Download sources are tried in ascending priority. */
export const sourcePriority = z.number().int().min(0).max(1000);
export const priority = (value: number) => sourcePriority.default(value);
