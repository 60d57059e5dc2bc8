import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithin, realPathWithin } from './libraryRoots.js';

let dir: string;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-roots-')));
  fs.mkdirSync(path.join(dir, 'music', '..dots'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'music2'));
  fs.writeFileSync(path.join(dir, 'music', '..dots', 'a.mp3'), 'a');
  fs.writeFileSync(path.join(dir, 'music2', 'b.mp3'), 'b');
  fs.symlinkSync(path.join(dir, 'music2', 'b.mp3'), path.join(dir, 'music', 'sibling.mp3'));
  fs.symlinkSync(path.join(dir, 'music'), path.join(dir, 'linked-root'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('library roots', () => {
  it('counts a path as inside only below a root, not beside one with a longer name', () => {
    const root = path.join(dir, 'music');
    expect(isWithin(path.join(root, '..dots', 'a.mp3'), [root])).toBe(true);
    expect(isWithin(root, [root])).toBe(true);
    expect(isWithin(path.join(dir, 'music2', 'b.mp3'), [root])).toBe(false);
    expect(isWithin(dir, [root])).toBe(false);
  });

  it('resolves links in the file and in the roots before deciding', () => {
    const link = path.join(dir, 'music', 'sibling.mp3');
    expect(realPathWithin(link, [path.join(dir, 'music')])).toBeNull();
    expect(realPathWithin(link, [path.join(dir, 'music'), path.join(dir, 'music2')])).toBe(path.join(dir, 'music2', 'b.mp3'));
    expect(realPathWithin(path.join(dir, 'music', '..dots', 'a.mp3'), [path.join(dir, 'linked-root')])).toBe(path.join(dir, 'music', '..dots', 'a.mp3'));
    expect(realPathWithin(path.join(dir, 'music', 'gone.mp3'), [path.join(dir, 'music')])).toBeNull();
  });
});
