import fs from 'node:fs';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { diskSpace } from '../../domain/health.js';
import { defineRoute } from '../../http/route.js';

/** api.md 4.13 `storage-health`: every folder the server reads or writes, checked now. */
export function storageHealthRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/settings/storage-health',
      summary: 'Check each music folder, the data folder and the download folder: exists, writable, free and total bytes',
      tag: 'settings',
      access: 'admin',
      response: z.object({
        checkedAt: z.string(),
        healthy: z.boolean(),
        folders: z.array(
          z.object({
            role: z.enum(['data', 'music', 'downloads']),
            path: z.string(),
            exists: z.boolean(),
            writable: z.boolean(),
            freeBytes: z.number().nullable(),
            totalBytes: z.number().nullable(),
            usedPercent: z.number().nullable(),
            problem: z.string().nullable(),
          }),
        ),
      }),
      handler: async () => {
        const s = ctx.settings.get();
        const folders = [
          { role: 'data' as const, location: ctx.config.dataDir },
          ...[...new Set([...ctx.config.musicDirs, ...s.library.musicFolders])].map((location) => ({ role: 'music' as const, location })),
          ...(s.downloads.folderPath ? [{ role: 'downloads' as const, location: s.downloads.folderPath }] : []),
        ];
        const space = await diskSpace(folders);
        const checked = await Promise.all(
          space.map(async (d) => {
            const isDir = await fs.promises.stat(d.location).then((st) => st.isDirectory(), () => false);
            const writable = isDir && (await fs.promises.access(d.location, fs.constants.W_OK).then(() => true, () => false));
            // Music folders are only read; the data and download folders must take new files.
            const needsWrite = d.role !== 'music';
            const problem = !isDir ? 'The folder does not exist' : needsWrite && !writable ? 'The folder is not writable by the server' : null;
            return { role: d.role, path: d.location, exists: isDir, writable, freeBytes: d.freeBytes, totalBytes: d.totalBytes, usedPercent: d.usedPercent, problem };
          }),
        );
        return { checkedAt: new Date(ctx.clock.now()).toISOString(), healthy: checked.every((f) => f.problem === null), folders: checked };
      },
    }),
  ];
}
