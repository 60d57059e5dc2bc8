import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Worker threads of a server run from its TypeScript sources (npm start, the tests, the benchmarks).
 * Loader flags do not reach worker threads, so such a worker would register tsx itself: a loader
 * thread of its own (a second V8 instance, about 25 MB) and every module resolved and compiled
 * through it, about 350 ms before a scan could start (issue 25). Instead the worker's entry is
 * bundled once with esbuild (tsx's own compiler) into one plain module under node_modules/.cache,
 * and started from there: about 150 ms, no loader thread. A built server (dist/, the desktop app)
 * has its compiled `.js` files and never comes here.
 *
 * A bundle is named by the stamp (path, size, mtime) of every source file it was made of, so an edited
 * source makes a new bundle on the next start, and processes running side by side (the tests) never
 * read a half-written or mismatched one: each file is written under a temporary name and renamed.
 * Packages stay outside the bundle (imported from node_modules as usual); `import.meta.url` keeps
 * naming each source file, so paths found from it (migrations, sibling workers) stay where they were.
 */

/** Where bundles live: resolvable packages need a folder inside the project. */
export function workerBundleDir(projectRoot: string): string {
  return path.join(projectRoot, 'node_modules', '.cache', 'tonearm-workers');
}

type Esbuild = typeof import('esbuild');
let esbuild: Esbuild | null | undefined;

/** esbuild is a development dependency, present wherever the TypeScript sources run. */
function loadEsbuild(): Esbuild | null {
  if (esbuild === undefined) {
    try {
      esbuild = createRequire(import.meta.url)('esbuild') as Esbuild;
    } catch {
      esbuild = null;
    }
  }
  return esbuild;
}

/** The project folder above a source file: the nearest one with a package.json. */
function projectRootOf(file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** A stamp of the files a bundle is made of; null when one of them is gone. */
function stampOf(files: readonly string[]): string | null {
  const hash = createHash('sha1');
  for (const file of files) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return null;
    }
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

function writeAtomically(file: string, contents: string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

/** What a bundle's stamp is made of: its source files. */
interface BundleInputs {
  files: string[];
}

function bundlePaths(entry: string) {
  const root = projectRootOf(entry);
  if (!root) return null;
  const dir = workerBundleDir(root);
  const name = path.basename(entry, '.ts');
  return { root, dir, name, inputsFile: path.join(dir, `${name}.inputs.json`), bundleFor: (stamp: string) => path.join(dir, `${name}-${stamp}.mjs`) };
}

/** The bundle made of the entry's current sources, or null when there is none (yet). */
function currentBundle(entry: string): string | null {
  const at = bundlePaths(entry);
  if (!at) return null;
  try {
    const known = JSON.parse(fs.readFileSync(at.inputsFile, 'utf8')) as BundleInputs;
    const stamp = stampOf(known.files);
    return stamp && known.files.includes(entry) && fs.existsSync(at.bundleFor(stamp)) ? at.bundleFor(stamp) : null;
  } catch {
    return null; // No bundle yet, or its record is unreadable.
  }
}

/**
 * The bundled module for the worker entry `entry` (a `.ts` file), or null when there is none made
 * of its current sources; then one is made in the background (for the next start of this worker),
 * and the caller starts the entry under tsx this time.
 */
export function workerBundle(entry: string): string | null {
  const bundle = currentBundle(entry);
  if (!bundle) void prepareWorkerBundles([entry]);
  return bundle;
}

/** Builds under way, by entry. */
const building = new Map<string, Promise<void>>();
let buildsRunning = 0;

/**
 * Makes the bundles of these worker entries whose sources changed since their last bundle (one
 * esbuild run for all of them; a current bundle costs only a stat of each of its sources). The
 * server calls it when it starts from its sources, so that its workers' first starts find them.
 * Never fails: a worker without a bundle runs under tsx.
 */
export async function prepareWorkerBundles(entries: readonly string[]): Promise<void> {
  const stale = entries.filter((entry) => !building.has(entry) && bundlePaths(entry) && !currentBundle(entry));
  if (stale.length > 0) {
    buildsRunning++;
    const run: Promise<void> = buildBundles(stale)
      .catch(() => undefined)
      .finally(() => {
        for (const entry of stale) if (building.get(entry) === run) building.delete(entry);
        // esbuild's service process would otherwise stay for the life of the server.
        if (--buildsRunning === 0) loadEsbuild()?.stop();
      });
    for (const entry of stale) building.set(entry, run);
  }
  await Promise.all(entries.map((entry) => building.get(entry)));
}

async function buildBundles(entries: string[]): Promise<void> {
  const build = loadEsbuild();
  const at = entries.map(bundlePaths);
  if (!build || at.some((a) => !a) || new Set(at.map((a) => a!.root)).size !== 1) return;
  const { root, dir } = at[0]!;
  const result = await build.build({
    entryPoints: Object.fromEntries(at.map((a, i) => [a!.name, entries[i]!])),
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    plugins: [keepImportMetaUrl],
  });
  fs.mkdirSync(dir, { recursive: true });
  for (const [i, a] of at.entries()) {
    const code = result.outputFiles!.find((f) => f.path === path.join(dir, `${a!.name}.mjs`))?.text;
    if (code === undefined) continue;
    const files = sourcesOf(result.metafile!, path.relative(root, entries[i]!)).map((f) => path.resolve(root, f));
    const stamp = stampOf(files);
    if (!stamp) continue;
    const bundle = a!.bundleFor(stamp);
    writeAtomically(bundle, code);
    writeAtomically(a!.inputsFile, JSON.stringify({ files } satisfies BundleInputs));
    removeOlderBundles(dir, a!.name, bundle);
  }
}

/**
 * Every source file the entry imports, directly or not. Not the output's own list: esbuild leaves
 * out a module that contributes no code (all its exports unused), and a later edit of it (an import
 * of a package with effects) must make a new bundle too.
 */
function sourcesOf(metafile: import('esbuild').Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const stack = [entry.split(path.sep).join('/')];
  while (stack.length > 0) {
    const file = stack.pop()!;
    const input = metafile.inputs[file];
    if (!input || seen.has(file)) continue;
    seen.add(file);
    for (const imported of input.imports) if (!imported.external) stack.push(imported.path);
  }
  return [...seen];
}

/** Bundles of this worker from earlier sources: a running server may still use one, so only old ones go. */
function removeOlderBundles(dir: string, name: string, keep: string): void {
  const hour = 3600_000;
  for (const file of fs.readdirSync(dir)) {
    const full = path.join(dir, file);
    if (full === keep || !file.startsWith(`${name}-`) || !/\.(mjs|tmp)$/.test(file)) continue;
    try {
      if (Date.now() - fs.statSync(full).mtimeMs > hour) fs.rmSync(full, { force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

/**
 * Each source file's `import.meta.url` stays its own address (in a bundle it would be the bundle's),
 * so a module finds the files beside it as it does when run from its source.
 */
const keepImportMetaUrl: import('esbuild').Plugin = {
  name: 'keep-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};
