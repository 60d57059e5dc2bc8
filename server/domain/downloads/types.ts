/**
 * The contract between the track pipeline and the places it acquires music from (slskd, Usenet,
 * yt-dlp). A source searches for one track, starts a transfer for a chosen candidate, reports its
 * progress until a file exists on this computer, and cancels it. Everything a source returns is
 * JSON-serialisable: the pipeline stores candidates and handles in the job row so a restarted
 * server resumes a transfer instead of starting it again.
 */

export type SourceId = 'slskd' | 'usenet' | 'ytdlp';

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
