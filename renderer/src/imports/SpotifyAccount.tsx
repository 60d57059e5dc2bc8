import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Link, navigate, useLocation } from '../router';
import { callbackCompletion, type SpotifyStatus } from './logic';
import { withBase } from '../base';

/** Account settings: connect Spotify (through the token broker, or PKCE with the server's own client id), its status, disconnect. */
export function SpotifyAccountCard() {
  const status = useAsync((signal) => api<SpotifyStatus>('/api/playlists/import/spotify/status', { signal }), []);
  const result = useLocation().query.get('spotify');
  const connect = useAction(async () => {
    const start = await api<{ url: string }>('/api/playlists/import/spotify/oauth/start', { method: 'POST' });
    window.location.assign(start.url);
  });
  const disconnect = useAction(async () => {
    await api('/api/playlists/import/spotify', { method: 'DELETE' });
    status.reload();
  });
  const s = status.data;
  return (
    <Card title="Spotify" id="spotify">
      <p class="muted">
        Connect Spotify to import your playlists (<Link href="/import">Import playlists</Link>). Tonearm only reads your playlists.
      </p>
      {result === 'connected' && <Notice tone="success">Spotify is connected.</Notice>}
      {status.loading && !s && <Loading />}
      <ErrorMessage error={status.error} onRetry={status.reload} />
      {s?.connected && (
        <div>
          Connected as <strong>{s.displayName ?? s.spotifyUserId}</strong>{' '}
          <button type="button" disabled={disconnect.busy} onClick={() => void disconnect.trigger()}>
            Disconnect
          </button>
          <ErrorMessage error={disconnect.error} />
        </div>
      )}
      {s && !s.connected && (
        <div>
          <button type="button" class="primary" disabled={connect.busy} onClick={() => void connect.trigger()}>
            {connect.busy ? 'Opening Spotify…' : 'Connect Spotify…'}
          </button>
          {s.method === 'pkce' && s.redirectUri && (
            <p class="muted">
              This server uses its own Spotify app; its redirect URI must be <code>{s.redirectUri}</code>.
            </p>
          )}
          <ErrorMessage error={connect.error} />
        </div>
      )}
    </Card>
  );
}

/** `/import/spotify/callback`: where Spotify or the token broker sends the browser back; finishes the connection. */
export function SpotifyCallbackScreen() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const parsed = callbackCompletion(window.location.search, window.location.hash);
    // The tokens leave the address bar (and the history) at once.
    history.replaceState(null, '', withBase('/import/spotify/callback'));
    if ('error' in parsed) return void setError(parsed.error);
    api('/api/playlists/import/spotify/oauth/complete', { method: 'POST', body: parsed.body }).then(
      () => navigate('/settings/account?spotify=connected', { replace: true }),
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, []);
  return (
    <div class="screen">
      <h1>Connecting Spotify</h1>
      {error ? (
        <Notice tone="warn">
          {error} <Link href="/settings/account">Back to account settings</Link>
        </Notice>
      ) : (
        <Loading label="Finishing the connection…" />
      )}
    </div>
  );
}
