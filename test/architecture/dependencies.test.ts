import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layering check of `npm test` (scripts/test.mjs, stage "architecture": dependency-cruiser with
 * .dependency-cruiser.cjs). Each case lays out a small tree that breaks one rule and runs the check
 * exactly as the stage does: it must fail and name the rule. The cases' checks are started together
 * when the file loads (each is a separate dependency-cruiser process of a few seconds) and each test
 * awaits its own.
 */

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = path.join(root, '.dependency-cruiser.cjs');
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function check(files: Record<string, string>): Promise<{ status: number | null; out: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-layers-'));
  dirs.push(dir);
  fs.copyFileSync(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const tops = [...new Set(Object.keys(files).map((f) => f.split('/')[0]!))];
  const child = spawn(process.execPath, [bin, ...tops, '--config', config, '--output-type', 'err-long'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out: `${stdout}${stderr}` }));
  });
}

const keepsTheRules = check({
  'server/db/repo.ts': "export const rows = () => [1];\n",
  'server/domain/area/service.ts': "import { rows } from '../../db/repo.js';\nexport const count = () => rows().length;\n",
  'server/api/area/routes.ts': "import { count } from '../../domain/area/service.js';\nexport const handler = () => count();\n",
});
const dbImportsDomain = check({
  'server/domain/playlists/registry.ts': "export type PlaylistKind = 'static' | 'flow';\n",
  'server/db/artwork.ts': "import type { PlaylistKind } from '../domain/playlists/registry.js';\nexport const kinds: PlaylistKind[] = [];\n",
});
const otherWalls = check({
  'server/integrations/svc/client.ts': "import { rule } from '../../domain/area/rules.js';\nexport const call = () => rule;\n",
  'server/domain/area/rules.ts': "import { shape } from '../../api/area/schemas.js';\nexport const rule = shape;\n",
  'server/api/area/schemas.ts': "export const shape = 1;\n",
  'server/api/area/routes.ts': "import { call } from '../../integrations/svc/client.js';\nexport const handler = call;\n",
  'main/lan.ts': "import { rule } from '../server/domain/area/rules.js';\nexport const lan = rule;\n",
});
const typeOnlyCycle = check({
  'server/domain/area/service.ts': "import { helper } from './helper.js';\nexport interface Options { n: number }\nexport const run = () => helper({ n: 1 });\n",
  'server/domain/area/helper.ts': "import type { Options } from './service.js';\nexport const helper = (o: Options) => o.n;\n",
});
// A check whose test is not reached (a filtered run) still settles without an unhandled rejection.
for (const p of [keepsTheRules, dbImportsDomain, otherWalls, typeOnlyCycle]) p.catch(() => undefined);

describe('the layering check', () => {
  it('passes a tree that keeps the rules', async () => {
    const r = await keepsTheRules;
    expect(r.out).toContain('no dependency violations');
    expect(r.status).toBe(0);
  });

  it('reports a deliberate db → domain import, naming the rule', async () => {
    const r = await dbImportsDomain;
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('error db-imports-nothing-of-the-product: server/db/artwork.ts → server/domain/playlists/registry.ts');
    expect(r.out).toContain('it imports nothing of the product above it');
  });

  it('reports the other walls: domain → api, api → integrations, integrations → domain, main → server', async () => {
    const r = await otherWalls;
    expect(r.status).not.toBe(0);
    for (const rule of ['integrations-import-nothing-of-the-product', 'domain-never-imports-routes', 'routes-never-import-integrations', 'main-never-imports-server'])
      expect(r.out).toContain(`error ${rule}:`);
  });

  it('reports SQL outside server/db/ (scripts/check-sql.mjs), naming the rule and the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-sql-'));
    dirs.push(dir);
    const files: Record<string, string> = {
      'server/db/repo.ts': "export const one = (db: any) => db.prepare('SELECT 1').get();\n",
      'server/domain/area/rules.ts': "export const two = (ctx: any) =>\n  ctx.db\n    .prepare('SELECT 2')\n    .get();\n",
      'server/domain/area/cached.ts': "import { statement } from '../../db/statements.js';\nexport const three = (ctx: any) => statement(\n  ctx.db,\n  'SELECT 3',\n).get();\n",
      // Any connection, whatever its name; and no file is exempt (these two were on an allow list once).
      'server/domain/area/conn.ts': "import { statement } from '../../db/statements.js';\nexport const four = (conn: any) => statement(conn, 'SELECT 4').get();\n",
      'server/domain/health.ts': "export const v = (ctx: any) => ctx.db.prepare('SELECT sqlite_version()').get();\n",
      'server/domain/imports/matching.ts': "export const m = (db: any) => db.prepare('SELECT 5').pluck();\n",
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/check-sql.mjs'), dir], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error sql-only-in-db: server/domain/area/rules.ts:3');
    expect(r.stderr).toContain('error sql-only-in-db: server/domain/area/cached.ts:2');
    expect(r.stderr).toContain('error sql-only-in-db: server/domain/area/conn.ts:2');
    expect(r.stderr).toContain('error sql-only-in-db: server/domain/health.ts:1');
    expect(r.stderr).toContain('error sql-only-in-db: server/domain/imports/matching.ts:1');
    expect(r.stderr).not.toContain('server/db/repo.ts');
    fs.rmSync(path.join(dir, 'server/domain'), { recursive: true });
    expect(spawnSync(process.execPath, [path.join(root, 'scripts/check-sql.mjs'), dir], { encoding: 'utf8' }).status).toBe(0);
  });

  it('reports an import cycle even when one side imports only a type', async () => {
    const r = await typeOnlyCycle;
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('error no-import-cycles: server/domain/area/');
  });
});
