import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Field, Loading, Notice, useAction, useAsync } from '../components/ui';
import { session } from '../session';
import { useStore } from '../store';
import { BASE } from '../base';
import { dateOnly, dateTime } from '../time';
import type { Answer } from '../wire.js';

/** GET /api/connect */
type ConnectInfo = Answer<'/api/connect'>;

/** GET /api/users/me/rest-keys */
type AppKey = Answer<'/api/users/me/rest-keys'>[number];

const isLoopbackHost = (host: string) => host === 'localhost' || host.startsWith('127.') || host === '[::1]';

/** The addresses to offer: the server's LAN addresses, and the one this browser uses when a phone could use it too. */
function serverAddresses(info: ConnectInfo): string[] {
  const urls = info.lanUrls.map((u) => u.url);
  const here = window.location.origin + BASE;
  if (!isLoopbackHost(window.location.hostname) && !urls.includes(here)) urls.unshift(here);
  return urls;
}

/** How to point a Subsonic-compatible player app (on a phone or another computer) at this server. */
export function ConnectScreen() {
  const info = useAsync((signal) => api<ConnectInfo>('/api/connect', { signal }), []);
  const user = useStore(session).user;
  const addresses = info.data ? serverAddresses(info.data) : [];
  return (
    <div class="connect">
      <h1>Connect an app</h1>
      <p class="muted">
        Player apps that speak the Subsonic API, on your phone or another computer, can play this library. Give the app the server address, your user name and
        a way to sign in.
      </p>
      {info.loading && !info.data && <Loading label="Finding this server’s addresses…" />}
      <ErrorMessage error={info.error} onRetry={info.reload} />
      {info.data && <AddressCard info={info.data} addresses={addresses} />}
      {info.data && <AppSettingsCard address={addresses[0] ?? window.location.origin + BASE} username={info.data.username ?? user?.username ?? null} />}
      {user ? (
        <AppKeysCard />
      ) : (
        <Card title="App keys" id="app-keys">
          <p class="muted">App keys belong to a user account. Sign in with your account to make one.</p>
        </Card>
      )}
    </div>
  );
}

function AddressCard({ info, addresses }: { info: ConnectInfo; addresses: string[] }) {
  return (
    <Card title="Server address" id="server-address">
      {addresses.length === 0 &&
        (info.listensOnLan ? (
          <Notice tone="warn" reveal={false}>No network address was found. Check that this computer is connected to your home network, then reload this page.</Notice>
        ) : (
          <Notice tone="warn" reveal={false}>
            <span>
              Tonearm listens on this computer only, so phones and other computers cannot reach it. Start it with <code>TONEARM_HOST=0.0.0.0</code> (in the
              desktop app: serve the local network) to connect an app. On this computer, the address is <code>{window.location.origin + BASE}</code>.
            </span>
          </Notice>
        ))}
      {addresses.length > 0 && (
        <>
          <p class="muted">Type this address into the app, or scan the code with your phone’s camera.</p>
          <ul class="address-list" aria-label="Server addresses">
            {addresses.map((url) => (
              <li key={url}>
                <AddressQr url={url} />
                <div class="address-text">
                  <code data-testid="server-address">{url}</code>
                  <CopyButton text={url} label={`Copy ${url}`} />
                </div>
              </li>
            ))}
          </ul>
          {addresses.length > 1 && <p class="hint">This computer has several network addresses; use the one of the network your phone is on.</p>}
        </>
      )}
    </Card>
  );
}

function AddressQr({ url }: { url: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then(
      (markup) => live && setSvg(markup),
      () => live && setSvg(null),
    );
    return () => void (live = false);
  }, [url]);
  if (!svg) return null;
  // The markup comes from the qrcode library, drawn from our own URL: no user HTML.
  return <div class="qr" role="img" aria-label={`QR code of ${url}`} dangerouslySetInnerHTML={{ __html: svg }} />;
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  if (!navigator.clipboard) return null;
  return (
    <button type="button" aria-label={label} onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function AppSettingsCard({ address, username }: { address: string; username: string | null }) {
  return (
    <Card title="What to enter in the app" id="app-settings">
      <dl class="summary app-settings">
        <dt>Server type</dt>
        <dd>Subsonic (also called OpenSubsonic, or Navidrome-compatible)</dd>
        <dt>Server address</dt>
        <dd>
          <code>{address}</code>
        </dd>
        <dt>User name</dt>
        <dd>{username ? <code data-testid="connect-username">{username}</code> : 'Your Tonearm user name'}</dd>
        <dt>Password or API key</dt>
        <dd>
          If the app offers <strong>API key</strong> sign-in, use an app key from below as the API key; it can be revoked on its own, without changing your
          password. Otherwise enter your Tonearm password.
        </dd>
        <dt>Legacy authentication</dt>
        <dd>
          Leave it off: with it off the app sends a salted token instead of the password. Switch it on only for an old app that cannot sign in otherwise; the
          password then travels with every request. Without HTTPS, anyone on your network could read either, so use these apps on a network you trust.
        </dd>
      </dl>
    </Card>
  );
}

function AppKeysCard() {
  const keys = useAsync((signal) => api<AppKey[]>('/api/users/me/rest-keys', { signal }), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);
  const create = useAction(async () => {
    const made = await api<AppKey & { key: string }>('/api/users/me/rest-keys', { method: 'POST', body: { name: name.trim() } });
    setCreated({ name: made.name, key: made.key });
    setName('');
    keys.reload();
  });
  const revoke = useAction(async (id: number) => {
    await api(`/api/users/me/rest-keys/${id}`, { method: 'DELETE' });
    setRevoking(null);
    keys.reload();
  });
  return (
    <Card title="App keys" id="app-keys">
      <p class="muted">Make one key per app or device, so you can revoke one without signing out the others.</p>
      <form
        class="app-key-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void create.trigger();
        }}
      >
        <Field id="app-key-name" label="Name of the app or device" placeholder="Phone" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={!name.trim() || create.busy}>
          {create.busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
      <ErrorMessage error={create.error} />
      {created && (
        <Notice tone="success">
          <p>
            New key for <strong>{created.name}</strong>. Copy it into the app now: it is shown only this once.
          </p>
          <div class="key-row">
            <code class="key" data-testid="new-app-key">
              {created.key}
            </code>
            <CopyButton text={created.key} label="Copy the new key" />
          </div>
        </Notice>
      )}
      {keys.loading && !keys.data && <Loading label="Loading your keys…" />}
      <ErrorMessage error={keys.error} onRetry={keys.reload} />
      {keys.data && keys.data.length === 0 && <p class="muted">You have no app keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <ul class="key-list" aria-label="Your app keys">
          {keys.data.map((k) => (
            <li key={k.id}>
              <div>
                <strong>{k.name}</strong> <code class="muted">{k.prefix}…</code>
                <div class="muted small">
                  Created {dateOnly(k.createdAt)} · {k.lastUsedAt ? `last used ${dateTime(k.lastUsedAt)}` : 'never used'}
                </div>
              </div>
              {revoking === k.id ? (
                <div class="confirm" role="group" aria-label={`Confirm revoking ${k.name}`}>
                  <p>Apps using this key stop working at once.</p>
                  <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.trigger(k.id)}>
                    {revoke.busy ? 'Revoking…' : 'Revoke now'}
                  </button>
                  <button type="button" onClick={() => setRevoking(null)}>
                    Cancel
                  </button>
                </div>
              ) : (
                <button type="button" class="danger" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k.id)}>
                  Revoke…
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={revoke.error} />
    </Card>
  );
}
