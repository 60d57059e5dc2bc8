import { api } from '../api';
import type { Track } from '../library/model';
import type { Answer } from '../wire.js';
import { createStore } from '../store';
import { replayGainFactor, storeMode, storedMode, type ReplayGainMode } from './replayGain';
import { forgetStreamToken, streamToken, streamUrl } from './streamToken';
import { withBase } from '../base';

export interface PlayerState {
  queue: Track[];
  index: number;
  playing: boolean;
  buffering: boolean;
  currentTime: number;
  duration: number;
  volume: number;
  muted: boolean;
  error: string | null;
  /** A passing remark, like a track skipped because it could not be loaded. */
  notice: string | null;
  /** Volume levelling with the tracks' ReplayGain values (kept in this browser). */
  replayGainMode: ReplayGainMode;
  /** The linear gain applied to the current track (1 = none). */
  gain: number;
}

const VOLUME_KEY = 'tonearm.volume';
const storedVolume = () => {
  const v = Number(localStorage.getItem(VOLUME_KEY));
  return Number.isFinite(v) && v > 0 && v <= 1 ? v : 0.8;
};

export const player = createStore<PlayerState>({
  queue: [],
  index: -1,
  playing: false,
  buffering: false,
  currentTime: 0,
  duration: 0,
  volume: storedVolume(),
  muted: false,
  error: null,
  notice: null,
  replayGainMode: storedMode(),
  gain: 1,
});

const patch = (p: Partial<PlayerState>) => player.set((s) => ({ ...s, ...p }));

/** The one audio element of the page; kept in the DOM so tests and assistive tools can find it. */
export const audio = document.createElement('audio');
audio.preload = 'auto';
audio.dataset.testid = 'audio';
audio.volume = player.get().volume;
document.body.append(audio);

/**
 * The Web Audio path for ReplayGain: audio element → gain node → speakers. Built on the first
 * library track that needs a gain (a user's play starts it, so the context may run); never while
 * levelling is off. Once built, the element only sounds through it.
 */
let graph: { context: AudioContext; node: GainNode } | null = null;

function audioGraph(): typeof graph {
  if (graph) return graph;
  const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Context) return null;
  try {
    const context = new Context();
    const node = context.createGain();
    context.createMediaElementSource(audio).connect(node);
    node.connect(context.destination);
    graph = { context, node };
  } catch {
    graph = null;
  }
  return graph;
}

/** Sets the gain for the current track (ReplayGain mode, the queue around it, the clipping limit). */
function applyGain(): void {
  const { queue, index, replayGainMode } = player.get();
  const track = queue[index];
  const factor = track?.previewUrl ? 1 : replayGainFactor(queue, index, replayGainMode);
  const g = factor !== 1 || graph ? audioGraph() : null;
  if (g) {
    g.node.gain.value = factor;
    if (g.context.state === 'suspended') void g.context.resume().catch(() => undefined);
  }
  const applied = g ? factor : 1;
  // For tests and curious users: what the player applies right now.
  audio.dataset.replayGain = String(applied);
  audio.dataset.replayGainMode = replayGainMode;
  if (player.get().gain !== applied) patch({ gain: applied });
}

export function setReplayGainMode(mode: ReplayGainMode): void {
  storeMode(mode);
  patch({ replayGainMode: mode });
  applyGain();
}

/** When the token in audio.src was issued; a seek after it has aged reloads with a fresh one. */
let srcIssuedAt = 0;
let retried = false;
/** Tracks that failed one after another; when it reaches the queue's length, playback stops. */
let failedInARow = 0;
let noticeTimer: ReturnType<typeof setTimeout> | null = null;

function showNotice(text: string | null): void {
  if (noticeTimer) clearTimeout(noticeTimer);
  noticeTimer = text ? setTimeout(() => patch({ notice: null }), 10_000) : null;
  patch({ notice: text });
}
/** Listening time of the current track, for the play history (recorded once, like a scrobble). */
let listened = 0;
let lastTick = 0;
let recorded = false;

export function currentTrack(): Track | null {
  const { queue, index } = player.get();
  return queue[index] ?? null;
}

async function load(index: number, startAt = 0, autoplay = true): Promise<void> {
  const track = player.get().queue[index];
  if (!track) return;
  patch({ index, currentTime: startAt, duration: (track.durationMs ?? 0) / 1000, error: null, buffering: autoplay });
  if (startAt === 0) {
    listened = 0;
    recorded = false;
  }
  applyGain();
  try {
    if (track.previewUrl) {
      srcIssuedAt = Infinity; // no token to expire
      // Through the gain node, a preview from another site must be fetched with CORS to be heard.
      if (graph && new URL(track.previewUrl, location.href).origin !== location.origin) audio.crossOrigin = 'anonymous';
      else audio.removeAttribute('crossorigin');
      audio.src = withBase(track.previewUrl);
    } else {
      audio.removeAttribute('crossorigin');
      const { token } = await streamToken();
      if (player.get().index !== index) return; // another track was chosen meanwhile
      srcIssuedAt = Date.now();
      audio.src = withBase(streamUrl(track.id, token));
    }
    if (startAt > 0) audio.currentTime = startAt;
    updateMediaSession(track);
    if (autoplay) await audio.play();
  } catch (err) {
    if ((err as Error).name === 'AbortError') return; // superseded by another load
    if (audio.error) return; // the audio element's error event decides (retry or skip)
    patch({ playing: false, buffering: false, error: (err as Error).message || 'Playback failed' });
  }
  scheduleSave();
}

/** Replaces the queue and starts playing at `start`. */
export function playTracks(tracks: Track[], start = 0): void {
  const playable = tracks.filter((t) => t.available !== false);
  if (playable.length === 0) return;
  const first = tracks[start];
  const index = Math.max(0, first ? playable.indexOf(first) : 0);
  player.set((s) => ({ ...s, queue: playable, index }));
  failedInARow = 0;
  showNotice(null);
  void load(index);
}

export function enqueue(tracks: Track[]): void {
  const wasEmpty = player.get().queue.length === 0;
  player.set((s) => ({ ...s, queue: [...s.queue, ...tracks.filter((t) => t.available !== false)] }));
  if (wasEmpty) void load(0);
  else scheduleSave();
}

export function togglePlay(): void {
  if (!currentTrack()) return;
  if (!audio.src) {
    void load(player.get().index, player.get().currentTime);
    return;
  }
  if (audio.paused) void resume();
  else audio.pause();
}

async function resume() {
  if (Date.now() - srcIssuedAt > 100_000) {
    // The stream token in src may have expired; later range requests would be refused.
    await load(player.get().index, audio.currentTime);
    return;
  }
  audio.play().catch((err: Error) => patch({ error: err.message }));
}

export function next(): void {
  const { index, queue } = player.get();
  if (index + 1 < queue.length) void load(index + 1);
  else {
    audio.pause();
    patch({ playing: false });
  }
}

export function previous(): void {
  if (audio.currentTime > 3) {
    seek(0);
    return;
  }
  const { index } = player.get();
  if (index > 0) void load(index - 1);
  else seek(0);
}

export function jumpTo(index: number): void {
  failedInARow = 0;
  void load(index);
}

export function seek(seconds: number): void {
  if (!audio.src) {
    patch({ currentTime: seconds });
    return;
  }
  if (Date.now() - srcIssuedAt > 100_000) {
    void load(player.get().index, seconds, !audio.paused);
    return;
  }
  audio.currentTime = seconds;
  patch({ currentTime: seconds });
}

export function setVolume(volume: number): void {
  audio.volume = volume;
  audio.muted = false;
  localStorage.setItem(VOLUME_KEY, String(volume));
}

export function toggleMute(): void {
  audio.muted = !audio.muted;
}

/** Stops playback and forgets the queue locally (sign-out). */
export function resetPlayer(): void {
  audio.pause();
  audio.removeAttribute('src');
  audio.load();
  forgetStreamToken();
  failedInARow = 0;
  showNotice(null);
  patch({ queue: [], index: -1, playing: false, currentTime: 0, duration: 0, error: null });
}

audio.addEventListener('playing', () => {
  retried = false;
  failedInARow = 0;
  patch({ playing: true, buffering: false, error: null });
});
// A context made before the page was interacted with starts suspended; playing resumes it.
audio.addEventListener('play', () => {
  if (graph?.context.state === 'suspended') void graph.context.resume().catch(() => undefined);
});
audio.addEventListener('pause', () => {
  patch({ playing: false });
  scheduleSave(0);
});
audio.addEventListener('waiting', () => patch({ buffering: true }));
audio.addEventListener('timeupdate', () => {
  const t = audio.currentTime;
  const step = t - lastTick;
  if (step > 0 && step < 2) listened += step;
  lastTick = t;
  patch({ currentTime: t });
  maybeRecordPlay();
});
audio.addEventListener('seeked', () => (lastTick = audio.currentTime));

/** A play counts after half the track or four minutes of listening, as listening services count it. */
function maybeRecordPlay() {
  const track = currentTrack();
  if (!track || recorded || track.previewUrl) return;
  const duration = Number.isFinite(audio.duration) ? audio.duration : (track.durationMs ?? 0) / 1000;
  if (duration <= 0 || listened < Math.min(duration / 2, 240)) return;
  recorded = true;
  api('/api/play-events', { method: 'POST', body: { trackId: track.id, playedAt: Date.now(), source: 'web' } }).catch(() => {
    // history is best effort
  });
}
audio.addEventListener('durationchange', () => Number.isFinite(audio.duration) && patch({ duration: audio.duration }));
audio.addEventListener('volumechange', () => patch({ volume: audio.volume, muted: audio.muted }));
audio.addEventListener('ended', next);
audio.addEventListener('error', () => {
  if (!audio.src || !currentTrack()) return;
  // Most often an expired stream token: fetch a new one once and carry on from the same place.
  if (!retried) {
    retried = true;
    forgetStreamToken();
    void load(player.get().index, audio.currentTime || player.get().currentTime, true);
    return;
  }
  skipFailedTrack();
});

/**
 * A track that will not load is skipped with a word about it. Skipping stops at the end of the
 * queue (never wrapping round), so a queue where every track fails ends instead of looping.
 */
function skipFailedTrack(): void {
  const { queue, index } = player.get();
  const title = queue[index]?.title ?? 'This track';
  failedInARow++;
  retried = false;
  if (index + 1 >= queue.length) {
    audio.pause();
    showNotice(null);
    const error = failedInARow >= queue.length && queue.length > 1 ? 'None of the tracks in the queue could be played.' : `“${title}” could not be played.`;
    patch({ playing: false, buffering: false, error });
    return;
  }
  showNotice(`Skipped “${title}”: it could not be played.`);
  void load(index + 1);
}

function updateMediaSession(track: Track) {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.metadata = new MediaMetadata({
    title: track.title,
    artist: track.artistName,
    album: track.albumTitle ?? '',
    ...(track.imageUrl && { artwork: [{ src: `${track.imageUrl}?size=512`, sizes: '512x512' }] }),
  });
}

if ('mediaSession' in navigator) {
  navigator.mediaSession.setActionHandler('play', togglePlay);
  navigator.mediaSession.setActionHandler('pause', togglePlay);
  navigator.mediaSession.setActionHandler('nexttrack', next);
  navigator.mediaSession.setActionHandler('previoustrack', previous);
}

// --- the queue saved on the server ---------------------------------------------------------------

type SavedQueue = Answer<'/api/library/playback-queue'>;

/** Where the queue is saved, when this server has a route for it (found in its OpenAPI document). */
let saveMethod: 'PUT' | 'POST' | null = null;
let saveTimer: ReturnType<typeof setTimeout> | null = null;
let restoring = false;

export async function detectQueueSaving(): Promise<void> {
  try {
    const doc = await api<{ paths?: Record<string, Record<string, unknown>> }>('/api/openapi.json');
    const route = doc.paths?.['/api/library/playback-queue'] ?? {};
    saveMethod = 'put' in route ? 'PUT' : 'post' in route ? 'POST' : null;
  } catch {
    saveMethod = null;
  }
}

export function queueSavingAvailable(): boolean {
  return saveMethod !== null;
}

function scheduleSave(delay = 1500) {
  // A queue of Discover previews is not the library's: the saved queue stays as it was.
  if (!saveMethod || restoring || player.get().queue.some((t) => t.previewUrl)) return;
  if (saveTimer) clearTimeout(saveTimer);
  saveTimer = setTimeout(() => void saveQueue(), delay);
}

async function saveQueue(): Promise<void> {
  saveTimer = null;
  if (!saveMethod) return;
  const { queue, index } = player.get();
  try {
    await api('/api/library/playback-queue', {
      method: saveMethod,
      body: { trackIds: queue.map((t) => t.id), currentIndex: Math.max(0, index), positionMs: Math.round(audio.currentTime * 1000) },
    });
  } catch {
    // Saving is best effort; playback goes on.
  }
}

/** Loads the queue saved on the server (up to 500 entries), paused at the saved position. */
export async function restoreQueue(): Promise<void> {
  if (player.get().queue.length > 0) return;
  restoring = true;
  try {
    const tracks: Track[] = [];
    let state: SavedQueue | null = null;
    for (let page = 1; page <= 5; page++) {
      state = await api<SavedQueue>('/api/library/playback-queue', { query: { page, pageSize: 100 } });
      for (const item of state.items) if (item.track) tracks.push(item.track);
      if (!state.hasMore) break;
    }
    if (!state || tracks.length === 0 || player.get().queue.length > 0) return;
    const index = Math.min(Math.max(0, state.currentIndex), tracks.length - 1);
    const track = tracks[index]!;
    player.set((s) => ({ ...s, queue: tracks, index, currentTime: state.positionMs / 1000, duration: (track.durationMs ?? 0) / 1000 }));
  } catch {
    // No saved queue (or no route for it): start empty.
  } finally {
    restoring = false;
  }
}

setInterval(() => {
  if (audio.paused) return;
  scheduleSave(0);
  // Keep a fresh stream token at hand, so the next track or a late seek never waits for one.
  streamToken().catch(() => undefined);
}, 15_000);
