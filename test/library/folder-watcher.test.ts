import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../server/library/folderWatcher.js';

let dir: string;
let watcher: FolderWatcher | null = null;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-folderwatch-'));
});
afterEach(() => {
  watcher?.close();
  watcher = null;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A watcher on `root` that records what it reports. */
function watching(root: string) {
  const files: string[] = [];
  const folders: string[] = [];
  const errors: Error[] = [];
  watcher = new FolderWatcher([root], { file: (f) => files.push(f), folder: (d) => folders.push(d), error: (e) => errors.push(e) });
  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out; files ${JSON.stringify(files)}, folders ${JSON.stringify(folders)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { watcher, files, folders, errors, until };
}

describe('folder watcher', () => {
  it('watches every folder (not the files, not dot folders) and reports writes to files in them', async () => {
    const root = path.join(dir, 'tree');
    fs.mkdirSync(path.join(root, 'A', 'One'), { recursive: true });
    fs.mkdirSync(path.join(root, 'B'), { recursive: true });
    fs.mkdirSync(path.join(root, '.hidden', 'inner'), { recursive: true });
    fs.writeFileSync(path.join(root, 'A', 'One', 'a.mp3'), 'x');
    const w = watching(root);
    await w.watcher.ready;
    expect(w.watcher.watched().sort()).toEqual([root, path.join(root, 'A'), path.join(root, 'A', 'One'), path.join(root, 'B')].sort());
    expect(w.files).toEqual([]);
    expect(w.folders).toEqual([]);

    fs.writeFileSync(path.join(root, 'A', 'One', 'a.mp3'), 'changed');
    fs.writeFileSync(path.join(root, 'B', 'b.flac'), 'new');
    fs.writeFileSync(path.join(root, '.hidden', 'inner', 'c.mp3'), 'unseen');
    await w.until(() => w.files.includes(path.join(root, 'A', 'One', 'a.mp3')) && w.files.includes(path.join(root, 'B', 'b.flac')));
    expect(w.files.filter((f) => f.includes('.hidden'))).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  it('a new folder is reported and watched, with what is written into it next; a removed folder is reported and its watches end', async () => {
    const root = path.join(dir, 'grow');
    fs.mkdirSync(root);
    const w = watching(root);
    await w.watcher.ready;
    const album = path.join(root, 'Artist', 'Album');
    fs.mkdirSync(album, { recursive: true });
    await w.until(() => w.folders.includes(path.join(root, 'Artist')) && w.watcher.watched().includes(album));
    fs.writeFileSync(path.join(album, 'new.mp3'), 'x');
    await w.until(() => w.files.includes(path.join(album, 'new.mp3')));

    fs.rmSync(path.join(root, 'Artist'), { recursive: true });
    await w.until(() => w.folders.filter((f) => f === path.join(root, 'Artist')).length === 2);
    expect(w.watcher.watched()).toEqual([root]);
    expect(w.files).toContain(path.join(album, 'new.mp3'));
  });

  it('a folder removed and made again under the same name is watched again', async () => {
    const root = path.join(dir, 'remade');
    const album = path.join(root, 'Album');
    fs.mkdirSync(album, { recursive: true });
    const w = watching(root);
    await w.watcher.ready;
    fs.rmSync(album, { recursive: true });
    fs.mkdirSync(album);
    await w.until(() => w.folders.includes(album) && w.watcher.watched().includes(album));
    fs.writeFileSync(path.join(album, 'again.mp3'), 'x');
    await w.until(() => w.files.includes(path.join(album, 'again.mp3')));
  });

  it('follows a link to a folder once: a link back into the tree ends', async () => {
    const root = path.join(dir, 'links');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(root, 'Album'), { recursive: true });
    fs.mkdirSync(outside, { recursive: true });
    fs.symlinkSync(root, path.join(root, 'Album', 'loop'));
    fs.symlinkSync(outside, path.join(root, 'linked'));
    const w = watching(root);
    await w.watcher.ready;
    expect(w.watcher.watched().sort()).toEqual([root, path.join(root, 'Album'), path.join(root, 'linked')].sort());
    fs.writeFileSync(path.join(outside, 'song.mp3'), 'x');
    await w.until(() => w.files.includes(path.join(root, 'linked', 'song.mp3')));
  });

  it('closing ends every watch', async () => {
    const root = path.join(dir, 'closing');
    fs.mkdirSync(path.join(root, 'A'), { recursive: true });
    const closed = watching(root);
    await closed.watcher.ready;
    closed.watcher.close();
    expect(closed.watcher.watched()).toEqual([]);
    // A second watcher sees the write; by then the first would have too.
    const open = watching(root);
    await open.watcher.ready;
    fs.writeFileSync(path.join(root, 'A', 'late.mp3'), 'x');
    await open.until(() => open.files.includes(path.join(root, 'A', 'late.mp3')));
    expect(closed.files).toEqual([]);
  });
});
