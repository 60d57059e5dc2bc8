import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotFoundError, ValidationError } from '../errors.js';

export interface DirectoryEntry {
  name: string;
  path: string;
  writable: boolean;
}

async function isWritable(p: string): Promise<boolean> {
  try {
    await fs.promises.access(p, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function describe(err: unknown, p: string): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') throw new NotFoundError('Folder not found', `Folder does not exist: ${p}`);
  if (code === 'ENOTDIR') throw new ValidationError(`Not a folder: ${p}`, 'NOT_A_DIRECTORY');
  if (code === 'EACCES' || code === 'EPERM') throw new ValidationError(`Permission denied: ${p}`, 'PERMISSION_DENIED');
  throw err;
}

function requireAbsolute(p: string): string {
  if (!path.isAbsolute(p)) throw new ValidationError('Path must be absolute', 'INVALID_PATH');
  return path.resolve(p);
}

/** Windows drive roots that exist, for the top of the browser. */
function windowsRoots(): string[] {
  const roots: string[] = [];
  for (let c = 67; c <= 90; c++) {
    const root = `${String.fromCharCode(c)}:\\`;
    if (fs.existsSync(root)) roots.push(root);
  }
  return roots;
}

/** Lists the sub-folders of a folder (files are never listed). */
export async function browseDirectories(requested: string | undefined, showHidden = false) {
  const dir = requireAbsolute(requested && requested.trim() ? requested : os.homedir());
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (err) {
    describe(err, dir);
  }
  const directories: DirectoryEntry[] = [];
  for (const e of entries) {
    if (!showHidden && e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) isDir = await fs.promises.stat(full).then((s) => s.isDirectory(), () => false);
    if (isDir) directories.push({ name: e.name, path: full, writable: await isWritable(full) });
  }
  directories.sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }));
  const parent = path.dirname(dir);
  return {
    path: dir,
    parent: parent === dir ? null : parent,
    writable: await isWritable(dir),
    directories,
    roots: process.platform === 'win32' ? windowsRoots() : ['/'],
    home: os.homedir(),
  };
}

/** Creates a folder (with parents) or checks an existing one, and reports whether we can write there. */
export async function ensureDirectory(requested: string, create: boolean) {
  const dir = requireAbsolute(requested);
  let existed = true;
  try {
    const stat = await fs.promises.stat(dir);
    if (!stat.isDirectory()) throw new ValidationError(`Not a folder: ${dir}`, 'NOT_A_DIRECTORY');
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') describe(err, dir);
    existed = false;
    if (!create) throw new NotFoundError('Folder not found', `Folder does not exist: ${dir}`);
    try {
      await fs.promises.mkdir(dir, { recursive: true });
    } catch (mkErr) {
      describe(mkErr, dir);
    }
  }
  return { path: dir, exists: true, created: !existed, writable: await isWritable(dir) };
}
