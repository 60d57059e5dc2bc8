import { z } from 'zod';
import { SECRET_FIELD, SECRET_MASK } from './schema.js';

/**
 * The settings schema as the API answers it: every secret field may also hold the mask (see
 * `maskSecrets`), which its own format (an address, a key) would refuse. Describes answers only.
 */
export function maskedView<T extends z.ZodType>(schema: T): z.ZodType {
  return acceptMask(schema, false);
}

function acceptMask(s: z.ZodType, secret: boolean): z.ZodType {
  const rebuilt = rebuildAcceptingMask(s, secret);
  return s.description && rebuilt !== s ? rebuilt.describe(s.description) : rebuilt;
}

function rebuildAcceptingMask(s: z.ZodType, secret: boolean): z.ZodType {
  if (secret) return z.union([s, z.literal(SECRET_MASK)]);
  if (s instanceof z.ZodDefault) return acceptMask(s.unwrap() as z.ZodType, false).default(s.def.defaultValue as never);
  if (s instanceof z.ZodPrefault) return acceptMask(s.unwrap() as z.ZodType, false).prefault(s.def.defaultValue as never);
  if (s instanceof z.ZodOptional) return acceptMask(s.unwrap() as z.ZodType, false).optional();
  if (s instanceof z.ZodNullable) return acceptMask(s.unwrap() as z.ZodType, false).nullable();
  if (s instanceof z.ZodArray) return z.array(acceptMask(s.element as z.ZodType, false));
  if (s instanceof z.ZodObject) {
    const shape = Object.fromEntries(Object.entries(s.shape as Record<string, z.ZodType>).map(([k, v]) => [k, acceptMask(v, SECRET_FIELD.test(k))]));
    return z.object(shape);
  }
  return s;
}
