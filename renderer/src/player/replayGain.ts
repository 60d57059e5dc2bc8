/**
 * Volume levelling with ReplayGain (issue 26 §3): the track objects carry the library's ReplayGain
 * values (decisions §12); the player applies one of them through a Web Audio gain node between the
 * audio element and the speakers. Pure rules here; the audio graph is in player.ts.
 */

export type ReplayGainMode = 'off' | 'track' | 'album' | 'auto';

export const REPLAYGAIN_MODES: { value: ReplayGainMode; label: string }[] = [
  { value: 'auto', label: 'Automatic' },
  { value: 'track', label: 'Track' },
  { value: 'album', label: 'Album' },
  { value: 'off', label: 'Off' },
];

export interface ReplayGainValues {
  trackGain?: number;
  albumGain?: number;
  trackPeak?: number;
  albumPeak?: number;
}

export interface GainTrack {
  albumId?: number | null;
  discNumber?: number;
  trackNumber?: number;
  replayGain?: ReplayGainValues;
}

const MODE_KEY = 'tonearm.replayGain';

export function storedMode(storage: Pick<Storage, 'getItem'> = localStorage): ReplayGainMode {
  const v = storage.getItem(MODE_KEY);
  return v === 'off' || v === 'track' || v === 'album' || v === 'auto' ? v : 'auto';
}

export function storeMode(mode: ReplayGainMode, storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(MODE_KEY, mode);
}

const position = (t: GainTrack) => (t.discNumber ?? 1) * 10_000 + (t.trackNumber ?? 0);

/**
 * Whether the queue around `index` plays an album in order: a neighbour is from the same album and
 * comes right before (or after) it in disc and track order.
 */
export function playingAlbumInOrder(queue: readonly GainTrack[], index: number): boolean {
  const t = queue[index];
  if (!t || t.albumId == null) return false;
  const prev = queue[index - 1];
  const next = queue[index + 1];
  const sameAlbum = (o: GainTrack | undefined) => o !== undefined && o.albumId === t.albumId;
  return (sameAlbum(prev) && position(prev!) < position(t)) || (sameAlbum(next) && position(next!) > position(t));
}

/**
 * The linear gain for the track at `index`: its track or album gain (the other when one is missing;
 * automatic takes the album gain while an album plays in order), limited so the peak stays at or
 * below full scale. 1 when off or when the track has no values.
 */
export function replayGainFactor(queue: readonly GainTrack[], index: number, mode: ReplayGainMode): number {
  const rg = queue[index]?.replayGain;
  if (mode === 'off' || !rg) return 1;
  const album = mode === 'album' || (mode === 'auto' && playingAlbumInOrder(queue, index));
  const pick = album
    ? rg.albumGain !== undefined
      ? { gain: rg.albumGain, peak: rg.albumPeak }
      : { gain: rg.trackGain, peak: rg.trackPeak }
    : rg.trackGain !== undefined
      ? { gain: rg.trackGain, peak: rg.trackPeak }
      : { gain: rg.albumGain, peak: rg.albumPeak };
  if (pick.gain === undefined || !Number.isFinite(pick.gain)) return 1;
  let factor = 10 ** (pick.gain / 20);
  // Clipping prevention: the loudest sample times the gain stays at or below full scale.
  if (pick.peak !== undefined && pick.peak > 0) factor = Math.min(factor, 1 / pick.peak);
  return Math.round(factor * 1e6) / 1e6;
}
