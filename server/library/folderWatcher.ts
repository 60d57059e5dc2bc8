import fs from 'node:fs';
import path from 'node:path';

export interface FolderWatcherEvents {
  /** Something happened to a file's entry in a watched folder (written, added, renamed, removed). */
  file(path: string): void;
  /** A folder appeared under a watched folder (it is watched from now on) or went away. */
  folder(path: string): void;
  error(err: Error): void;
}

/**
 * Watches music folders with one OS watch (fs.watch, inotify on Linux) per folder, not per file: a
 * folder's watch reports what happens to the files in it. The first walk lists each folder once
 * (readdir with file types, no stat per file) and keeps only the folder watches; chokidar's first
 * walk stat'ed every file and held its promises and paths at once (npm run bench:memory, 20,000
 * files: the main thread's heap at 127 MB during the walk, about 100 MB of resident memory at
 * start). Node 20's recursive fs.watch is no substitute on Linux: it polls every file with
 * fs.watchFile. Dot entries are skipped; links to folders are followed once per real folder.
 */
export class FolderWatcher {
  private readonly watches = new Map<string, fs.FSWatcher>();
  /** Real paths of the roots and of the linked folders followed, so a link loop ends. */
  private readonly realRoots: string[] = [];
  private closed = false;
  private failed = false;
  /** Resolves once every folder present at the start is watched. */
  readonly ready: Promise<void>;

  constructor(
    roots: readonly string[],
    private readonly on: FolderWatcherEvents,
  ) {
    for (const root of roots) {
      try {
        this.realRoots.push(fs.realpathSync.native(root));
      } catch {
        // a missing root is reported by the walk
      }
    }
    this.ready = (async () => {
      for (const root of roots) await this.addTree(root);
    })();
  }

  /** The folders holding an OS watch. */
  watched(): string[] {
    return [...this.watches.keys()];
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }

  /** Watches `top` and every folder under it, a folder listing at a time. */
  private async addTree(top: string): Promise<void> {
    const pending = [top];
    while (pending.length > 0 && !this.closed) {
      const dir = pending.pop()!;
      if (this.watches.has(dir)) continue;
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') this.fail(err);
        continue;
      }
      if (this.closed || !this.watch(dir)) return;
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory() || (entry.isSymbolicLink() && this.followLink(full))) pending.push(full);
      }
    }
  }

  /** A link is followed when it leads to a folder not already watched through a root or another link. */
  private followLink(link: string): boolean {
    try {
      if (!fs.statSync(link).isDirectory()) return false;
      const real = fs.realpathSync.native(link);
      if (this.realRoots.some((r) => real === r || real.startsWith(r + path.sep))) return false;
      this.realRoots.push(real);
      return true;
    } catch {
      return false;
    }
  }

  private watch(dir: string): boolean {
    try {
      const w = fs.watch(dir, { persistent: false }, (event, name) => this.event(dir, event, name));
      w.on('error', () => this.forget(dir));
      this.watches.set(dir, w);
      return true;
    } catch (err) {
      // ENOSPC: the system's limit of watches (fs.inotify.max_user_watches) is reached.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.fail(err);
      return code === 'ENOENT' || code === 'ENOTDIR';
    }
  }

  private event(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed || !this.watches.has(dir)) return;
    if (name === null) {
      this.on.folder(dir);
      return;
    }
    const base = String(name);
    if (base.startsWith('.')) return;
    const full = path.join(dir, base);
    if (this.watches.has(full)) {
      if (event !== 'rename') return;
      // A watched folder renamed away or removed: its watches end. One there again is another
      // folder (removed and made anew, or moved in): the old watch followed the old one.
      this.forget(full);
      if (this.isFolder(full)) {
        void this.addTree(full).then(() => {
          if (!this.closed) this.on.folder(full);
        });
      } else {
        this.on.folder(full);
      }
      return;
    }
    if (event === 'rename' && this.isFolder(full)) {
      // Watched before it is reported, so what is written into it next is seen.
      void this.addTree(full).then(() => {
        if (!this.closed) this.on.folder(full);
      });
      return;
    }
    this.on.file(full);
  }

  /** A new entry is a folder to watch: a folder, or a link followed (followLink). */
  private isFolder(p: string): boolean {
    try {
      const stats = fs.lstatSync(p);
      return stats.isDirectory() || (stats.isSymbolicLink() && this.followLink(p));
    } catch {
      return false;
    }
  }

  /** Ends the watches of `dir` and of every folder under it. */
  private forget(dir: string): void {
    const inside = dir + path.sep;
    for (const [d, w] of this.watches) {
      if (d === dir || d.startsWith(inside)) {
        w.close();
        this.watches.delete(d);
      }
    }
  }

  private fail(err: unknown): void {
    // Reported once: past the watch limit every further folder fails alike.
    if (this.failed) return;
    this.failed = true;
    this.on.error(err instanceof Error ? err : new Error(String(err)));
  }
}
