import type { IAudioMetadata } from 'music-metadata';

/**
 * ReplayGain 2 values (decisions §12): gains in dB relative to the −18 LUFS reference, peaks as
 * linear sample amplitude (1.0 = full scale). Read from a file's tags in every common spelling, or
 * measured with ffmpeg's EBU R128 filter for files without them.
 */

export type { ReplayGain } from '../db/libraryModel.js';
import type { ReplayGain } from '../db/libraryModel.js';

/** ReplayGain 2's reference loudness: gain = REFERENCE_LUFS − integrated loudness. */
export const REFERENCE_LUFS = -18;
/** Opus R128_*_GAIN tags are relative to −23 LUFS (RFC 7845 §5.2.1), 5 dB below ReplayGain 2's reference. */
const R128_OFFSET_DB = REFERENCE_LUFS - -23;

/** A gain like "-6.50 dB", "+2.1dB" or "-6.5"; null when it is not a finite number in a sane range. */
export function parseGain(text: string): number | null {
  const m = /^\s*([+-]?\d+(?:[.,]\d+)?)\s*(?:db)?\s*$/i.exec(text);
  if (!m) return null;
  const v = Number(m[1]!.replace(',', '.'));
  return Number.isFinite(v) && Math.abs(v) <= 64 ? v : null;
}

/** A linear peak like "0.988547"; null when it is not a finite, non-negative number below 100 (+40 dBFS). */
export function parsePeak(text: string): number | null {
  const m = /^\s*(\d+(?:[.,]\d+)?(?:e[+-]?\d+)?)\s*$/i.exec(text);
  if (!m) return null;
  const v = Number(m[1]!.replace(',', '.'));
  return Number.isFinite(v) && v >= 0 && v < 100 ? v : null;
}

/** An Opus R128 gain (Q7.8 fixed point, −23 LUFS reference) as a ReplayGain 2 gain. */
export function parseR128Gain(text: string): number | null {
  if (!/^\s*[+-]?\d+\s*$/.test(text)) return null;
  const q = Number(text);
  if (!Number.isInteger(q) || q < -32768 || q > 32767) return null;
  return round2(q / 256 + R128_OFFSET_DB);
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** The key a native tag id stands for: ID3 TXXX descriptions and MP4 freeform names without their prefix, lower case. */
function keyOf(id: string): string {
  return id
    .replace(/^TXXX:/i, '')
    .replace(/^----:com\.apple\.iTunes:/i, '')
    .toLowerCase();
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return textOf(value[0]);
  if (value && typeof value === 'object' && 'text' in value) return textOf((value as { text: unknown }).text);
  return null;
}

/**
 * The ReplayGain values in a parsed file's tags, or null when it has none: ReplayGain 2 keys as ID3
 * TXXX frames, Vorbis comments, APEv2 items and MP4 freeform atoms (any letter case), else Opus
 * R128_TRACK_GAIN / R128_ALBUM_GAIN. A file with only a peak has no usable values.
 */
export function replayGainOfTags(meta: Pick<IAudioMetadata, 'native'>): ReplayGain | null {
  const found: Record<string, string> = {};
  for (const tags of Object.values(meta.native ?? {})) {
    for (const tag of tags) {
      const key = keyOf(tag.id);
      if (!/^(replaygain_(track|album)_(gain|peak)|r128_(track|album)_gain)$/.test(key) || key in found) continue;
      const text = textOf(tag.value);
      if (text !== null) found[key] = text;
    }
  }
  const gain = (rg: string, r128: string) => {
    const fromRg = found[rg] !== undefined ? parseGain(found[rg]!) : null;
    return fromRg ?? (found[r128] !== undefined ? parseR128Gain(found[r128]!) : null);
  };
  const peak = (k: string) => (found[k] !== undefined ? parsePeak(found[k]!) : null);
  const out: ReplayGain = {
    trackGain: gain('replaygain_track_gain', 'r128_track_gain'),
    trackPeak: peak('replaygain_track_peak'),
    albumGain: gain('replaygain_album_gain', 'r128_album_gain'),
    albumPeak: peak('replaygain_album_peak'),
  };
  if (out.trackGain === null && out.albumGain === null) return null;
  return out;
}

export interface Loudness {
  /** Integrated loudness, LUFS. */
  integrated: number;
  /** True peak, linear. */
  peak: number;
}

/** ffmpeg arguments that measure a file's first audio stream with the EBU R128 filter (summary only). */
export function loudnessArguments(file: string): string[] {
  return [
    '-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info',
    '-i', file, '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-af', 'ebur128=peak=true:framelog=verbose', '-f', 'null', '-',
  ];
}

/**
 * The summary ebur128 prints at the end: "Integrated loudness: I: -16.3 LUFS" and "True peak:
 * Peak: -0.4 dBFS". Null when it is missing or the audio is silent (no measurable loudness).
 */
export function parseLoudness(stderr: string): Loudness | null {
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const i = /Integrated loudness:\s*I:\s*(-?[\d.]+|-inf|nan)\s*LUFS/i.exec(summary);
  const p = /True peak:\s*Peak:\s*(-?[\d.]+|-inf|nan)\s*dBFS/i.exec(summary);
  if (!i || !p) return null;
  const integrated = Number(i[1]);
  const peakDb = Number(p[1]);
  // −70 LUFS is the absolute gate: everything below it is silence, which has no gain to give.
  if (!Number.isFinite(integrated) || integrated <= -70) return null;
  return { integrated, peak: Number.isFinite(peakDb) ? round6(10 ** (peakDb / 20)) : 0 };
}

/** Track gain from integrated loudness. */
export const gainOf = (lufs: number) => round2(REFERENCE_LUFS - lufs);
/** Integrated loudness a ReplayGain 2 gain stands for. */
export const loudnessOfGain = (gain: number) => REFERENCE_LUFS - gain;

/**
 * Album values from the album's tracks: the integrated loudness of the album approximated by the
 * duration-weighted mean of the tracks' energies (what measuring the tracks played one after
 * another gives, but for the gating of quiet passages), and the highest track peak.
 */
export function albumReplayGain(tracks: { trackGain: number; trackPeak: number | null; durationMs: number }[]): { albumGain: number; albumPeak: number | null } | null {
  const usable = tracks.filter((t) => Number.isFinite(t.trackGain));
  if (usable.length === 0) return null;
  let energy = 0;
  let weight = 0;
  for (const t of usable) {
    const w = t.durationMs > 0 ? t.durationMs : 1;
    energy += w * 10 ** (loudnessOfGain(t.trackGain) / 10);
    weight += w;
  }
  const lufs = 10 * Math.log10(energy / weight);
  const peaks = usable.map((t) => t.trackPeak).filter((p): p is number => p !== null);
  return { albumGain: gainOf(lufs), albumPeak: peaks.length > 0 ? Math.max(...peaks) : null };
}

/** The tag values to write for ReplayGain 2 (Vorbis-comment / TXXX names, the usual text forms). */
export function replayGainTagText(rg: ReplayGain): [string, string][] {
  const out: [string, string][] = [];
  const dB = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(2)} dB`;
  if (rg.trackGain !== null) out.push(['REPLAYGAIN_TRACK_GAIN', dB(rg.trackGain)]);
  if (rg.trackPeak !== null) out.push(['REPLAYGAIN_TRACK_PEAK', rg.trackPeak.toFixed(6)]);
  if (rg.albumGain !== null) out.push(['REPLAYGAIN_ALBUM_GAIN', dB(rg.albumGain)]);
  if (rg.albumPeak !== null) out.push(['REPLAYGAIN_ALBUM_PEAK', rg.albumPeak.toFixed(6)]);
  return out;
}

/** Stored columns → the wire object of decisions §12 (OpenSubsonic `replayGain`): only the values known. */
export function replayGainWire(row: {
  rg_track_gain?: number | null;
  rg_track_peak?: number | null;
  rg_album_gain?: number | null;
  rg_album_peak?: number | null;
}): { trackGain?: number; albumGain?: number; trackPeak?: number; albumPeak?: number } {
  const out: { trackGain?: number; albumGain?: number; trackPeak?: number; albumPeak?: number } = {};
  if (row.rg_track_gain != null) out.trackGain = row.rg_track_gain;
  if (row.rg_album_gain != null) out.albumGain = row.rg_album_gain;
  if (row.rg_track_peak != null && row.rg_track_peak >= 0) out.trackPeak = row.rg_track_peak;
  if (row.rg_album_peak != null && row.rg_album_peak >= 0) out.albumPeak = row.rg_album_peak;
  return out;
}
