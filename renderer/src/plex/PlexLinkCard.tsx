import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { plexLinkApi } from './api';
import { linkDescription } from './logic';
import { PinConnect } from './PinConnect';
import { useState } from 'preact/hooks';

/** Account settings: link your own Plex account (PIN sign-in), see the link, remove it. */
export function PlexLinkCard() {
  const status = useAsync((signal) => plexLinkApi.status(signal), []);
  const [justLinked, setJustLinked] = useState(false);
  const unlink = useAction(async () => {
    await plexLinkApi.unlink();
    setJustLinked(false);
    status.reload();
  });
  return (
    <Card title="Plex" id="plex-link">
      <p class="muted">Link your Plex account so playlists published to Plex are yours there.</p>
      {status.loading && !status.data && <Loading />}
      <ErrorMessage error={status.error} onRetry={status.reload} />
      {status.data && (
        <div>
          <p>
            <strong>Plex</strong>: {linkDescription(status.data)}
          </p>
          {status.data.lastError && <Notice tone="warn">Plex refused the link last time: {status.data.lastError}</Notice>}
          {justLinked && <Notice tone="success">Plex is linked.</Notice>}
          {status.data.linked ? (
            <button type="button" disabled={unlink.busy} onClick={() => void unlink.trigger()}>
              {unlink.busy ? 'Unlinking…' : 'Unlink Plex'}
            </button>
          ) : (
            <PinConnect
              label="Link with Plex…"
              start={plexLinkApi.startPin}
              check={plexLinkApi.checkPin}
              onLinked={() => {
                setJustLinked(true);
                status.reload();
              }}
            />
          )}
          <ErrorMessage error={unlink.error} />
        </div>
      )}
    </Card>
  );
}
