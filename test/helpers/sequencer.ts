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
  'test/api/fuzz-rest.test.ts': 65,
  'test/jobs/kill-recovery.test.ts': 38,
  'test/api/fuzz.test.ts': 36,
  'test/api/cross-user.test.ts': 25,
  'test/downloads/recovery.test.ts': 24,
  'test/downloads/pipeline.test.ts': 22,
  'test/api/search.test.ts': 20,
  'test/library/replaygain.test.ts': 19,
  'test/downloads/identity.test.ts': 17,
  'test/library/replaygain-kill.test.ts': 16,
  'test/rest/library.test.ts': 16,
  'test/api/lifecycle.test.ts': 15,
  'test/api/auth.test.ts': 13,
  'test/api/http.test.ts': 12,
  'test/library/scan-service.test.ts': 12,
  'test/rest/ids.test.ts': 11,
  'test/api/failed-logins.test.ts': 11,
  'test/library/idle-memory.test.ts': 10,
  'test/downloads/nzbget.test.ts': 10,
  'test/api/first-use.test.ts': 10,
  'test/api/oidc.test.ts': 10,
  'test/rest/stream.test.ts': 10,
  'test/api/users-settings.test.ts': 10,
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
    // file of its project); `node` goes first, so its longest file starts at once, and the run ends
    // on the short screen tests of `dom`.
    const project = (spec: TestSpecification) => (spec.project.name === 'node' ? 0 : 1);
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => project(a.spec) - project(b.spec) || weight(b.spec) - weight(a.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
