import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzApi, setUp, tearDown } from './fuzz.js';

// The fuzz tests are split over two files so both vitest workers run them; see fuzz.ts.
beforeAll(setUp, 120_000);
afterAll(tearDown);

describe('fuzzing every operation', () => {
  it('no /api operation answers 5xx or drops the connection (first half of the operations)', () => fuzzApi(0), 120_000);
});
