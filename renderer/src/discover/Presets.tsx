import { useEffect, useState } from 'preact/hooks';
import { Empty, ErrorMessage, Loading, useAsync, useReveal } from '../components/ui';
import { Artwork } from '../library/Artwork';
import type { Track } from '../library/model';
import { playTracks } from '../player/player';
import { loadPreviews, presetArtworkUrl, type Preset, type PresetPreview } from './api';
import { DiscoverSection, DiscoverTags } from './parts';
import { withBase } from '../base';

/** Editorial presets with their generated covers; a preset opens its previews, played in the player bar. */
export function Presets({ presets }: { presets: Preset[] }) {
  const [open, setOpen] = useState<Preset | null>(null);
  return (
    <DiscoverSection id="discover-presets" title="Playlists to explore">
      <ul class="grid preset-grid" aria-label="Editorial playlists">
        {presets.map((p) => (
          <li key={p.id} class="tile">
            <button type="button" class="tile-link preset-button" aria-expanded={open?.id === p.id} aria-controls="preset-previews" onClick={() => setOpen(open?.id === p.id ? null : p)}>
              <PresetArt preset={p} />
              <span class="tile-title">{p.name}</span>
              <span class="tile-sub muted">{p.description}</span>
            </button>
          </li>
        ))}
      </ul>
      {open && <PresetPreviews key={open.id} preset={open} />}
    </DiscoverSection>
  );
}

function PresetArt({ preset }: { preset: Preset }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    presetArtworkUrl(preset.id, 300).then(
      (u) => live && setSrc(u),
      () => undefined, // the lettered tile stays
    );
    return () => void (live = false);
  }, [preset.id]);
  if (!src) return <Artwork url={null} size={300} label={preset.name} class="tile-art" />;
  return <img class="art tile-art" src={withBase(src)} alt="" loading="lazy" decoding="async" />;
}

/** A preview as a player-bar track (negative ids: never a library track). */
export function previewTrack(p: PresetPreview): Track {
  return { id: -p.deezerTrackId, title: p.trackTitle, artistName: p.artistName, albumTitle: p.albumTitle, imageUrl: p.cover, previewUrl: p.previewUrl, durationMs: 30_000 };
}

function PresetPreviews({ preset }: { preset: Preset }) {
  const previews = useAsync((signal) => loadPreviews(preset.id, signal), [preset.id]);
  const list = previews.data?.previews ?? [];
  const tracks = list.map(previewTrack);
  // The previews open below the tiles, often below the fold: brought into view.
  const ref = useReveal<HTMLDivElement>(preset.id);
  return (
    <div id="preset-previews" class="preset-previews" ref={ref}>
      <h3>{preset.name}</h3>
      <DiscoverTags tags={preset.tags} label={`Tags of ${preset.name}`} />
      {previews.error ? <ErrorMessage error={previews.error} onRetry={previews.reload} /> : null}
      {previews.loading && !previews.data && <Loading label="Finding previews…" />}
      {previews.data && list.length === 0 && (
        <Empty title="No previews found for this playlist yet.">{previews.data.problem && <p>{previews.data.problem}</p>}</Empty>
      )}
      {list.length > 0 && (
        <>
          <button type="button" class="primary" onClick={() => playTracks(tracks)}>
            Play all previews
          </button>
          <ol class="preview-list" aria-label={`Previews of ${preset.name}`}>
            {list.map((p, i) => (
              <li key={p.deezerTrackId} class="preview">
                <Artwork url={p.cover} size={96} label={p.albumTitle ?? p.trackTitle} class="preview-art" />
                <div class="preview-text">
                  <span class="track-title">{p.trackTitle}</span>
                  <span class="muted small">{[p.artistName, p.albumTitle].filter(Boolean).join(' · ')}</span>
                </div>
                <button type="button" class="small-button" aria-label={`Play the preview of ${p.trackTitle} by ${p.artistName}`} onClick={() => playTracks(tracks, i)}>
                  Play
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
