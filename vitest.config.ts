import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/helpers/sequencer.js';

/**
 * Two projects on one pool of two workers:
 * - `node`: every plain Node test. Files share a worker process one after another (isolate off), so
 *   the server's module graph is loaded once per worker instead of once per file, which was most of
 *   the suite's time. A file must therefore leave no global state behind (put back what it replaces).
 * - `dom`: the screen tests of test/renderer, which install a happy-dom window as the page's globals
 *   (test/renderer/dom.ts), in workers of their own so those globals never reach a Node test. Files
 *   share a worker too (installed packages load once per worker, 44 -> 24 s of CPU for the 16 files),
 *   but each starts from fresh modules (test/renderer/freshModules.ts): a new page, and no store or
 *   player state of an earlier file.
 */
const RENDERER_TESTS = fs
  .readdirSync(path.join(import.meta.dirname, 'test/renderer'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/renderer/${f.split(path.sep).join('/')}`);
/**
 * The screen tests: the renderer tests that install the page (they import test/renderer/dom.ts).
 * The others there (a screen's pure logic, or a server's answers) are plain Node tests and share the
 * `node` workers instead of paying for a fresh process each.
 */
const SCREEN_TESTS = RENDERER_TESTS.filter((f) => /['"](\.\.?\/)+(renderer\/)?dom\.js['"]/.test(fs.readFileSync(path.join(import.meta.dirname, f), 'utf8')));

const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['server/**/*.test.ts', 'main/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'node_modules/**', ...SCREEN_TESTS],
          isolate: false,
          ...shared,
        },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          include: SCREEN_TESTS,
          isolate: false,
          setupFiles: ['test/renderer/freshModules.ts'],
          ...shared,
        },
      },
    ],
  },
});
