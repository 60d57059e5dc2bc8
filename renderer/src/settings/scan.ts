import { api } from '../api';
import { listen, type ServerMessage } from '../socket';
import { createStore } from '../store';

export interface ScanCounts {
  filesSeen: number;
  filesIndexed: number;
  filesSkipped: number;
  filesFailed: number;
  filesMissing: number;
  filesMoved: number;
}

export interface ScanState extends Partial<ScanCounts> {
  jobId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  mode?: string;
  /** walking: files are still being found (filesSeen grows); reading: filesSeen is the total. */
  phase?: 'walking' | 'reading';
  error?: string | null;
  /** Server time of the last message, to show "finished 2 minutes ago". */
  updatedAt: number;
}

/** The latest library scan, fed by /ws library_scan_* messages and by polling the job while asked. */
export const scan = createStore<ScanState | null>(null);

/** Bumped when a scan completes, so library screens can reload. */
export const libraryVersion = createStore(0);

const counts = (m: Record<string, unknown>): Partial<ScanCounts> => {
  const out: Partial<ScanCounts> = {};
  for (const k of ['filesSeen', 'filesIndexed', 'filesSkipped', 'filesFailed', 'filesMissing', 'filesMoved'] as const) {
    if (typeof m[k] === 'number') out[k] = m[k];
  }
  return out;
};

function onMessage(msg: ServerMessage) {
  const jobId = String(msg.jobId ?? '');
  const at = typeof msg.timestamp === 'number' ? msg.timestamp : Date.now();
  if (msg.type === 'library_scan_started') {
    scan.set({ jobId, status: 'running', mode: String(msg.mode ?? ''), phase: 'walking', updatedAt: at });
    void follow(jobId);
  } else if (msg.type === 'library_scan_progress') {
    const phase = msg.phase === 'reading' || msg.phase === 'walking' ? msg.phase : undefined;
    scan.set((s) => ({ ...(s?.jobId === jobId ? s : {}), jobId, status: 'running', ...counts(msg), ...(phase && { phase }), updatedAt: at }));
  } else if (msg.type === 'library_scan_completed') {
    const status = msg.status === 'failed' ? 'failed' : 'completed';
    scan.set((s) => ({ ...(s?.jobId === jobId ? s : {}), jobId, status, ...counts(msg), updatedAt: at }));
    libraryVersion.set((v) => v + 1);
  }
}

let stop: (() => void) | null = null;

export function watchScans(): void {
  stop ??= listen(['library'], onMessage);
}

export function unwatchScans(): void {
  stop?.();
  stop = null;
  scan.set(null);
}

interface ScanJob extends ScanCounts {
  jobId: string;
  status: ScanState['status'];
  mode: string;
  error: string | null;
}

/** Queues a scan and follows it; /ws delivers progress, the job route fills gaps if the socket is down. */
export async function startScan(mode: 'quick' | 'full'): Promise<void> {
  const { jobId } = await api<{ jobId: string | number }>('/api/library/refresh', { method: 'POST', body: { mode } });
  const id = String(jobId);
  scan.set((s) => (s?.jobId === id && s.status === 'running' ? s : { jobId: id, status: 'queued', mode, updatedAt: Date.now() }));
  void follow(id);
}

const following = new Set<string>();

async function follow(jobId: string) {
  if (following.has(jobId)) return;
  following.add(jobId);
  try {
    await poll(jobId);
  } finally {
    following.delete(jobId);
  }
}

async function poll(jobId: string) {
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, i < 5 ? 500 : 2000));
    const current = scan.get();
    if (current?.jobId !== jobId) return;
    if (current.status === 'completed' || current.status === 'failed') return;
    try {
      const job = await api<ScanJob>(`/api/library/refresh/${encodeURIComponent(jobId)}`);
      const latest = scan.get();
      if (latest?.jobId !== jobId || latest.status === 'completed' || latest.status === 'failed') return;
      scan.set({ ...latest, ...counts(job as unknown as Record<string, unknown>), status: job.status, error: job.error, updatedAt: Date.now() });
      if (job.status === 'completed' || job.status === 'failed') {
        libraryVersion.set((v) => v + 1);
        return;
      }
    } catch {
      return;
    }
  }
}
