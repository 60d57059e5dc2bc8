import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ConflictError } from '../../domain/errors.js';
import { defineRoute } from '../../http/route.js';
import { sessionSchema } from '../schemas.js';

const onboardingBody = z
  .object({
    authUser: z.string().trim().min(1).max(64),
    authPassword: z.string().max(1024),
    musicFolders: z.array(z.string().min(1)).max(100).optional(),
    downloadFolderPath: z.string().optional(),
    lidarr: z
      .object({
        url: z.string(),
        apiKey: z.string(),
        qualityProfileId: z.number().int().positive().nullable(),
        metadataProfileId: z.number().int().positive().nullable(),
        rootFolderPath: z.string(),
      })
      .partial()
      .strict()
      .optional(),
    navidrome: z.object({ url: z.string(), username: z.string(), password: z.string() }).partial().strict().optional(),
  })
  .loose();

export function onboardingRoutes(ctx: AppContext) {
  let completing = false;
  return [
    defineRoute({
      method: 'get',
      path: '/api/onboarding/music-folders',
      summary: 'Music folders given by TONEARM_MUSIC_DIRS: scanned without being chosen in the wizard',
      tag: 'onboarding',
      access: 'onboarding',
      response: z.object({ environmentMusicFolders: z.array(z.string()) }),
      handler: () => ({ environmentMusicFolders: ctx.config.musicDirs }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/onboarding/complete',
      summary: 'Create the first administrator, store the chosen settings, and finish onboarding',
      tag: 'onboarding',
      access: 'onboarding',
      body: onboardingBody,
      response: z.object({ success: z.literal(true), session: sessionSchema }),
      handler: async ({ body, req }) => {
        if (completing) throw new ConflictError('Onboarding is already being completed');
        completing = true;
        try {
          const patch = {
            ...(body.musicFolders && { library: { musicFolders: body.musicFolders } }),
            ...(body.downloadFolderPath !== undefined && { downloads: { folderPath: body.downloadFolderPath } }),
            integrations: { ...(body.lidarr && { lidarr: body.lidarr }), ...(body.navidrome && { navidrome: body.navidrome }) },
          };
          // Validate everything before writing anything, so a bad value leaves no half-made install.
          ctx.settings.preview(patch);
          const user = await ctx.users.create({ username: body.authUser, password: body.authPassword, role: 'admin' });
          ctx.settings.update(patch);
          ctx.auth.markOnboarded();
          const row = ctx.users.row(user.id)!;
          return { success: true as const, session: ctx.auth.createSession(row, { ip: req.ip, userAgent: req.get('user-agent') }) };
        } finally {
          completing = false;
        }
      },
    }),
  ];
}
