import { clockTime, shortDateTime } from '../time';
import { MIX_SOURCES, type Flow, type FlowInput, type JobCounts, type Mix } from './api';

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const SOURCE_LABELS: Record<keyof Mix, string> = { discover: 'Discover', mix: 'Library Blend', trending: 'Trending', focus: 'Focus' };

/** "Fridays at 12:00 AM", "Every day at 7:30 AM", "Mon, Wed at 6:00 PM" (the time in the browser's clock format). */
export function scheduleSummary(days: number[], time: string, locale?: string): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const at = clockTime(time, locale);
  if (sorted.length === 7) return `Every day at ${at}`;
  if (sorted.length === 1) return `${DAY_NAMES[sorted[0]!]}s at ${at}`;
  return `${sorted.map((d) => DAY_NAMES[d]!.slice(0, 3)).join(', ')} at ${at}`;
}

/** "Discover 50% · Trending 50%": the sources in use. */
export function mixSummary(mix: Mix): string {
  const parts = (Object.keys(SOURCE_LABELS) as (keyof Mix)[]).filter((s) => mix[s] > 0).map((s) => `${SOURCE_LABELS[s]} ${mix[s]}%`);
  return parts.join(' · ') || 'No source';
}

export function when(iso: string | null, locale?: string): string {
  if (!iso) return 'never';
  return shortDateTime(iso, locale);
}

/** Where a flow's run stands in the operation queue: queued, or waiting for the discovery refresh. */
export type RunQueueState = 'queued' | 'waiting' | null;

/**
 * The one state line of a flow: waiting, queued, planning, what its current run downloaded, or why
 * the last run found nothing; never two of them at once. `warn` when the line is a failure.
 */
export function progressLine(flow: Flow, queue: RunQueueState): { text: string; warn: boolean } {
  const s: JobCounts = flow.stats;
  const run = flow.currentRun;
  if (queue === 'waiting') return { text: 'Waiting for discovery to finish updating; the run starts then', warn: false };
  if (queue === 'queued' && (!run || run.status !== 'planning')) return { text: 'Queued to run', warn: false };
  if (run?.status === 'planning') return { text: 'Planning tracks…', warn: false };
  if (!run && s.total === 0) {
    if (flow.lastError) return { text: flow.lastError, warn: true };
    return { text: flow.lastRunAt ? 'The last run planned no tracks' : 'Not run yet', warn: false };
  }
  const parts = [`${s.done ?? 0} of ${run?.planned ?? s.total} downloaded`];
  if (s.downloading) parts.push(`${s.downloading} downloading`);
  if (s.pending) parts.push(`${s.pending} waiting`);
  if (s.blocked) parts.push(`${s.blocked} for review`);
  if (s.failed) parts.push(`${s.failed} failed`);
  const runError = run?.status === 'failed' ? run.error : null;
  if (runError) parts.push(`run failed: ${runError}`);
  // A later run failed while this one stays the flow's playlist.
  if (flow.lastError && flow.lastError !== runError) parts.push(`the last run failed: ${flow.lastError}`);
  return { text: parts.join(' · '), warn: runError !== null || !!flow.lastError };
}

export interface FormState {
  name: string;
  size: string;
  mix: Mix;
  tags: string;
  relatedArtists: string;
  deepDive: boolean;
  showInLibrary: boolean;
  onePerArtist: boolean;
  yearFrom: string;
  yearTo: string;
  scheduleDays: number[];
  scheduleTime: string;
}

/** The mix of a new flow: Discover 50 / Library Blend 25 / Trending 25, with only the sources this server can use (scaled back to 100). */
export function defaultMix(unavailable: Partial<Record<keyof Mix, string>> = {}): Mix {
  const base: Mix = { discover: 50, mix: 25, trending: 25, focus: 0 };
  const usable = MIX_SOURCES.filter((s) => base[s] > 0 && !unavailable[s]);
  const out: Mix = { discover: 0, mix: 0, trending: 0, focus: 0 };
  const sum = usable.reduce((a, s) => a + base[s], 0);
  if (sum === 0) return out;
  for (const s of usable) out[s] = Math.round((base[s] * 100) / sum / 5) * 5;
  const first = usable[0]!;
  out[first] += 100 - usable.reduce((a, s) => a + out[s], 0);
  return out;
}

export const emptyForm = (unavailable: Partial<Record<keyof Mix, string>> = {}): FormState => ({
  name: '',
  size: '20',
  mix: defaultMix(unavailable),
  tags: '',
  relatedArtists: '',
  deepDive: false,
  showInLibrary: false,
  onePerArtist: false,
  yearFrom: '',
  yearTo: '',
  scheduleDays: [5],
  scheduleTime: '00:00',
});

export const formOf = (f: Flow): FormState => ({
  name: f.name,
  size: String(f.size),
  mix: { ...f.mix },
  tags: f.tags.join(', '),
  relatedArtists: f.relatedArtists.join(', '),
  deepDive: f.deepDive,
  showInLibrary: f.showInLibrary,
  onePerArtist: f.onePerArtist,
  yearFrom: f.yearFrom === null ? '' : String(f.yearFrom),
  yearTo: f.yearTo === null ? '' : String(f.yearTo),
  scheduleDays: [...f.scheduleDays],
  scheduleTime: f.scheduleTime,
});

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const year = (s: string) => (s.trim() === '' ? null : Number(s.trim()));

/** The body the server validates; numbers stay as typed so the server's messages apply. */
export const inputOf = (f: FormState): FlowInput => ({
  name: f.name.trim(),
  size: Number(f.size),
  mix: f.mix,
  tags: list(f.tags),
  relatedArtists: list(f.relatedArtists),
  deepDive: f.deepDive,
  showInLibrary: f.showInLibrary,
  onePerArtist: f.onePerArtist,
  yearFrom: year(f.yearFrom),
  yearTo: year(f.yearTo),
  scheduleDays: [...f.scheduleDays].sort((a, b) => a - b),
  scheduleTime: f.scheduleTime,
});
