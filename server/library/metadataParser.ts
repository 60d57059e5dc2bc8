import { parseFromTokenizer, scanAppendingHeaders, type IAudioMetadata, type IOptions } from 'music-metadata';
import type { IRandomAccessTokenizer, ITokenizer } from 'strtok3';

/**
 * music-metadata's parseFromTokenizer, minus two costs it pays on every file that dominated the
 * scan's profile (issue 25), with the same parser and the same results:
 *
 * - It picks a parser and loads it with a dynamic `import()` each time. Under a module loader hook
 *   (tsx, which runs `npm start`, the scan worker and the tag thread), every `import()` is resolved
 *   on the loader's hooks thread: a cross-thread round trip per file. The loaders are module
 *   singletons; their `load()` is memoized here, so each parser module is imported once per thread.
 * - Its MetadataCollector builds a fresh CombinedTagMapper per file: eleven tag mappers, several of
 *   which copy their whole tag table into upper case (a tenth of a small file's parse). The mappers
 *   hold no state beyond those tables, so one CombinedTagMapper serves every file here.
 *
 * The second relies on the collector's shape in the installed version; it is checked once against a
 * collector the package builds itself (same own fields, all plain data), and where anything differs
 * (another version, another layout, a bundler) parsing goes through parseFromTokenizer as before.
 */

interface ParserLoader {
  load(): Promise<new (metadata: unknown, tokenizer: ITokenizer, options: IOptions) => { parse(): Promise<void> }>;
}
interface Collector {
  format: { trackInfo?: { type: unknown }[]; hasAudio?: boolean; hasVideo?: boolean };
  setFormat(key: string, value: unknown): void;
  toCommonMetadata(): IAudioMetadata;
}
interface FastPath {
  loaderFor(file: string): ParserLoader | undefined;
  collector(options: IOptions): Collector;
  audioTrackType: unknown;
  videoTrackType: unknown;
}

const MEMOIZED = Symbol.for('tonearm.memoizedParserLoader');

function memoize(loader: ParserLoader & { [MEMOIZED]?: true }): void {
  if (loader[MEMOIZED] || typeof loader.load !== 'function') return;
  const load = loader.load.bind(loader);
  let loaded: ReturnType<ParserLoader['load']> | null = null;
  loader.load = () => {
    loaded ??= load().catch((err: unknown) => {
      loaded = null;
      throw err;
    });
    return loaded;
  };
  loader[MEMOIZED] = true;
}

/** Data a plain copy reproduces: primitives, arrays and plain objects of them. */
function isPlain(v: unknown): boolean {
  if (typeof v === 'function') return false;
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(isPlain);
  return Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(isPlain);
}

function clonePlain<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clonePlain) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = clonePlain(x);
  return out as T;
}

async function setUp(): Promise<FastPath | null> {
  try {
    const index = import.meta.resolve?.('music-metadata');
    if (!index) return null;
    const at = (file: string) => new URL(file, index).href;
    const [{ ParserFactory }, { MetadataCollector }, { CombinedTagMapper }, { TrackType }] = (await Promise.all([
      import(at('./ParserFactory.js')),
      import(at('./common/MetadataCollector.js')),
      import(at('./common/CombinedTagMapper.js')),
      import(at('./type.js')),
    ])) as [
      { ParserFactory: new () => { parsers: ParserLoader[]; findLoaderForExtension(file: string): ParserLoader | undefined } },
      { MetadataCollector: new (options: IOptions | undefined) => Record<string, unknown> },
      { CombinedTagMapper: new () => object },
      { TrackType: { audio: unknown; video: unknown } },
    ];
    const factory = new ParserFactory();
    for (const loader of factory.parsers) memoize(loader);
    // The collector the package builds, as the template for ours.
    const template = new MetadataCollector(undefined);
    const fields = Object.keys(template);
    if (!(template.tagMapper instanceof CombinedTagMapper) || !fields.includes('opts')) return null;
    const data = fields.filter((k) => k !== 'tagMapper' && k !== 'opts');
    if (!data.every((k) => isPlain(template[k]))) return null;
    const tagMapper = new CombinedTagMapper();
    return {
      loaderFor: (file) => factory.findLoaderForExtension(file),
      collector(options) {
        const c = Object.create(MetadataCollector.prototype) as Record<string, unknown>;
        for (const k of fields) c[k] = k === 'tagMapper' ? tagMapper : k === 'opts' ? options : clonePlain(template[k]);
        return c as unknown as Collector;
      },
      audioTrackType: TrackType.audio,
      videoTrackType: TrackType.video,
    };
  } catch {
    return null;
  }
}

let fastPath: Promise<FastPath | null> | null = null;

/** Same as music-metadata's parseFromTokenizer(tokenizer, options) for a tokenizer with a file path. */
export async function parseTokenizer(tokenizer: ITokenizer, options: IOptions): Promise<IAudioMetadata> {
  const fast = await (fastPath ??= setUp());
  const loader = fast && tokenizer.fileInfo.path && !tokenizer.fileInfo.mimeType ? fast.loaderFor(tokenizer.fileInfo.path) : undefined;
  if (!fast || !loader) return parseFromTokenizer(tokenizer, options);
  // ParserFactory.parse, step by step.
  if (tokenizer.supportsRandomAccess()) await scanAppendingHeaders(tokenizer as IRandomAccessTokenizer, options);
  const metadata = fast.collector(options);
  const Parser = await loader.load();
  await new Parser(metadata, tokenizer, options ?? {}).parse();
  if (metadata.format.trackInfo) {
    if (metadata.format.hasAudio === undefined) metadata.setFormat('hasAudio', !!metadata.format.trackInfo.find((t) => t.type === fast.audioTrackType));
    if (metadata.format.hasVideo === undefined) metadata.setFormat('hasVideo', !!metadata.format.trackInfo.find((t) => t.type === fast.videoTrackType));
  }
  return metadata.toCommonMetadata();
}

/** Whether the fast path is in use in this thread (tests). */
export async function metadataFastPathActive(): Promise<boolean> {
  return (await (fastPath ??= setUp())) !== null;
}
