import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { browseDirectories, ensureDirectory } from '../../domain/filesystem/browse.js';
import { defineRoute } from '../../http/route.js';

const directory = z.object({ name: z.string(), path: z.string(), writable: z.boolean() });

/** Public before onboarding (the wizard picks folders), administrator-only afterwards. */
export function filesystemRoutes(_ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/filesystem/browse',
      summary: 'List the sub-folders of a server folder',
      tag: 'filesystem',
      access: 'admin',
      openBeforeOnboarding: true,
      query: z.object({
        path: z.string().max(4096).optional(),
        showHidden: z.enum(['true', 'false', '1', '0']).optional(),
      }),
      response: z.object({
        path: z.string(),
        parent: z.string().nullable(),
        writable: z.boolean(),
        directories: z.array(directory),
        roots: z.array(z.string()),
        home: z.string(),
      }),
      handler: ({ query }) => browseDirectories(query.path, query.showHidden === 'true' || query.showHidden === '1'),
    }),
    defineRoute({
      method: 'post',
      path: '/api/filesystem/ensure',
      summary: 'Create a server folder (with parents) or validate an existing one',
      tag: 'filesystem',
      access: 'admin',
      openBeforeOnboarding: true,
      body: z.object({ path: z.string().min(1).max(4096), create: z.boolean().default(true) }).strict(),
      response: z.object({ path: z.string(), exists: z.boolean(), created: z.boolean(), writable: z.boolean() }),
      handler: ({ body }) => ensureDirectory(body.path, body.create),
    }),
  ];
}
