import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { FolderBrowser } from '../components/FolderBrowser';
import { ErrorMessage, Field, Notice, useAction, useAsync } from '../components/ui';
import { navigate } from '../router';
import { signIn, type User } from '../session';
import type { Answer } from '../wire.js';

interface Integrations {
  lidarr: boolean;
  navidrome: boolean;
}

type OnboardingResult = Answer<'/api/onboarding/complete', 'post'>;

/** Which optional integration steps this server offers: only those whose test route it serves. */
async function offeredIntegrations(signal: AbortSignal): Promise<Integrations> {
  try {
    const doc = await api<{ paths?: Record<string, unknown> }>('/api/openapi.json', { signal });
    const paths = doc.paths ?? {};
    return { lidarr: '/api/onboarding/lidarr/test' in paths, navidrome: '/api/onboarding/navidrome/test' in paths };
  } catch {
    return { lidarr: false, navidrome: false };
  }
}

type Step = 'account' | 'folders' | 'lidarr' | 'navidrome' | 'finish';

/** Folders the server was started with (TONEARM_MUSIC_DIRS): scanned whatever the wizard picks. */
async function environmentFolders(signal: AbortSignal): Promise<string[]> {
  try {
    return (await api<{ environmentMusicFolders: string[] }>('/api/onboarding/music-folders', { signal, anonymous: true })).environmentMusicFolders;
  } catch {
    return [];
  }
}

export function Onboarding({ onDone }: { onDone: () => void }) {
  const offered = useAsync(offeredIntegrations, []);
  const fromEnvironment = useAsync(environmentFolders, []).data ?? [];
  const [step, setStep] = useState<Step>('account');
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [folders, setFolders] = useState<string[]>([]);
  const [lidarr, setLidarr] = useState({ url: '', apiKey: '' });
  const [profiles, setProfiles] = useState<{ quality: Profile[]; metadata: Profile[] } | null>(null);
  const [lidarrChoice, setLidarrChoice] = useState({ qualityProfileId: '', metadataProfileId: '', rootFolderPath: '' });
  const [navidrome, setNavidrome] = useState({ url: '', username: '', password: '' });
  const [accountError, setAccountError] = useState<string | null>(null);

  const steps: Step[] = ['account', 'folders'];
  if (offered.data?.lidarr) steps.push('lidarr');
  if (offered.data?.navidrome) steps.push('navidrome');
  steps.push('finish');
  const index = steps.indexOf(step);
  const next = () => setStep(steps[index + 1] ?? 'finish');
  const back = () => setStep(steps[index - 1] ?? 'account');

  const finish = useAction(async () => {
    const body: Record<string, unknown> = { authUser: username.trim(), authPassword: password, musicFolders: folders };
    if (lidarr.url) {
      body.lidarr = {
        ...lidarr,
        ...(lidarrChoice.qualityProfileId && { qualityProfileId: Number(lidarrChoice.qualityProfileId) }),
        ...(lidarrChoice.metadataProfileId && { metadataProfileId: Number(lidarrChoice.metadataProfileId) }),
        ...(lidarrChoice.rootFolderPath.trim() && { rootFolderPath: lidarrChoice.rootFolderPath.trim() }),
      };
    }
    if (navidrome.url) body.navidrome = navidrome;
    const result = await api<OnboardingResult>('/api/onboarding/complete', { method: 'POST', body, anonymous: true });
    signIn(result.session.token, result.session.user);
    onDone();
    navigate(folders.length ? '/settings/library' : '/', { replace: true });
  });

  const titles: Record<Step, string> = {
    account: 'Administrator account',
    folders: 'Music folders',
    lidarr: 'Lidarr (optional)',
    navidrome: 'Navidrome (optional)',
    finish: 'Ready',
  };

  return (
    <main class="onboarding" id="main">
      <div class="onboarding-card">
        <p class="brand-line">
          <span class="logo" aria-hidden="true" /> Tonearm
        </p>
        <h1>Welcome! Let’s set up your library</h1>
        <ol class="steps" aria-label="Setup steps">
          {steps.map((s, i) => (
            <li key={s} aria-current={s === step ? 'step' : undefined} class={i < index ? 'done' : ''}>
              {titles[s]}
            </li>
          ))}
        </ol>

        {step === 'account' && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!username.trim()) return setAccountError('Choose a user name.');
              if (password.length < 8) return setAccountError('The password needs at least 8 characters.');
              if (password !== confirm) return setAccountError('The two passwords differ.');
              setAccountError(null);
              next();
            }}
          >
            <h2>{titles.account}</h2>
            <p class="muted">This account manages the server: settings, users and music folders.</p>
            <Field id="ob-user" label="User name" autoComplete="username" value={username} onInput={(e) => setUsername(e.currentTarget.value)} required />
            <Field id="ob-pass" label="Password" type="password" autoComplete="new-password" hint="At least 8 characters." value={password} onInput={(e) => (setPassword(e.currentTarget.value), setAccountError(null))} required />
            <Field id="ob-confirm" label="Repeat the password" type="password" autoComplete="new-password" value={confirm} onInput={(e) => (setConfirm(e.currentTarget.value), setAccountError(null))} required />
            {accountError && (
              <div class="error" role="alert">
                {accountError}
              </div>
            )}
            <div class="wizard-nav">
              <span />
              <button type="submit" class="primary">
                Next
              </button>
            </div>
          </form>
        )}

        {step === 'folders' && (
          <div>
            <h2>{titles.folders}</h2>
            <p class="muted">Pick the folders on this server that hold your music. You can change them later in Settings.</p>
            <FolderList folders={folders} fromEnvironment={fromEnvironment} onRemove={(f) => setFolders(folders.filter((x) => x !== f))} />
            <FolderBrowser idPrefix="ob-fs" onChoose={(p) => setFolders(folders.includes(p) || fromEnvironment.includes(p) ? folders : [...folders, p])} />
            <div class="wizard-nav">
              <button type="button" onClick={back}>
                Back
              </button>
              <button type="button" class="primary" onClick={next}>
                {folders.length || fromEnvironment.length ? 'Next' : 'Skip for now'}
              </button>
            </div>
          </div>
        )}

        {step === 'lidarr' && (
          <IntegrationStep
            title={titles.lidarr}
            intro="Connect Lidarr to request artists and albums. Leave empty to skip."
            testPath="/api/onboarding/lidarr/test"
            value={lidarr}
            fields={[
              { key: 'url', label: 'Lidarr address', placeholder: 'http://localhost:8686' },
              { key: 'apiKey', label: 'API key', type: 'password' },
            ]}
            onChange={(v) => {
              setLidarr(v as typeof lidarr);
              setProfiles(null);
            }}
            onTested={async () => {
              const [quality, metadata] = await Promise.all([
                api<Profile[]>('/api/onboarding/lidarr/profiles', { method: 'POST', body: lidarr, anonymous: true }),
                api<Profile[]>('/api/onboarding/lidarr/metadata-profiles', { method: 'POST', body: lidarr, anonymous: true }),
              ]);
              setProfiles({ quality, metadata });
              setLidarrChoice((c) => ({
                ...c,
                qualityProfileId: c.qualityProfileId || String(quality[0]?.id ?? ''),
                metadataProfileId: c.metadataProfileId || String(metadata[0]?.id ?? ''),
              }));
            }}
            onBack={back}
            onNext={next}
          >
            {profiles && (
              <div class="field-row">
                <ProfileSelect id="ob-quality" label="Quality profile" profiles={profiles.quality} value={lidarrChoice.qualityProfileId} onChange={(v) => setLidarrChoice({ ...lidarrChoice, qualityProfileId: v })} />
                <ProfileSelect id="ob-metadata" label="Metadata profile" profiles={profiles.metadata} value={lidarrChoice.metadataProfileId} onChange={(v) => setLidarrChoice({ ...lidarrChoice, metadataProfileId: v })} />
                <Field id="ob-root" label="Root folder in Lidarr (optional)" placeholder="/music" value={lidarrChoice.rootFolderPath} onInput={(e) => setLidarrChoice({ ...lidarrChoice, rootFolderPath: e.currentTarget.value })} />
              </div>
            )}
          </IntegrationStep>
        )}

        {step === 'navidrome' && (
          <IntegrationStep
            title={titles.navidrome}
            intro="Connect a Navidrome server. Leave empty to skip."
            testPath="/api/onboarding/navidrome/test"
            value={navidrome}
            fields={[
              { key: 'url', label: 'Navidrome address', placeholder: 'http://localhost:4533' },
              { key: 'username', label: 'User name' },
              { key: 'password', label: 'Password', type: 'password' },
            ]}
            onChange={(v) => setNavidrome(v as typeof navidrome)}
            onBack={back}
            onNext={next}
          />
        )}

        {step === 'finish' && (
          <div>
            <h2>{titles.finish}</h2>
            <dl class="summary">
              <dt>Administrator</dt>
              <dd>{username}</dd>
              <dt>Music folders</dt>
              <dd>{folders.length || fromEnvironment.length ? [...fromEnvironment, ...folders].join(', ') : 'None yet (add them in Settings)'}</dd>
              {offered.data?.lidarr && (
                <>
                  <dt>Lidarr</dt>
                  <dd>{lidarr.url || 'Not connected'}</dd>
                </>
              )}
              {offered.data?.navidrome && (
                <>
                  <dt>Navidrome</dt>
                  <dd>{navidrome.url || 'Not connected'}</dd>
                </>
              )}
            </dl>
            <ErrorMessage error={finish.error} />
            <div class="wizard-nav">
              <button type="button" onClick={back} disabled={finish.busy}>
                Back
              </button>
              <button type="button" class="primary" onClick={() => void finish.trigger()} disabled={finish.busy}>
                {finish.busy ? 'Setting up…' : 'Finish setup'}
              </button>
            </div>
          </div>
        )}
      </div>
    </main>
  );
}

/** The chosen folders (removable) after those given by TONEARM_MUSIC_DIRS (fixed: only the server's environment changes them). */
export function FolderList({ folders, fromEnvironment = [], onRemove }: { folders: string[]; fromEnvironment?: string[]; onRemove: (folder: string) => void }) {
  if (folders.length === 0 && fromEnvironment.length === 0) return <p class="muted">No music folder chosen yet.</p>;
  return (
    <>
      <ul class="folder-list" aria-label="Chosen music folders">
        {fromEnvironment.map((f) => (
          <li key={`env:${f}`} data-source="environment">
            <code>{f}</code>
            <span class="badge" title="Given by TONEARM_MUSIC_DIRS when the server was started; it can only be changed there.">
              From the environment (TONEARM_MUSIC_DIRS)
            </span>
          </li>
        ))}
        {folders.filter((f) => !fromEnvironment.includes(f)).map((f) => (
          <li key={f}>
            <code>{f}</code>
            <button type="button" class="link-button" onClick={() => onRemove(f)} aria-label={`Remove ${f}`}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {fromEnvironment.length > 0 && (
        <p class="hint">Folders from the environment are scanned too. They were given when the server started (TONEARM_MUSIC_DIRS) and can only be changed there.</p>
      )}
    </>
  );
}

export interface Profile {
  id: number;
  name: string;
}

/** A choice among Lidarr's quality or metadata profiles (the wizard's Lidarr step and Settings → Downloads). */
export function ProfileSelect({ id, label, profiles, value, onChange }: { id: string; label: string; profiles: Profile[]; value: string; onChange: (value: string) => void }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {profiles.map((p) => (
          <option key={p.id} value={String(p.id)}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}

interface IntegrationField {
  key: string;
  label: string;
  type?: 'text' | 'password';
  placeholder?: string;
}

function IntegrationStep(props: {
  title: string;
  intro: string;
  testPath: string;
  value: Record<string, string>;
  fields: IntegrationField[];
  onChange: (value: Record<string, string>) => void;
  onBack: () => void;
  onNext: () => void;
  /** Runs after a successful test (e.g. to load choices that need a working connection). */
  onTested?: () => Promise<void>;
  children?: ComponentChildren;
}) {
  const [result, setResult] = useState<string | null>(null);
  const test = useAction(async () => {
    setResult(null);
    const answer = await api<{ message?: string; version?: string }>(props.testPath, { method: 'POST', body: props.value, anonymous: true });
    setResult(answer.message ?? (answer.version ? `Connected (version ${answer.version})` : 'Connected'));
    await props.onTested?.();
  });
  const filled = Object.values(props.value).some((v) => v.trim() !== '');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onNext();
      }}
    >
      <h2>{props.title}</h2>
      <p class="muted">{props.intro}</p>
      {props.fields.map((f) => (
        <Field
          key={f.key}
          id={`ob-${props.testPath}-${f.key}`}
          label={f.label}
          type={f.type ?? 'text'}
          placeholder={f.placeholder}
          value={props.value[f.key] ?? ''}
          onInput={(e) => props.onChange({ ...props.value, [f.key]: e.currentTarget.value })}
        />
      ))}
      <button type="button" disabled={!filled || test.busy} onClick={() => void test.trigger()}>
        {test.busy ? 'Testing…' : 'Test connection'}
      </button>
      {result && <Notice tone="success">{result}</Notice>}
      <ErrorMessage error={test.error} />
      {props.children}
      <div class="wizard-nav">
        <button type="button" onClick={props.onBack}>
          Back
        </button>
        <button type="submit" class="primary">
          {filled ? 'Next' : 'Skip'}
        </button>
      </div>
    </form>
  );
}
