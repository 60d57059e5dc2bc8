import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { publicUser } from '../../domain/auth/principal.js';
import { ForbiddenError } from '../../domain/errors.js';
import { defineRoute } from '../../http/route.js';
import { sessionSchema, successSchema, userSchema } from '../schemas.js';

const apiKeySchema = z.object({ apiKey: z.string().length(64) });

export function authRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/auth/login',
      summary: 'Create a password-login session',
      tag: 'auth',
      access: 'public',
      body: z.object({ username: z.string().max(256).default(''), password: z.string().max(1024).default('') }),
      response: sessionSchema,
      handler: ({ body, req }) => {
        if (ctx.config.authProxy)
          throw new ForbiddenError('Password login is disabled while reverse-proxy authentication is enabled');
        return ctx.auth.login(body.username, body.password, { ip: req.ip, userAgent: req.get('user-agent') });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/logout',
      summary: 'End the current session',
      tag: 'auth',
      access: 'authenticated',
      whilePasswordChangeRequired: true,
      response: successSchema,
      handler: ({ principal }) => {
        if (principal!.sessionId) ctx.auth.logout(principal!.sessionId);
        return { success: true as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/me',
      summary: 'Current identity',
      tag: 'auth',
      access: 'authenticated',
      whilePasswordChangeRequired: true,
      response: z.object({ user: userSchema, expiresAt: z.number().nullable(), mustChangePassword: z.literal(true).optional() }),
      handler: ({ principal }) => ({
        user: publicUser(principal!),
        expiresAt: principal!.expiresAt ?? null,
        ...(principal!.mustChangePassword && { mustChangePassword: true as const }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/api-key',
      summary: 'Read (or create) the instance API key',
      tag: 'auth',
      access: 'admin',
      response: apiKeySchema,
      handler: () => ({ apiKey: ctx.auth.apiKey() }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/api-key/rotate',
      summary: 'Replace the instance API key; the old one stops working at once',
      tag: 'auth',
      access: 'admin',
      response: apiKeySchema,
      handler: () => ({ apiKey: ctx.auth.rotateApiKey() }),
    }),
  ];
}
