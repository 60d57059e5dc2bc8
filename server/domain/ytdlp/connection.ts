import { z } from 'zod';
import { locateYtdlp, YtdlpClient, type YtdlpLocation } from '../../integrations/ytdlp/index.js';
import { IntegrationError } from '../../integrations/errors.js';
import { NotConfiguredError, ValidationError } from '../errors.js';
import { locateFfmpeg } from '../subsonic/transcoding.js';
import type { Kernel } from '../../kernel.js';
import type { SettingsStore } from '../settings/store.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'config'> & { settings: SettingsStore };

/**
 * yt-dlp as the product sees it: which binary (setting, `YTDLP_PATH`, PATH), whether the
 * source is usable, and the connection test of Settings.
 */

export interface YtdlpStatus extends YtdlpLocation {
  /** A binary was found. */
  configured: boolean;
  /** The user's switch (`integrations.ytdlp.enabled`). */
  enabled: boolean;
  priority: number;
  ffmpeg: string | null;
}

export function ytdlpStatus(ctx: Deps, pathOverride?: string): YtdlpStatus {
  const s = ctx.settings.get().integrations.ytdlp;
  const location = locateYtdlp(pathOverride ?? s.path, ctx.config.ytdlpPath);
  return {
    ...location,
    configured: location.binary !== null,
    enabled: s.enabled,
    priority: s.priority,
    ffmpeg: locateFfmpeg(ctx.config.ffmpegPath),
  };
}

/** A client for the found binary; 409 NOT_CONFIGURED naming why there is none. */
export function ytdlpClient(ctx: Deps, options: { path?: string; timeoutMs?: number } = {}): YtdlpClient {
  const status = ytdlpStatus(ctx, options.path);
  if (!status.binary) throw new NotConfiguredError('integrations.ytdlp.path', status.reason ?? 'yt-dlp was not found on PATH; install it or set its path');
  return new YtdlpClient({
    binary: status.binary,
    ffmpeg: status.ffmpeg,
    audioFormat: ctx.settings.get().integrations.ytdlp.audioFormat,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
}

/** The body of yt-dlp's test: a path to try instead of the saved one. */
export const ytdlpTestBody = z.object({ path: z.string().max(4096) }).partial().strict().optional();

/** The connection test: yt-dlp's version and whether ffmpeg (needed to extract audio) was found. */
export async function testYtdlp(ctx: Deps, pathOverride?: string) {
  const status = ytdlpStatus(ctx, pathOverride);
  const client = ytdlpClient(ctx, { path: pathOverride, timeoutMs: 15_000 });
  let version: string;
  try {
    version = await client.version();
  } catch (err) {
    // Not yt-dlp (an administrator's path to some other program): say so, as bad input.
    if (err instanceof IntegrationError && err.kind === 'bad_response') throw new ValidationError(err.message);
    throw err;
  }
  const parts = [`Found yt-dlp ${version} at ${client.binary}`];
  parts.push(status.ffmpeg ? `ffmpeg at ${status.ffmpeg}` : 'ffmpeg was not found: yt-dlp can only keep audio it does not need to convert; install ffmpeg or set FFMPEG_PATH');
  if (!status.enabled) parts.push('the source is switched off in Settings (integrations.ytdlp.enabled)');
  return {
    success: true as const,
    version,
    path: client.binary,
    ffmpegFound: status.ffmpeg !== null,
    ffmpegPath: status.ffmpeg,
    message: parts.join('; '),
  };
}
