import { useState } from 'preact/hooks';
import { api } from '../api';
import { PlexLinkCard } from '../plex/PlexLinkCard';
import { Card, ErrorMessage, Field, Loading, Notice, useAction, useAsync } from '../components/ui';
import { useLocation } from '../router';
import { session } from '../session';
import { useStore } from '../store';
import { SpotifyAccountCard } from '../imports/SpotifyAccount';
import { OidcIdentityCard } from './OidcIdentityCard';
import type { Answer } from '../wire.js';

const providers: { value: ListeningHistory['listenHistoryProvider']; label: string }[] = [
  { value: 'local', label: 'This server (your plays here)' },
  { value: 'lastfm', label: 'Last.fm' },
  { value: 'listenbrainz', label: 'ListenBrainz' },
  { value: 'koito', label: 'Koito' },
];

export function AccountSettings() {
  const user = useStore(session).user;
  return (
    <>
      <Card title="Account" id="account">
        <p>
          Signed in as <strong>{user?.username ?? 'the local network'}</strong>
          {user && <span class="badge">{user.role === 'admin' ? 'Administrator' : 'User'}</span>}
        </p>
      </Card>
      {user && <PasswordCard />}
      {user && <OidcIdentityCard />}
      {user && <ListeningServicesCard />}
      {user && <PlexLinkCard />}
      {user && <SpotifyAccountCard />}
      {user && <ListeningHistoryCard userId={user.id} />}
    </>
  );
}

function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    if (next.length < 8) throw new Error('The new password needs at least 8 characters.');
    if (next !== repeat) throw new Error('The two new passwords differ.');
    await api('/api/users/me/password', { method: 'POST', body: { currentPassword: current, newPassword: next } });
    setCurrent('');
    setNext('');
    setRepeat('');
    setDone(true);
  });
  return (
    <Card title="Password" id="password">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setDone(false);
          void change.trigger();
        }}
      >
        <Field id="pw-current" label="Current password" type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} required />
        <Field id="pw-new" label="New password" type="password" autoComplete="new-password" hint="At least 8 characters. Your other sessions will be signed out." value={next} onInput={(e) => setNext(e.currentTarget.value)} required />
        <Field id="pw-repeat" label="Repeat the new password" type="password" autoComplete="new-password" value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} required />
        <button type="submit" class="primary" disabled={change.busy}>
          {change.busy ? 'Changing…' : 'Change password'}
        </button>
        {done && <Notice tone="success">Password changed.</Notice>}
        <ErrorMessage error={change.error} />
      </form>
    </Card>
  );
}

type ListeningHistory = Answer<'/api/users/me/listening-history'>;

function ListeningHistoryCard({ userId }: { userId: number }) {
  const history = useAsync((signal) => api<ListeningHistory>('/api/users/me/listening-history', { signal }), []);
  return (
    <Card title="Listening history" id="history">
      <p class="muted">Where your plays are read from for recommendations.</p>
      {history.loading && !history.data && <Loading />}
      <ErrorMessage error={history.error} onRetry={history.reload} />
      {history.data && <ListeningHistoryForm userId={userId} initial={history.data} />}
    </Card>
  );
}

/** Starts from the saved values once; later reloads never overwrite what the user is typing. */
function ListeningHistoryForm({ userId, initial }: { userId: number; initial: ListeningHistory }) {
  const [provider, setProvider] = useState(initial.listenHistoryProvider);
  const [username, setUsername] = useState(initial.listenHistoryUsername ?? '');
  const [url, setUrl] = useState(initial.listenHistoryUrl ?? '');
  const [done, setDone] = useState(false);
  const remote = provider !== 'local';
  const save = useAction(async () => {
    const body = {
      listeningHistory: {
        provider,
        username: remote ? username.trim() || null : null,
        url: provider === 'koito' ? url.trim() || null : null,
      },
    };
    await api(`/api/users/${userId}`, { method: 'PATCH', body });
    setDone(true);
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setDone(false);
        void save.trigger();
      }}
    >
      <div class="field">
        <label for="lh-provider">Service</label>
        <select id="lh-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value as ListeningHistory['listenHistoryProvider'])}>
          {providers.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      {remote && <Field id="lh-user" label="User name on that service" value={username} onInput={(e) => setUsername(e.currentTarget.value)} />}
      {provider === 'koito' && (
        <Field id="lh-url" label="Koito address" value={url} placeholder="http://koito.lan:4110" onInput={(e) => setUrl(e.currentTarget.value)} />
      )}
      <button type="submit" class="primary" disabled={save.busy}>
        Save
      </button>
      {done && <Notice tone="success">Listening history saved.</Notice>}
      <ErrorMessage error={save.error} />
    </form>
  );
}

type ScrobblingStatus = Answer<'/api/scrobbling/status'>;
type ScrobbleService = keyof ScrobblingStatus;
type ServiceStatus = ScrobblingStatus[ScrobbleService];

const serviceLabels: Record<ScrobbleService, string> = { lastfm: 'Last.fm', listenbrainz: 'ListenBrainz', koito: 'Koito' };

/** Scrobbling: link Last.fm (its authorization page), ListenBrainz (user token) and Koito (address and API key). */
function ListeningServicesCard() {
  const status = useAsync((signal) => api<ScrobblingStatus>('/api/scrobbling/status', { signal }), []);
  const query = useLocation().query;
  const lastfmResult = query.get('lastfm');
  return (
    <Card title="Listening services" id="scrobbling">
      <p class="muted">Every track you finish playing is sent to each linked service (scrobbling).</p>
      {lastfmResult === 'linked' && <Notice tone="success">Last.fm is linked.</Notice>}
      {lastfmResult === 'error' && <Notice tone="warn">Last.fm was not linked: {query.get('message') ?? 'unknown error'}</Notice>}
      {status.loading && !status.data && <Loading />}
      <ErrorMessage error={status.error} onRetry={status.reload} />
      {status.data && (
        <ul class="service-list">
          {(Object.keys(serviceLabels) as ScrobbleService[]).map((service) => (
            <li key={service}>
              <ServiceRow service={service} status={status.data![service]} reload={status.reload} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function ServiceRow({ service, status, reload }: { service: ScrobbleService; status: ServiceStatus; reload: () => void }) {
  const [token, setToken] = useState('');
  const [url, setUrl] = useState('');
  const label = serviceLabels[service];
  const unlink = useAction(async () => {
    await api(`/api/scrobbling/${service}/link`, { method: 'DELETE' });
    reload();
  });
  const link = useAction(async () => {
    if (service === 'lastfm') {
      const answer = await api<{ linked: boolean; url?: string }>('/api/scrobbling/lastfm/link');
      if (answer.url) window.location.assign(answer.url);
      else reload();
      return;
    }
    await api(`/api/scrobbling/${service}/link`, { method: 'PUT', body: service === 'koito' ? { url: url.trim(), token: token.trim() } : { token: token.trim() } });
    setToken('');
    reload();
  });
  if (status.linked)
    return (
      <div>
        <strong>{label}</strong>: linked{status.username && <> as <strong>{status.username}</strong></>}{' '}
        <button type="button" disabled={unlink.busy} onClick={() => void unlink.trigger()}>
          Unlink
        </button>
        <ErrorMessage error={unlink.error} />
      </div>
    );
  if (!status.configured)
    return (
      <div>
        <strong>{label}</strong>: <span class="muted">not available on this server (an administrator sets its API key and secret)</span>
      </div>
    );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void link.trigger();
      }}
    >
      <strong>{label}</strong>
      {service === 'koito' && <Field id="scrobble-koito-url" label="Koito server address" value={url} placeholder="http://koito.lan:4110" onInput={(e) => setUrl(e.currentTarget.value)} required />}
      {service !== 'lastfm' && (
        <Field
          id={`scrobble-${service}-token`}
          label={service === 'koito' ? 'Koito API key' : 'ListenBrainz user token'}
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          required
        />
      )}
      <button type="submit" class="primary" disabled={link.busy}>
        {link.busy ? 'Linking…' : service === 'lastfm' ? 'Link with Last.fm…' : 'Link'}
      </button>
      <ErrorMessage error={link.error} />
    </form>
  );
}
