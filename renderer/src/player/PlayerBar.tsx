import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Artwork } from '../library/Artwork';
import { AddToPlaylist } from '../playlists/AddToPlaylist';
import { savableTrackIds } from '../playlists/logic';
import { Link } from '../router';
import { useStore } from '../store';
import { Icon } from '../components/icons';
import { formatDuration } from '../components/ui';
import { jumpTo, next, player, previous, seek, setReplayGainMode, setVolume, toggleMute, togglePlay } from './player';
import { REPLAYGAIN_MODES, type ReplayGainMode } from './replayGain';

/** The persistent player at the bottom of every signed-in screen. */
export function PlayerBar() {
  const s = useStore(player);
  const [showQueue, setShowQueue] = useState(false);
  const track = s.queue[s.index];
  const bar = usePlayerHeight(Boolean(track));
  if (!track) return null;
  const duration = s.duration || (track.durationMs ?? 0) / 1000;
  return (
    <section class="player" aria-label="Player" ref={bar}>
      {showQueue && (
        <div class="queue-panel" id="queue-panel">
          <div class="queue-actions">
            <h2>Queue</h2>
            <AddToPlaylist trackIds={() => savableTrackIds(s.queue)} text="Save queue as playlist" disabled={savableTrackIds(s.queue).length === 0} />
          </div>
          <ol>
            {s.queue.map((t, i) => (
              <li key={`${t.id}-${i}`}>
                <button type="button" class={i === s.index ? 'queue-item current' : 'queue-item'} aria-current={i === s.index ? 'true' : undefined} onClick={() => jumpTo(i)}>
                  <span class="queue-title">{t.title}</span>
                  <span class="muted">{t.artistName}</span>
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}
      <div class="player-track">
        <Artwork url={track.imageUrl} size={96} label={track.albumTitle ?? track.title} class="player-art" />
        <div class="player-text">
          <strong class="player-title" data-testid="now-playing">
            {track.title}
          </strong>
          <span class="muted player-artist">
            {track.artistId ? <Link href={`/library/artists/${track.artistId}`}>{track.artistName}</Link> : track.artistName}
          </span>
        </div>
      </div>
      <div class="player-controls">
        <div class="player-buttons">
          <button type="button" class="icon-button" onClick={previous} aria-label="Previous track">
            <Icon name="previous" />
          </button>
          <button type="button" class="icon-button play-button" onClick={togglePlay} aria-label={s.playing ? 'Pause' : 'Play'}>
            <Icon name={s.playing ? 'pause' : 'play'} size={22} />
          </button>
          <button type="button" class="icon-button" onClick={next} aria-label="Next track" disabled={s.index + 1 >= s.queue.length}>
            <Icon name="next" />
          </button>
        </div>
        <div class="player-seek">
          <span class="time" aria-hidden="true">
            {formatDuration(s.currentTime)}
          </span>
          <input
            type="range"
            min={0}
            max={Math.max(1, Math.floor(duration))}
            step={1}
            value={Math.floor(s.currentTime)}
            aria-label="Position"
            aria-valuetext={`${formatDuration(s.currentTime)} of ${formatDuration(duration)}`}
            onChange={(e) => seek(Number(e.currentTarget.value))}
          />
          <span class="time" aria-hidden="true">
            {formatDuration(duration)}
          </span>
        </div>
        {s.buffering && !s.error && (
          <span class="visually-hidden" role="status">
            Loading the track…
          </span>
        )}
        {s.error && (
          <span class="player-error" role="alert">
            {s.error}
          </span>
        )}
        {s.notice && !s.error && (
          <span class="player-notice" role="status" data-testid="player-notice">
            {s.notice}
          </span>
        )}
      </div>
      <div class="player-extra">
        <button type="button" class="icon-button" onClick={toggleMute} aria-label={s.muted ? 'Unmute' : 'Mute'}>
          <Icon name={s.muted || s.volume === 0 ? 'muted' : 'volume'} />
        </button>
        <input
          type="range"
          class="volume"
          min={0}
          max={1}
          step={0.05}
          value={s.muted ? 0 : s.volume}
          aria-label="Volume"
          onInput={(e) => setVolume(Number(e.currentTarget.value))}
        />
        <select
          class="replaygain-mode"
          aria-label="Volume levelling (ReplayGain)"
          title={s.gain !== 1 ? `Volume levelling: ${(20 * Math.log10(s.gain)).toFixed(1)} dB` : 'Volume levelling'}
          value={s.replayGainMode}
          onChange={(e) => setReplayGainMode(e.currentTarget.value as ReplayGainMode)}
        >
          {REPLAYGAIN_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.value === 'off' ? 'Levelling off' : `Level: ${m.label.toLowerCase()}`}
            </option>
          ))}
        </select>
        <button type="button" class="icon-button" aria-expanded={showQueue} aria-controls="queue-panel" aria-label="Show the queue" onClick={() => setShowQueue(!showQueue)}>
          <Icon name="queue" />
        </button>
      </div>
    </section>
  );
}

/**
 * Keeps --player-h at the bar's real height (it grows with a notice or on a narrow screen), so the
 * page's bottom padding and the scroll margin of messages always clear it; 0 while there is no bar.
 */
function usePlayerHeight(shown: boolean) {
  const ref = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const root = document.documentElement;
    const el = ref.current;
    if (!shown || !el) {
      root.style.setProperty('--player-h', '0px');
      return;
    }
    const update = () => root.style.setProperty('--player-h', `${Math.ceil(el.getBoundingClientRect().height)}px`);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => {
      observer.disconnect();
      root.style.setProperty('--player-h', '0px');
    };
  }, [shown]);
  return ref;
}
