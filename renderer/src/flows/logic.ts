import type { Flow, FlowInput, JobCounts, Mix } from './api';

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const SOURCE_LABELS: Record<keyof Mix, string> = { discover: 'Discover', mix: 'Library Blend', trending: 'Trending', focus: 'Focus' };

/** "Fridays at 00:00", "Every day at 07:30", "Mon, Wed at 18:00". */
export function scheduleSummary(days: number[], time: string): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  if (sorted.length === 7) return `Every day at ${time}`;
  if (sorted.length === 1) return `${DAY_NAMES[sorted[0]!]}s at ${time}`;
  return `${sorted.map((d) => DAY_NAMES[d]!.slice(0, 3)).join(', ')} at ${time}`;
}

/** "Discover 50% · Trending 50%": the sources in use. */
export function mixSummary(mix: Mix): string {
  const parts = (Object.keys(SOURCE_LABELS) as (keyof Mix)[]).filter((s) => mix[s] > 0).map((s) => `${SOURCE_LABELS[s]} ${mix[s]}%`);
  return parts.join(' · ') || 'No source';
}

export function when(iso: string | null): string {
  if (!iso) return 'never';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** The live line of a flow: what its current run is doing and how far its downloads are. */
export function progressLine(flow: Flow, queued: boolean): string {
  const s: JobCounts = flow.stats;
  const run = flow.currentRun;
  if (queued && (!run || run.status !== 'planning')) return 'Queued to run';
  if (run?.status === 'planning') return 'Planning tracks…';
  if (!run && s.total === 0) return 'Not run yet';
  const parts = [`${s.done ?? 0} of ${run?.planned ?? s.total} downloaded`];
  if (s.downloading) parts.push(`${s.downloading} downloading`);
  if (s.pending) parts.push(`${s.pending} waiting`);
  if (s.blocked) parts.push(`${s.blocked} for review`);
  if (s.failed) parts.push(`${s.failed} failed`);
  if (run?.status === 'failed' && run.error) parts.push(`run failed: ${run.error}`);
  return parts.join(' · ');
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

export const emptyForm = (): FormState => ({
  name: '',
  size: '20',
  mix: { discover: 50, mix: 25, trending: 25, focus: 0 },
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
