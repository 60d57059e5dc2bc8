import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/helpers/sequencer.js';

/**
 * Two projects on one pool of two workers:
 * - `node`: every plain Node test. Files share a worker process one after another (isolate off), so
 *   the server's module graph is loaded once per worker instead of once per file, which was most of
 *   the suite's time. A file must therefore leave no global state behind (put back what it replaces).
 * - `dom`: test/renderer, whose screen tests install a happy-dom window as the page's globals
 *   (test/renderer/dom.ts); each file gets a fresh process so those globals never reach a Node test.
 */
const SCREEN_TESTS = ['test/renderer/**/*.test.ts'];

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
          isolate: true,
          ...shared,
        },
      },
    ],
  },
});
