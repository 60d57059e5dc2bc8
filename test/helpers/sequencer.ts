import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long file took in a full run (2 workers, this repository's CI machine), longest first.
 * vitest runs the files it has timed before longest first, but a fresh clone has no timings and
 * would start by file size, leaving a minute-long file for the end while the other worker idles.
 * Files named here start first on a fresh clone, in this order; a rough figure is enough, and a file
 * missing from the list only starts later.
 */
export const LONG_FILES: Record<string, number> = {
  'test/library/scan-service.test.ts': 80,
  'test/api/lifecycle.test.ts': 33,
  'test/downloads/recovery.test.ts': 26,
  'test/rest/ids.test.ts': 25,
  'test/api/failed-logins.test.ts': 24,
  'test/api/auth.test.ts': 20,
  'test/api/http.test.ts': 20,
  'test/downloads/pipeline.test.ts': 20,
  'test/api/search.test.ts': 19,
  'test/library/idle-memory.test.ts': 17,
  'test/downloads/nzbget.test.ts': 16,
  'test/api/first-use.test.ts': 14,
  'test/api/oidc.test.ts': 14,
  'test/rest/stream.test.ts': 13,
  'test/api/users-settings.test.ts': 14,
  'test/api/fuzz.test.ts': 10,
  'test/api/fuzz-rest.test.ts': 10,
};

/** vitest's order (failed first, then by recorded duration, else by size); without recorded durations, LONG_FILES first. */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const recorded = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${path.relative(root, spec.moduleId)}`);
    // Only a run without recorded durations (a fresh clone) is reordered; otherwise vitest's own timings are newer.
    if (sorted.some((spec) => recorded(spec))) return sorted;
    const weight = (spec: TestSpecification) => LONG_FILES[path.relative(root, spec.moduleId).split(path.sep).join('/')] ?? 0;
    // Projects stay together (a worker that runs files without isolation is reused only for the next
    // file of its project); the one without isolation goes first, so its longest file starts at once
    // and the run ends on short files.
    const project = (spec: TestSpecification) => (spec.project.config.isolate ? 1 : 0);
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => project(a.spec) - project(b.spec) || weight(b.spec) - weight(a.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
