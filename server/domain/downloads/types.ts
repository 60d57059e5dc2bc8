/**
 * The contract between the track pipeline and the places it acquires music from (slskd, Usenet,
 * yt-dlp). A source searches for one track, starts a transfer for a chosen candidate, reports its
 * progress until a file exists on this computer, and cancels it. Everything a source returns is
 * JSON-serialisable: the pipeline stores candidates and handles in the job row so a restarted
 * server resumes a transfer instead of starting it again.
 */

import type { z } from 'zod';
import type { Settings } from '../settings/schema.js';


/**
 * A source's wire id (`job.source`, `downloadSources.<id>` of GET /api/health, `sourcePriorities.<id>`):
 * one of the ids of DOWNLOAD_SOURCES (sources/index.ts, the one list of sources; `DownloadSourceId`
 * there is the closed set).
 */
export type SourceId = string;

/** What the pipeline looks for. */
export interface TrackQuery {
  artistName: string;
  trackName: string;
  albumName: string | null;
  durationMs: number | null;
  trackNumber: number | null;
  year: number | null;
  recordingMbid: string | null;
  /** Search strings to try in order (built by the pipeline: "artist title", "artist album", ...). */
  queries: string[];
}

/** One thing a source found; `ref` identifies it for denial ("never pick this again"). */
export interface Candidate {
  source: SourceId;
  /** Stable identity: slskd `username\u0000filename`; Usenet the release guid; yt-dlp the video URL. */
  ref: string;
  /** Human label (file name, release title, video title). */
  title: string;
  artistName: string | null;
  trackName: string | null;
  albumName: string | null;
  durationMs: number | null;
  /** Lower-case extension or container: flac, mp3, m4a, opus, ... */
  format: string | null;
  bitrate: number | null;
  sizeBytes: number | null;
  /** Source-specific fields the source needs to start the transfer (username, filename, URL...). */
  data: Record<string, unknown>;
}

/** A started transfer; `data` is whatever the source needs to follow it after a restart. */
export interface TransferHandle {
  source: SourceId;
  data: Record<string, unknown>;
}

export type TransferState =
  | { state: 'queued' | 'downloading'; percent: number; message?: string | null }
  | { state: 'done'; percent: 100; file: string }
  | { state: 'failed'; message: string };

export interface SourceContext {
  /** The job's own folder under `<downloads root>/.staging/<jobId>`; sources that write files themselves use it. */
  stagingDir: string;
  jobId: number;
  signal: AbortSignal;
}

export interface DownloadSource {
  readonly id: SourceId;
  readonly label: string;
  /** Ascending: lower is tried first. */
  readonly priority: number;
  search(query: TrackQuery, signal: AbortSignal): Promise<Candidate[]>;
  start(candidate: Candidate, ctx: SourceContext): Promise<TransferHandle>;
  /** Where the transfer is; `done` names a readable audio file on this computer. */
  poll(handle: TransferHandle, ctx: SourceContext): Promise<TransferState>;
  /** Stops a transfer and removes the source's partial data where the source keeps it. */
  cancel(handle: TransferHandle): Promise<void>;
}

/** Builds a source from the current settings; null when it is not configured or switched off. */
export type SourceFactory = () => DownloadSource | null;

/** A settings block of `integrations` (settings/schema.ts). */
export type IntegrationKey = keyof Settings['integrations'];

/** A settings field of a download client as GET /api/settings/download-clients lists it. */
export interface ClientField {
  key: string;
  type: 'url' | 'text' | 'secret' | 'path' | 'number' | 'boolean' | 'select';
  options?: string[];
  required?: boolean;
}

/** One program or service a source is configured by (its `integrations.<key>` block). */
export interface DownloadClientDescriptor<D = never> {
  /** Its settings block and its name on the wire (`/api/settings/<key>/test`, download-clients `key`). */
  key: IntegrationKey;
  label: string;
  /** peer-to-peer, indexer, usenet-client, command-line, ... */
  role: string;
  /** The neutral word api.md writes for it (decisions §1); http/aliases.ts serves it. */
  neutralName: string;
  fields: ClientField[];
  state(ctx: D): { configured: boolean; enabled: boolean; priority: number | null; reason: string | null };
  /** Its connection test (`POST /api/settings/download-clients/<key>/test`): `body` is checked by `testBody` first. */
  testBody: z.ZodType;
  test(ctx: D, body: unknown): Promise<unknown>;
}

/**
 * Everything the product knows of one download source: an entry of DOWNLOAD_SOURCES
 * (sources/index.ts). Settings' client list, GET /api/health, the worker's priorities, the neutral
 * aliases, the start-up wiring and the UI's source cards are all read from these entries.
 */
export interface DownloadSourceDescriptor<Id extends string = string, D = never> {
  id: Id;
  /** `downloadSources.<id>.label` of GET /api/health; the UI's card title. */
  label: string;
  /** How a review note names what the source delivered ("the Usenet release"). */
  noun: string;
  clients: readonly DownloadClientDescriptor<D>[];
  /**
   * Its clients' settings blocks by client key (`integrations.<key>`), from its leaf
   * `sources/<id>.settings.ts`; settings/schema.ts reads them through the list in sources/settings.ts.
   */
  settings: Readonly<Record<string, z.ZodObject>>;
  /** The worker's view of its priority (`sourcePriorities.<id>`), lower first. */
  priority(settings: Settings): number;
  /** The settings change that gives it `priority`. */
  priorityPatch(priority: number): Partial<Record<IntegrationKey, { priority: number }>>;
  /**
   * GET /api/health: its top-level `*Configured` flags (decisions §7) and its `downloadSources.<id>`
   * entry beyond `id` and `label`.
   */
  health(ctx: D): {
    flags: Record<string, boolean>;
    entry: { configured: boolean; enabled: boolean; priority: number } & Record<string, unknown>;
  };
  /** Builds the source from the current settings; null when it is not configured or switched off. */
  factory(ctx: D): DownloadSource | null;
  /** Start-up work besides registering the factory (yt-dlp's table of running processes). */
  start?(ctx: D): void;
}
