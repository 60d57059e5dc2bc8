import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Card, Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Link } from '../router';
import {
  importOutcome,
  importTargets,
  playlistHref,
  playlistLine,
  sources,
  type ImportPreview,
  type ImportResult,
  type ImportSource,
  type ImportTarget,
  type SourcePlaylist,
} from './logic';
import { PreviewView } from './PreviewView';
import './imports.css';

/** Import playlists: pick a source, a playlist, preview what is owned, downloaded or missing, then import. */
export function ImportScreen() {
  const [source, setSource] = useState<ImportSource>('spotify');
  return (
    <div class="screen">
      <h1>Import playlists</h1>
      <div class="tabs" role="tablist" aria-label="Import from">
        {sources.map((s) => (
          <button key={s.id} type="button" role="tab" aria-selected={s.id === source} class={s.id === source ? 'active' : ''} onClick={() => setSource(s.id)}>
            {s.label}
          </button>
        ))}
      </div>
      <SourcePanel key={source} source={source} />
      <p class="muted">
        Have a JSPF or M3U file, or a playlist on the web? Import it as a shared playlist on the <Link href="/playlists">Playlists</Link> screen.
      </p>
    </div>
  );
}

function SourcePanel({ source }: { source: ImportSource }) {
  const info = sources.find((s) => s.id === source)!;
  const list = useAsync((signal) => api<{ playlists: SourcePlaylist[] }>(`/api/playlists/import/${source}/playlists`, { signal }), [source]);
  const [chosen, setChosen] = useState<SourcePlaylist | null>(null);
  const notLinked = list.error instanceof ApiError && list.error.code === 'NOT_CONFIGURED';
  return (
    <Card title={info.label}>
      {list.loading && !list.data && <Loading label="Reading your playlists…" />}
      {notLinked ? (
        <Notice tone="warn">
          {info.linkHint} <Link href="/settings/account">Open account settings</Link>
        </Notice>
      ) : (
        <ErrorMessage error={list.error} onRetry={list.reload} />
      )}
      {list.data && list.data.playlists.length === 0 && <Empty title="No playlists">There is nothing to import from {info.label} yet.</Empty>}
      {list.data && list.data.playlists.length > 0 && (
        <ul class="import-playlists">
          {list.data.playlists.map((p) => (
            <li key={p.id}>
              <button type="button" class={chosen?.id === p.id ? 'active' : ''} aria-pressed={chosen?.id === p.id} onClick={() => setChosen(p)}>
                <strong>{p.name}</strong> <span class="muted">{playlistLine(p)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && <ImportDialog key={chosen.id} source={source} playlist={chosen} onClose={() => setChosen(null)} />}
    </Card>
  );
}

function ImportDialog({ source, playlist, onClose }: { source: ImportSource; playlist: SourcePlaylist; onClose: () => void }) {
  const preview = useAsync(
    (signal) => api<ImportPreview>(`/api/playlists/import/${source}/preview`, { method: 'POST', body: { playlistId: playlist.id }, signal }),
    [source, playlist.id],
  );
  const [result, setResult] = useState<ImportResult | null>(null);
  const [target, setTarget] = useState<ImportTarget>('static');
  const run = useAction(async () => {
    const body = { playlistId: playlist.id, target };
    if (source === 'spotify') setResult((await api<{ imports: ImportResult[] }>('/api/playlists/import/spotify', { method: 'POST', body })).imports[0] ?? null);
    else setResult(await api<ImportResult>(`/api/playlists/import/${source}`, { method: 'POST', body }));
  });
  return (
    <div class="import-dialog" role="dialog" aria-label={`Import ${playlist.name}`}>
      {preview.loading && !preview.data && <Loading label="Matching the tracks against your library and MusicBrainz…" />}
      <ErrorMessage error={preview.error} onRetry={preview.reload} />
      {preview.data && <PreviewView preview={preview.data} />}
      {result ? (
        <Notice tone="success">
          {importOutcome(result)} <Link href={playlistHref(result.target)}>Open “{result.name}”</Link>
        </Notice>
      ) : (
        <div class="actions">
          <fieldset class="import-target">
            <legend>Import as</legend>
            {importTargets.map((t) => (
              <label key={t.id} class="check">
                <input type="radio" name={`import-target-${playlist.id}`} value={t.id} checked={target === t.id} onChange={() => setTarget(t.id)} />
                {t.label} <span class="muted small">({t.hint})</span>
              </label>
            ))}
          </fieldset>
          <button type="button" class="primary" disabled={!preview.data || run.busy || preview.data.total === 0} onClick={() => void run.trigger()}>
            {run.busy ? 'Importing…' : target === 'shared' ? 'Import as a shared playlist' : 'Import as a playlist'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      )}
      <ErrorMessage error={run.error} />
    </div>
  );
}
