import { z } from 'zod';
import { permissionsSchema, roleSchema } from '../domain/auth/permissions.js';

/** Shapes shared by several areas. */
export const userSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  role: roleSchema,
  permissions: permissionsSchema,
});

export const successSchema = z.object({ success: z.literal(true) });

export const sessionSchema = z.object({
  token: z.string(),
  expiresAt: z.number(),
  user: userSchema,
  /** Signed in with a one-time password (`npm run reset-password`): choose a new one before anything else. */
  mustChangePassword: z.literal(true).optional(),
});

export const idParams = z.object({ id: z.coerce.number().int().positive() });
