import path from 'node:path';

/**
 * Where this computer finds a finished download (decisions §2 style): a download client reports
 * paths as it sees them (inside its container, say). The part of the reported path under the
 * client's own completed folder is looked up under `completedPath` (the folder set or confirmed
 * here). Null when no such folder is given, or when the reported path lies outside the client's
 * completed folder or climbs out of it, so nothing outside `completedPath` is ever used.
 */
export function localCompletedPath(reported: string, clientCompleteDir: string, completedPath: string): string | null {
  if (completedPath.trim() === '') return null;
  const posix = (p: string) => p.replace(/\\/g, '/').replace(/\/+$/, '');
  const from = posix(clientCompleteDir);
  const to = posix(reported);
  if (from === '' || !(to === from || to.startsWith(`${from}/`))) return null;
  const rest = to.slice(from.length).replace(/^\/+/, '');
  const parts = rest.split('/').filter(Boolean);
  if (parts.some((p) => p === '..')) return null;
  return path.join(completedPath, ...parts);
}
