import fs from 'node:fs';
import path from 'node:path';
import { FOLDER_IMAGE, isAudioFile } from './audioFormats.js';
import { OUTSIDE_ROOTS, isWithin } from './libraryRoots.js';

export interface WalkedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface WalkedDirectory {
  dir: string;
  files: WalkedFile[];
  folderImage: string | null;
}

export interface WalkProblem {
  path: string;
  reason: string;
}

/**
 * Recursive walk of one music folder, a directory at a time. Follows symbolic links whose real target
 * lies inside `allowed` (real paths of the music folders and the downloads root) and reports the
 * others; visits each real directory once (so loops end), skips dotfiles, and reports unreadable
 * folders, names that are not valid UTF-8 and over-long paths as problems instead of failing.
 *
 * Each folder is listed and its entries stat'ed synchronously: the walk runs on the scan worker's
 * own thread, where an asynchronous call's request, promise and thread-pool hand-off cost several
 * times a small file system call (issue 25's scan profile). The consumer yields to its event loop
 * between batches (scanner.ts), so the thread still takes messages.
 */
export async function* walkMusicFolder(
  root: string,
  allowed: readonly string[],
  onProblem: (problem: WalkProblem) => void,
): AsyncGenerator<WalkedDirectory> {
  const visited = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let real: string;
    let entries: import('node:fs').Dirent<Buffer>[];
    try {
      real = fs.realpathSync.native(dir);
      if (visited.has(real)) continue;
      visited.add(real);
      if (!isWithin(real, allowed)) {
        onProblem({ path: dir, reason: OUTSIDE_ROOTS });
        continue;
      }
      entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      onProblem({ path: dir, reason: describe(err) });
      continue;
    }
    const files: WalkedFile[] = [];
    let folderImage: string | null = null;
    const subdirs: string[] = [];
    const candidates: { full: string; link: boolean }[] = [];
    for (const entry of entries) {
      const raw = entry.name;
      const name = raw.toString('utf8');
      if (!Buffer.from(name, 'utf8').equals(raw)) {
        onProblem({ path: path.join(dir, name), reason: 'file name is not valid UTF-8' });
        continue;
      }
      if (name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (entry.isDirectory()) subdirs.push(full);
      else if (entry.isFile() || entry.isSymbolicLink()) candidates.push({ full, link: entry.isSymbolicLink() });
    }
    const stats = candidates.map(({ full, link }) => {
      try {
        const stat = fs.statSync(full);
        // A plain file's real path is its folder's; a link's target is checked (folders are, when visited).
        if (link && !stat.isDirectory() && !isWithin(fs.realpathSync.native(full), allowed)) {
          if (isAudioFile(full)) onProblem({ path: full, reason: OUTSIDE_ROOTS });
          return null;
        }
        return { full, stat };
      } catch (err) {
        // A dangling link or an over-long path: reported, never fatal.
        onProblem({ path: full, reason: describe(err) });
        return null;
      }
    });
    for (const item of stats) {
      if (!item) continue;
      const base = path.basename(item.full);
      if (item.stat.isDirectory()) subdirs.push(item.full);
      else if (!item.stat.isFile()) continue;
      else if (isAudioFile(base)) files.push({ path: item.full, size: item.stat.size, mtimeMs: Math.round(item.stat.mtimeMs) });
      else if (folderImage === null && FOLDER_IMAGE.test(base)) folderImage = item.full;
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    subdirs.sort().reverse();
    stack.push(...subdirs);
    if (files.length > 0) yield { dir, files, folderImage };
  }
}

function describe(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENAMETOOLONG') return 'path too long';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'ENOENT') return 'not found';
  return err instanceof Error ? err.message : String(err);
}
