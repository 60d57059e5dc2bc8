import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzApi, fuzzDestructive, fuzzRest, setUp, tearDown } from './fuzz.js';

// The fuzz tests are split over two files so both vitest workers run them; see fuzz.ts.
beforeAll(setUp, 120_000);
afterAll(tearDown);

describe('fuzzing every operation', () => {
  it('no /api operation answers 5xx or drops the connection (second half of the operations)', () => fuzzApi(1), 120_000);

  it('no /rest method answers 5xx, drops the connection or hides a crash behind error 0', fuzzRest, 120_000);

  it('destructive operations, fuzzed last, one at a time, with the admin restored after each', fuzzDestructive, 120_000);
});
