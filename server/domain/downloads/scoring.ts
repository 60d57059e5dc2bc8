import { foldText } from '../../db/libraryText.js';
import type { Candidate, TrackQuery } from './types.js';

/**
 * How the pipeline ranks what sources found for one track. Every part is 0–1; the score is the
 * weighted sum divided by the weights that applied (a candidate with no duration is judged on the
 * rest), so scores of different sources compare. Candidates below `MIN_CANDIDATE_SCORE`, or whose
 * title does not resemble the wanted one at all, are never taken.
 */
export const SCORE_WEIGHTS = { title: 0.4, artist: 0.25, album: 0.1, duration: 0.15, format: 0.1 } as const;
export const MIN_CANDIDATE_SCORE = 0.55;
/** A title this unlike the wanted one rules a candidate out whatever the rest says. */
export const MIN_TITLE_SIMILARITY = 0.5;

const LOSSLESS = new Set(['flac', 'alac', 'wav', 'aiff', 'aif', 'ape', 'wv']);
const AUDIO = new Set([...LOSSLESS, 'mp3', 'm4a', 'aac', 'ogg', 'oga', 'opus', 'wma', 'mp4']);

export const isAudioExtension = (ext: string | null | undefined) => !!ext && AUDIO.has(ext.replace(/^\./, '').toLowerCase());
export const isLosslessFormat = (ext: string | null | undefined) => !!ext && LOSSLESS.has(ext.replace(/^\./, '').toLowerCase());

/** Folded words without punctuation and bracketed noise such as "(Remastered 2011)". */
export function words(value: string | null | undefined): string[] {
  return foldText(value ?? '')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0);
}

/** Share of `wanted`'s words found in `found` (order-free); 1 when both are empty. */
export function coverage(wanted: string | null | undefined, found: string | null | undefined): number {
  const w = words(wanted);
  if (w.length === 0) return 1;
  const f = new Set(words(found));
  return w.filter((x) => f.has(x)).length / w.length;
}

/** Symmetric word similarity (Dice coefficient over word sets). */
export function similarity(a: string | null | undefined, b: string | null | undefined): number {
  const x = new Set(words(a));
  const y = new Set(words(b));
  if (x.size === 0 && y.size === 0) return 1;
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return (2 * shared) / (x.size + y.size);
}

/** Search strings in the order sources are asked: "artist title", "artist album title", "title artist", "title". */
export function queryVariants(t: { artistName: string; trackName: string; albumName: string | null }): string[] {
  const clean = (s: string) => words(s).join(' ');
  const artist = clean(t.artistName);
  const title = clean(t.trackName.replace(/\s*[([].*?[)\]]\s*/g, ' ')) || clean(t.trackName);
  const album = t.albumName ? clean(t.albumName) : '';
  const out = [`${artist} ${title}`, album && album !== title ? `${artist} ${album} ${title}` : '', `${title} ${artist}`, title.split(' ').length >= 3 ? title : ''];
  return [...new Set(out.map((q) => q.trim()).filter(Boolean))];
}

export interface Scored {
  candidate: Candidate;
  score: number;
  parts: Record<keyof typeof SCORE_WEIGHTS, number | null>;
}

/** Scores one candidate against the wanted track under the quality profile. */
export function scoreCandidate(c: Candidate, want: TrackQuery, profile: { preferLossless: boolean }): Scored {
  // A candidate's own fields when the source parsed them, else its label (file name, release title).
  const label = c.title;
  let title: number | null = Math.max(c.trackName ? coverage(want.trackName, c.trackName) : 0, coverage(want.trackName, label));
  const artist = Math.max(c.artistName ? coverage(want.artistName, c.artistName) : 0, coverage(want.artistName, label));
  const album = want.albumName ? Math.max(c.albumName ? coverage(want.albumName, c.albumName) : 0, coverage(want.albumName, label)) : null;
  // A whole-album release (Usenet) names the album, not the track: the title is judged from the file later.
  if (c.data.albumRelease === true && title < MIN_TITLE_SIMILARITY && (album ?? 0) >= 0.8 && artist >= 0.8) title = null;
  let duration: number | null = null;
  if (want.durationMs && c.durationMs) {
    const off = Math.abs(want.durationMs - c.durationMs) / 1000;
    duration = off <= 3 ? 1 : off >= 30 ? 0 : 1 - (off - 3) / 27;
  }
  let format: number | null = null;
  if (c.format) {
    const lossless = isLosslessFormat(c.format);
    if (!isAudioExtension(c.format)) format = 0;
    else if (lossless) format = profile.preferLossless ? 1 : 0.7;
    else {
      const kbps = c.bitrate ?? 0;
      const lossy = kbps >= 256 ? 0.8 : kbps >= 192 ? 0.6 : kbps >= 128 ? 0.4 : kbps > 0 ? 0.2 : 0.5;
      format = profile.preferLossless ? lossy : Math.min(1, lossy + 0.2);
    }
  }
  const parts = { title, artist, album, duration, format };
  let sum = 0;
  let weight = 0;
  for (const [k, v] of Object.entries(parts) as [keyof typeof SCORE_WEIGHTS, number | null][]) {
    if (v === null) continue;
    sum += v * SCORE_WEIGHTS[k];
    weight += SCORE_WEIGHTS[k];
  }
  return { candidate: c, score: weight > 0 ? sum / weight : 0, parts };
}

/**
 * The acceptable candidates, best first: above the threshold, a resembling title, an audio format,
 * not denied (`denied` holds `source\u0000ref`) and not already tried.
 */
export function rankCandidates(
  candidates: Candidate[],
  want: TrackQuery,
  profile: { preferLossless: boolean },
  exclude: { denied: Set<string>; tried: Set<string> },
): Scored[] {
  const seen = new Set<string>();
  const out: Scored[] = [];
  for (const c of candidates) {
    const key = `${c.source}\u0000${c.ref}`;
    if (seen.has(key) || exclude.denied.has(key) || exclude.tried.has(key)) continue;
    seen.add(key);
    if (c.format && !isAudioExtension(c.format)) continue;
    const s = scoreCandidate(c, want, profile);
    if ((s.parts.title !== null && s.parts.title < MIN_TITLE_SIMILARITY) || s.score < MIN_CANDIDATE_SCORE) continue;
    out.push(s);
  }
  return out.sort((a, b) => b.score - a.score || (b.candidate.bitrate ?? 0) - (a.candidate.bitrate ?? 0));
}
