import type { DownloadClientDescriptor, DownloadSourceDescriptor } from '../types.js';
import { slskdDescriptor, type Deps as SlskdSourceDeps } from './slskd.js';
import { usenetDescriptor, type Deps as UsenetSourceDeps } from './usenet.js';
import { ytdlpDescriptor, type Deps as YtdlpSourceDeps } from './ytdlp.js';

/**
 * THE list of download sources. Everything else reads it: the start-up wiring (start.ts registers
 * each factory), GET /api/health (`downloadSources` and the `*Configured` flags), the worker's
 * `sourcePriorities`, GET /api/settings/download-clients and its tests, the neutral path aliases
 * (http/aliases.ts) and, through those answers, the UI's source cards.
 *
 * Adding a source (say Tidal): its client in server/integrations/tidal/, its file here in sources/
 * (the DownloadSource class, its factory and its descriptor), its settings block in
 * settings/schema.ts (`integrations.tidal`), its fake in test/fakes/tidal/, and one entry below.
 * The order is the tie-break between equal priorities and the order of the UI's cards.
 */
const LIST = [slskdDescriptor, usenetDescriptor, ytdlpDescriptor] as const;

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
