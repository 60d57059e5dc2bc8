import type { DownloadJobRow } from '../../db/downloads.js';
import type { Candidate, SourceId, TransferHandle } from './types.js';

/** What the pipeline keeps in `source_state`. */
export interface PipelineState {
  /** Sources given up on for this job (nothing acceptable, or every candidate failed). */
  tried: SourceId[];
  /** `source NUL ref` of candidates whose transfer failed. */
  failedRefs: string[];
  /** Why each source was given up on, for the final error. */
  errors: string[];
  source?: SourceId;
  /** The current source's acceptable candidates, best first. */
  candidates?: Candidate[];
  chosen?: Candidate;
  handle?: TransferHandle;
  /** The downloaded file in `.staging/<jobId>/`. */
  held?: string;
  /** The library path chosen for the file (kept so a restarted filing reuses it). */
  target?: string;
}

export const readState = (job: Pick<DownloadJobRow, 'sourceState'>): PipelineState => {
  const base: PipelineState = { tried: [], failedRefs: [], errors: [] };
  if (!job.sourceState) return base;
  try {
    return { ...base, ...(JSON.parse(job.sourceState) as Partial<PipelineState>) };
  } catch {
    return base;
  }
};

/** Thrown when the job left `downloading` under the pipeline (cancelled by a user). */
export class JobLeft extends Error {}
