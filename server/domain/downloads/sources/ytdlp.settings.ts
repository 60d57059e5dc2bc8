import { z } from 'zod';
import { enabled, priority } from '../../settings/fields.js';

/**
 * yt-dlp's settings block, `integrations.ytdlp`: the yt-dlp descriptor (ytdlp.ts) names it, and
 * settings/schema.ts takes it from the list in settings.ts. A leaf, like slskd.settings.ts.
 */
export const ytdlpSettings = {
  /** yt-dlp: a command-line program; `path` empty means the one found on PATH. */
  ytdlp: z
    .object({
      path: z.string().max(4096).default(''),
      enabled,
      priority: priority(50),
      searchResults: z.number().int().min(1).max(20).default(5),
      /** `-x --audio-format`: `best` keeps the site's own audio stream without converting it. */
      audioFormat: z.enum(['best', 'm4a', 'opus', 'mp3', 'flac']).default('best'),
    })
    .strict(),
};
