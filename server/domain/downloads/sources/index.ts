import type { DownloadClientDescriptor, DownloadSourceDescriptor } from '../types.js';
import type { DOWNLOAD_CLIENT_SETTINGS } from './settings.js';
import { slskdDescriptor, type Deps as SlskdSourceDeps } from './slskd.js';
import { usenetDescriptor, type Deps as UsenetSourceDeps } from './usenet.js';
import { ytdlpDescriptor, type Deps as YtdlpSourceDeps } from './ytdlp.js';

/**
 * THE list of download sources. Everything else reads it: the start-up wiring (start.ts registers
 * each factory), GET /api/health (`downloadSources` and the `*Configured` flags), the worker's
 * `sourcePriorities`, GET /api/settings/download-clients and its tests, the neutral path aliases
 * (http/aliases.ts) and, through those answers, the UI's source cards.
 *
 * Adding a source (say Tidal): its client in server/integrations/tidal/, its files here in sources/
 * (tidal.ts: the DownloadSource class, its factory and its descriptor; tidal.settings.ts: its
 * settings block `integrations.tidal`, which the descriptor names as `settings`), its fake in
 * test/fakes/tidal/, one entry below and its block in the leaf list of settings.ts (settings/schema.ts
 * reads that list, since the sources read the `Settings` type the schema gives; the check under
 * LIST and test/architecture/download-sources.test.ts fail when the two lists differ).
 * The order is the tie-break between equal priorities and the order of the UI's cards.
 */
const LIST = [slskdDescriptor, usenetDescriptor, ytdlpDescriptor] as const;

/** The blocks the sources name are the blocks settings/schema.ts holds: a source missing in either list does not compile. */
type NamedBlocks = (typeof LIST)[number] extends infer S ? (S extends { settings: infer B } ? keyof B : never) : never;
type ListedBlocks = keyof typeof DOWNLOAD_CLIENT_SETTINGS;
export const blocksAgree = true satisfies ([NamedBlocks] extends [ListedBlocks] ? ([ListedBlocks] extends [NamedBlocks] ? true : false) : false);

export type DownloadSourceId = (typeof LIST)[number]['id'];
/** What the sources use of the server's context, together. */
export type SourcesDeps = SlskdSourceDeps & UsenetSourceDeps & YtdlpSourceDeps;
export const DOWNLOAD_SOURCES: readonly DownloadSourceDescriptor<DownloadSourceId, SourcesDeps>[] = LIST;
export const DOWNLOAD_SOURCE_IDS = DOWNLOAD_SOURCES.map((s) => s.id) as [DownloadSourceId, ...DownloadSourceId[]];

/** Every program a source is configured by, with the source it belongs to, in list order. */
export const DOWNLOAD_CLIENTS: readonly (DownloadClientDescriptor<SourcesDeps> & { source: DownloadSourceId })[] = DOWNLOAD_SOURCES.flatMap((s) =>
  s.clients.map((c) => ({ ...c, source: s.id })),
);

/** A source by id; undefined for ids no source has (a job row written by another build). */
export function downloadSource(id: string) {
  return DOWNLOAD_SOURCES.find((s) => s.id === id);
}
