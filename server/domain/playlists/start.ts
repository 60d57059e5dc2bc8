import type { AppContext } from '../../context.js';
import { startRetryCycle } from './retryCycle.js';
import { startSharedPlaylists } from './sharedPlaylists.js';
import { startStaticDownloads } from './staticDownloads.js';

/** Start-up of static and shared playlists: registry provider, joining of finished jobs, sync and retry cycle. */
export function startPlaylists(ctx: AppContext): void {
  startStaticDownloads(ctx);
  startSharedPlaylists(ctx);
  startRetryCycle(ctx);
}
