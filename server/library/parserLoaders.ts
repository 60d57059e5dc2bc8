/**
 * music-metadata picks a parser for every file and loads it with a dynamic `import()` each time.
 * Under a module loader hook (tsx, which runs `npm start`, the scan worker and the tag thread), every
 * `import()` is resolved on the loader's hooks thread: a cross-thread round trip per file that cost
 * more than parsing a small MP3 (issue 25's scan profile). The loaders are module singletons, shared
 * by every ParserFactory; here each one's `load()` is memoized once per thread, so a parser module is
 * imported once and its class reused. Same parser, same results; only the repeated import goes.
 *
 * Best effort: where the package's files cannot be reached (another layout, a bundler), parsing
 * works as before, only slower.
 */
interface ParserLoader {
  load(): Promise<unknown>;
}

const MEMOIZED = Symbol.for('tonearm.memoizedParserLoader');

async function memoizeParserLoaders(): Promise<void> {
  try {
    const index = import.meta.resolve?.('music-metadata');
    if (!index) return;
    const factoryModule = (await import(new URL('./ParserFactory.js', index).href)) as { ParserFactory?: new () => { parsers?: ParserLoader[] } };
    for (const loader of new factoryModule.ParserFactory!().parsers ?? []) {
      const target = loader as ParserLoader & { [MEMOIZED]?: true };
      if (target[MEMOIZED] || typeof target.load !== 'function') continue;
      const load = target.load.bind(target);
      let loaded: Promise<unknown> | null = null;
      target.load = () => {
        loaded ??= load().catch((err: unknown) => {
          loaded = null;
          throw err;
        });
        return loaded;
      };
      target[MEMOIZED] = true;
    }
  } catch {
    // Not reachable here: music-metadata keeps importing per file.
  }
}

/** Resolves once the loaders are memoized (or found unreachable); call before parsing. */
export const parserLoadersReady: Promise<void> = memoizeParserLoaders();
