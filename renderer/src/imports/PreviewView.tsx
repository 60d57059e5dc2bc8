import { hiddenCount, previewSummary, type ImportPreview, type PreviewTrack } from './logic';

const headings = { owned: 'In your library', download: 'To download', unmatched: 'Not found', unchecked: 'Not checked yet' } as const;

function TrackList({ tracks, hidden }: { tracks: PreviewTrack[]; hidden: number }) {
  return (
    <ol class="import-tracks">
      {tracks.map((t) => (
        <li key={t.position} value={t.position + 1}>
          <span class="import-title">{t.title}</span> <span class="muted">— {t.artist}</span>
        </li>
      ))}
      {hidden > 0 && <li class="muted">and {hidden.toLocaleString('en')} more</li>}
    </ol>
  );
}

/** A preview: the counts, then each group's tracks (as many as the server listed). No state of its own. */
export function PreviewView({ preview }: { preview: ImportPreview }) {
  const summary = previewSummary(preview);
  return (
    <section class="import-preview" aria-label={`Preview of ${preview.playlist.name}`}>
      <h3>
        {preview.playlist.name} <span class="muted">({preview.total.toLocaleString('en')} tracks)</span>
      </h3>
      <ul class="import-counts">
        {summary.map((line) => (
          <li key={line.key} data-group={line.key}>
            {line.text}
          </li>
        ))}
      </ul>
      {!preview.matching.available && <p class="muted">MusicBrainz lookups are switched off in Settings, so tracks outside your library cannot be matched.</p>}
      {summary.map((line) =>
        preview[line.key].length > 0 ? (
          <details key={line.key} open={line.key === 'download'}>
            <summary>
              {headings[line.key]} ({preview.counts[line.key].toLocaleString('en')})
            </summary>
            <TrackList tracks={preview[line.key]} hidden={hiddenCount(preview, line.key)} />
          </details>
        ) : null,
      )}
    </section>
  );
}
