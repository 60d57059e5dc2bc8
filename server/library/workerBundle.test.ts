import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareWorkerBundles, workerBundle, workerBundleDir } from './workerBundle.js';

/** A project of its own: a worker entry importing a sibling module, both reporting their import.meta.url. */
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-worker-bundle-'));
fs.writeFileSync(path.join(project, 'package.json'), '{"type":"module"}');
fs.mkdirSync(path.join(project, 'src'));
const entry = path.join(project, 'src', 'echoWorker.ts');
const sibling = path.join(project, 'src', 'sibling.ts');
fs.writeFileSync(sibling, "export const where: string = import.meta.url;\nexport const answer = (n: number): number => n + 1;\n");
fs.writeFileSync(
  entry,
  [
    "import { parentPort } from 'node:worker_threads';",
    "import { answer, where } from './sibling.js';",
    'const here: string = import.meta.url;',
    'parentPort!.postMessage({ here, where, answer: answer(41) });',
  ].join('\n'),
);

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

function run(file: string): Promise<{ here: string; where: string; answer: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(file);
    w.once('message', (m) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

describe('worker bundles (workers run from the TypeScript sources)', () => {
  it('bundles an entry once, runs it without a loader, and keeps each module\'s own import.meta.url', async () => {
    expect(workerBundle(entry)).toBeNull(); // none yet: one is made in the background
    await prepareWorkerBundles([entry]);
    const bundle = workerBundle(entry);
    expect(bundle).not.toBeNull();
    expect(path.dirname(bundle!)).toBe(workerBundleDir(project));
    expect(await run(bundle!)).toEqual({ here: pathToFileURL(entry).href, where: pathToFileURL(sibling).href, answer: 42 });
    // Current: asked again, the same file, not made again.
    const mtime = fs.statSync(bundle!).mtimeMs;
    await prepareWorkerBundles([entry]);
    expect(workerBundle(entry)).toBe(bundle);
    expect(fs.statSync(bundle!).mtimeMs).toBe(mtime);
  });

  it('makes a new bundle when a source it was made of changes', async () => {
    await prepareWorkerBundles([entry]);
    const before = workerBundle(entry)!;
    fs.writeFileSync(sibling, "export const where: string = import.meta.url;\nexport const answer = (n: number): number => n + 2;\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(sibling, later, later);
    expect(workerBundle(entry)).toBeNull();
    await prepareWorkerBundles([entry]);
    const after = workerBundle(entry)!;
    expect(after).not.toBe(before);
    expect((await run(after)).answer).toBe(43);
    // The earlier bundle stays for a server that may still be starting workers from it.
    expect(fs.existsSync(before)).toBe(true);
  });

  it('makes a new bundle when a module that contributed no code changes (its exports were unused)', async () => {
    const unused = path.join(project, 'src', 'unused.ts');
    const lazy = path.join(project, 'src', 'lazyWorker.ts');
    const mid = path.join(project, 'src', 'mid.ts');
    fs.writeFileSync(unused, 'export const never = 1;\n');
    fs.writeFileSync(mid, "import { never } from './unused.js';\nexport const used = 1;\nexport const unusedHere = () => never;\n");
    fs.writeFileSync(lazy, "import { parentPort } from 'node:worker_threads';\nimport { used } from './mid.js';\nparentPort!.postMessage(used);\n");
    await prepareWorkerBundles([lazy]);
    const before = workerBundle(lazy)!;
    expect(before).not.toBeNull();
    fs.writeFileSync(unused, "import 'node:zlib';\nexport const never = 2;\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(unused, later, later);
    expect(workerBundle(lazy)).toBeNull();
  });

  it('leaves an entry that does not build to the caller (no bundle, no throw)', async () => {
    const broken = path.join(project, 'src', 'brokenWorker.ts');
    fs.writeFileSync(broken, "import { nothing } from './missing.js';\nconsole.log(nothing);\n");
    await expect(prepareWorkerBundles([broken])).resolves.toBeUndefined();
    expect(workerBundle(broken)).toBeNull();
    await prepareWorkerBundles([broken]);
  });
});

describe('what the module workers load', () => {
  it('keeps the image library and the web framework out of every worker (a thread loads what it imports)', async () => {
    const { MODULE_WORKERS } = await import('./runWorker.js');
    const here = path.dirname(new URL(import.meta.url).pathname);
    const entries = MODULE_WORKERS.map((name) => path.join(here, `${name}.ts`));
    await prepareWorkerBundles(entries);
    for (const entry of entries) {
      const bundle = workerBundle(entry);
      expect(bundle, entry).not.toBeNull();
      const packages = [...fs.readFileSync(bundle!, 'utf8').matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
      expect(packages.filter((p) => /^(sharp|express|ws)$/.test(p)), entry).toEqual([]);
    }
  });
});
