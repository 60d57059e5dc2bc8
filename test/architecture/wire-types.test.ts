import fs from 'node:fs';
import { expect, it } from 'vitest';
import { WIRE_TYPES, openApiDocument, wireTypes } from '../../scripts/api-types.js';

/**
 * The renderer's wire types (renderer/src/wire.gen.ts) are what the routes' schemas say today: a
 * changed answer fails here until `npm run api-types` regenerates them, and then fails the UI's
 * typecheck wherever a screen read the old shape.
 */
it('renderer/src/wire.gen.ts is generated from the current routes (run `npm run api-types` when this fails)', async () => {
  const expected = await wireTypes(await openApiDocument());
  const current = fs.readFileSync(WIRE_TYPES, 'utf8');
  expect(current === expected, 'renderer/src/wire.gen.ts is stale: run npm run api-types').toBe(true);
}, 60_000);
