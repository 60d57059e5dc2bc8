import fs from 'node:fs';
import path from 'node:path';

/**
 * Where library files may really live. A music folder can hold symbolic links; a link is followed
 * only when its target (every link on the way resolved) lies inside one of the allowed folders, so a
 * link to /etc/passwd is never indexed, streamed, zipped or read for artwork or lyrics.
 */

/** Real paths of the folders that exist (a root that is itself a link counts as its target). */
export function realRoots(roots: readonly string[]): string[] {
  const out = new Set<string>();
  for (const root of roots) {
    if (root.trim() === '') continue;
    try {
      out.add(fs.realpathSync.native(root));
    } catch {
      // A folder that does not exist holds nothing to serve.
    }
  }
  return [...out];
}

/** Is a real path one of the real roots or below one? */
export function isWithin(realFile: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = path.relative(root, realFile);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
  });
}

/**
 * The real path of `file` when it lies inside one of `roots`, else null (also when it does not
 * exist). Every reader of a library file opens what this returns, never the stored path, so a file
 * swapped for a link to somewhere else after the scan is refused.
 */
export function realPathWithin(file: string, roots: readonly string[]): string | null {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return null;
  }
  return isWithin(real, realRoots(roots)) ? real : null;
}

export const OUTSIDE_ROOTS = 'symbolic link to a place outside the music folders';

/** Opening a real path without following a final link (where the platform can): a swap after the check is not followed. */
export const READ_NO_LINK = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);
