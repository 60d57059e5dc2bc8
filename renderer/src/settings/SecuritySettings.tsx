import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { BASE } from '../base';
import { lanReasonText } from '../messages';
import type { SettingsState } from './useSettings';

export function SecuritySettings({ settings }: { settings: SettingsState }) {
  return (
    <>
      <ApiKeyCard />
      <LanCard settings={settings} />
      <CorsCard settings={settings} />
      <PrivateTargetsCard settings={settings} />
      <BasePathCard settings={settings} />
    </>
  );
}

function ApiKeyCard() {
  const key = useAsync((signal) => api<{ apiKey: string }>('/api/auth/api-key', { signal }), []);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [copied, setCopied] = useState(false);
  const [rotated, setRotated] = useState(false);
  const rotate = useAction(async () => {
    const next = await api<{ apiKey: string }>('/api/auth/api-key/rotate', { method: 'POST' });
    key.setData(next);
    setConfirming(false);
    setShown(true);
    setRotated(true);
  });
  const value = key.data?.apiKey ?? '';
  return (
    <Card title="API key" id="api-key">
      <p class="muted">
        Scripts and dashboards send this key as the <code>X-Api-Key</code> header. It acts as an administrator; keep it private.
      </p>
      {key.loading && !key.data && <Loading label="Reading the key…" />}
      <ErrorMessage error={key.error} onRetry={key.reload} />
      {key.data && (
        <div class="key-row">
          <code class="key" data-testid="api-key" aria-label="API key">
            {shown ? value : `${value.slice(0, 4)}${'•'.repeat(24)}${value.slice(-4)}`}
          </code>
          <button type="button" onClick={() => setShown(!shown)} aria-pressed={shown}>
            {shown ? 'Hide' : 'Show'}
          </button>
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard?.writeText(value).then(() => setCopied(true));
            }}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
      )}
      {!confirming ? (
        <button type="button" class="danger" onClick={() => setConfirming(true)} disabled={!key.data}>
          Rotate key…
        </button>
      ) : (
        <div class="confirm" role="group" aria-label="Confirm key rotation">
          <p>The current key stops working at once. Scripts using it must be updated.</p>
          <button type="button" class="danger" onClick={() => void rotate.trigger()} disabled={rotate.busy}>
            {rotate.busy ? 'Rotating…' : 'Rotate now'}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {rotated && <Notice tone="success">A new key was made; the old one no longer works.</Notice>}
      <ErrorMessage error={rotate.error} />
    </Card>
  );
}

interface LanStatus {
  localNetworkBypass?: { enabled: boolean; eligible: boolean; active: boolean; reason: string };
}

function LanCard({ settings }: { settings: SettingsState }) {
  const enabled = settings.data?.security.localNetworkBypass.enabled ?? false;
  const health = useAsync((signal) => api<LanStatus>('/api/health', { signal }), [enabled]);
  const toggle = useAction(async () => {
    try {
      await settings.save({ security: { localNetworkBypass: { enabled: !enabled } } });
    } finally {
      health.reload();
    }
  });
  const status = health.data?.localNetworkBypass;
  const why = status && !status.eligible ? lanReasonText(status.reason) : null;
  return (
    <Card title="LAN auto-login" id="lan">
      <p class="muted">
        Devices on this computer’s local network open Tonearm without signing in. Only possible while there is exactly one account and it is an administrator.
      </p>
      <label class="switch">
        <input type="checkbox" role="switch" checked={enabled} disabled={!settings.data || toggle.busy} onChange={() => void toggle.trigger()} />
        <span>Sign in automatically on the local network</span>
      </label>
      {why && (
        <p class="muted" data-testid="lan-status">
          {why}
        </p>
      )}
      <ErrorMessage error={toggle.error} />
    </Card>
  );
}

/**
 * The text of a setting being edited: it follows the saved value until someone types, keeps what
 * was typed, and says when the last save went through.
 */
function useSavedDraft(saved: string) {
  const [text, setText] = useState(saved);
  // A ref, not state: the effect below may run after the first keystroke and must see it.
  const edited = useRef(false);
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!edited.current) setText(saved);
  }, [saved]);
  return {
    text,
    done,
    type(value: string) {
      edited.current = true;
      setText(value);
      setDone(false);
    },
    saved() {
      edited.current = false;
      setDone(true);
    },
  };
}

/** A settings field that is a list of words, edited one per line. */
function ListCard(props: {
  settings: SettingsState;
  field: 'corsOrigins' | 'allowPrivateTargets';
  title: string;
  id: string;
  help: string;
  label: string;
  saveLabel: string;
  doneText: string;
}) {
  const { settings, field } = props;
  const draft = useSavedDraft((settings.data?.security[field] ?? []).join('\n'));
  const { text } = draft;
  const save = useAction(async () => {
    const entries = text
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    await settings.save({ security: { [field]: entries } });
    draft.saved();
  });
  const inputId = `${props.id}-list`;
  return (
    <Card title={props.title} id={props.id}>
      <p class="muted">{props.help}</p>
      <label for={inputId} class="visually-hidden">
        {props.label}
      </label>
      {/* Not editable before the saved list arrives: it would replace what was typed. */}
      <textarea id={inputId} rows={3} value={text} disabled={!settings.data} onInput={(e) => draft.type(e.currentTarget.value)} />
      <div class="form-actions">
        <button type="button" class="primary" disabled={save.busy || !settings.data} onClick={() => void save.trigger()}>
          {props.saveLabel}
        </button>
      </div>
      {draft.done && !save.error && <Notice tone="success">{props.doneText}</Notice>}
      <ErrorMessage error={save.error} />
    </Card>
  );
}

function CorsCard({ settings }: { settings: SettingsState }) {
  return (
    <ListCard
      settings={settings}
      field="corsOrigins"
      title="Allowed origins (CORS)"
      id="cors"
      help="Web pages on these origins may call the API from a browser. One origin per line, like http://dashboard.local:3000."
      label="Allowed origins"
      saveLabel="Save origins"
      doneText="Origins saved."
    />
  );
}

function PrivateTargetsCard({ settings }: { settings: SettingsState }) {
  return (
    <ListCard
      settings={settings}
      field="allowPrivateTargets"
      title="Private hosts people may use"
      id="private-targets"
      help="Podcast feeds, playlist imports and the Koito servers people link may reach these hosts on your network. Others than administrators cannot point Tonearm at any other private or loopback address. One host name or IP address per line, like koito.lan or 192.168.1.20."
      label="Private hosts"
      saveLabel="Save hosts"
      doneText="Hosts saved."
    />
  );
}

/** `network.basePath`: serve everything under a path, behind a reverse proxy; applies at the next start. */
function BasePathCard({ settings }: { settings: SettingsState }) {
  const draft = useSavedDraft(settings.data?.network?.basePath ?? '');
  const { text } = draft;
  const save = useAction(async () => {
    await settings.save({ network: { basePath: text.trim() } });
    draft.saved();
  });
  return (
    <Card title="Base path (behind a reverse proxy)" id="base-path">
      <p class="muted">
        To reach Tonearm at an address like https://home.example/music/ through a reverse proxy, enter <code>/music</code> and forward that path here
        unchanged. Everything moves under it: the web UI, the API, /rest for player apps and share links. It takes effect when the server starts
        again; the <code>TONEARM_BASE_PATH</code> variable, when set, wins over it.
      </p>
      <p class="muted" data-testid="base-path-now">
        Served now {BASE ? <>under <code>{BASE}/</code></> : 'at the root'}.
      </p>
      <label for="base-path-input">Base path</label>
      <input id="base-path-input" type="text" placeholder="/music" value={text} disabled={!settings.data} onInput={(e) => draft.type(e.currentTarget.value)} />
      <div class="form-actions">
        <button type="button" class="primary" disabled={save.busy || !settings.data} onClick={() => void save.trigger()}>
          Save base path
        </button>
      </div>
      {draft.done && !save.error && <Notice tone="success">Saved. Restart Tonearm to serve it {text.trim() && text.trim() !== '/' ? `under ${text.trim()}` : 'at the root'}.</Notice>}
      <ErrorMessage error={save.error} />
    </Card>
  );
}
