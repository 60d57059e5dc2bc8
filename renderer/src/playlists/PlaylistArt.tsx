import { useRef, useState } from 'preact/hooks';
import { ErrorMessage, useAction } from '../components/ui';
import { session } from '../session';
import { useStore } from '../store';
import { generateArtwork, removeArtwork, uploadArtwork } from './api';
import { artworkLabel, artworkSrc, uploadProblem, type PlaylistArtwork } from './logic';
import { withBase } from '../base';

/** A playlist's picture, or a lettered tile while it has none (or it fails to load). */
export function PlaylistArt({ artwork, name, size, class: cls = '' }: { artwork: PlaylistArtwork | null; name: string; size: number; class?: string }) {
  const { token } = useStore(session);
  const [failed, setFailed] = useState<string | null>(null);
  const src = artworkSrc(artwork, size, token);
  if (!src || failed === src) {
    const hue = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
    return (
      <div class={`art art-placeholder ${cls}`} style={{ '--hue': String(hue) }} aria-hidden="true">
        {name.trim().charAt(0).toUpperCase() || '♪'}
      </div>
    );
  }
  return <img class={`art ${cls}`} src={withBase(src)} alt={`Artwork of ${name}`} loading="lazy" decoding="async" onError={() => setFailed(src)} />;
}

export type Note = { tone: 'info' | 'success' | 'warn'; text: string };

/**
 * The picture of a playlist of any kind (static, shared) with, for an editor, upload, generate and
 * remove; `onChange` gets the new artwork, `onNote` what to tell the person.
 */
export function ArtworkBox({
  id,
  name,
  artwork,
  editable,
  onChange,
  onNote,
}: {
  id: string;
  name: string;
  artwork: PlaylistArtwork | null;
  editable: boolean;
  onChange: (artwork: PlaylistArtwork | null) => void;
  onNote: (note: Note) => void;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  const upload = useAction(async (file: File) => {
    const problem = uploadProblem(file);
    if (problem) return onNote({ tone: 'warn', text: problem });
    onChange(await uploadArtwork(id, file));
    onNote({ tone: 'success', text: 'Artwork uploaded.' });
  });
  const generate = useAction(async () => {
    onChange(await generateArtwork(id));
    onNote({ tone: 'success', text: 'Artwork generated from the album covers.' });
  });
  const clear = useAction(async () => {
    await removeArtwork(id);
    onChange(null);
    onNote({ tone: 'info', text: 'Artwork removed.' });
  });
  const busy = upload.busy || generate.busy || clear.busy;
  return (
    <div class="playlist-art-box">
      <PlaylistArt artwork={artwork} name={name} size={400} class="detail-art" />
      {editable && (
        <div class="artwork-actions" role="group" aria-label="Artwork">
          <input
            ref={fileInput}
            type="file"
            accept="image/jpeg,image/png,image/webp,image/gif,image/avif,image/tiff"
            class="visually-hidden"
            aria-label="Choose a picture to upload"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void upload.trigger(file);
            }}
          />
          <button type="button" disabled={busy} onClick={() => fileInput.current?.click()}>
            Upload…
          </button>
          <button type="button" disabled={busy} onClick={() => void generate.trigger()}>
            Generate
          </button>
          {artwork && (
            <button type="button" disabled={busy} onClick={() => void clear.trigger()}>
              Remove
            </button>
          )}
        </div>
      )}
      <p class="muted small">{artworkLabel(artwork)}</p>
      {[upload, generate, clear].map((a, i) => (
        <ErrorMessage key={i} error={a.error} />
      ))}
    </div>
  );
}
