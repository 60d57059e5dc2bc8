import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  if (current !== expected) {
    const fresh = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-wire-')), 'wire.gen.ts');
    fs.writeFileSync(fresh, expected);
    expect.fail(`renderer/src/wire.gen.ts is stale (what the routes say now: ${fresh}): run npm run api-types`);
  }
}, 60_000);
