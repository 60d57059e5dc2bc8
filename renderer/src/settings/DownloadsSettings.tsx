import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { FolderBrowser } from '../components/FolderBrowser';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { qualityTiers, saveWorkerSettings, setWorkerRunning, workerSettings, type WorkerSettings, type WorkerSettingsPatch } from '../downloads/api';
import { parseWhole } from '../downloads/logic';
import { Link } from '../router';
import { SaveActions, SourceCard, type FieldSpec, type SourceSpec } from './SourceCard';
import { sourceCards, type HealthSources, type SourceWords } from './sourceCards';
import type { SettingsState } from './useSettings';
import type { Answer } from '../wire.js';
import { LidarrSettings } from './LidarrSettings';
import '../downloads/downloads.css';

/**
 * Where downloads go, Lidarr, how the worker runs, and a card per download source. The sources are
 * the server's one list (GET /api/health names them, GET /api/settings/download-clients lists their
 * programs); the tab waits for both, so every card is there at once.
 */
export function DownloadsSettings({ settings }: { settings: SettingsState }) {
  const sources = useAsync(
    (signal) =>
      Promise.all([
        api<Answer<'/api/health'>>('/api/health', { signal }),
        api<Answer<'/api/settings/download-clients'>>('/api/settings/download-clients', { signal }),
      ]).then(([health, answer]) => ({ names: health.downloadSources ?? {}, cards: sourceCards(health.downloadSources ?? {}, answer.clients, SOURCE_WORDS) })),
    [],
  );
  if (sources.loading && !sources.data) return <Loading label="Loading the download sources…" />;
  if (!sources.data) return <ErrorMessage error={sources.error} onRetry={sources.reload} />;
  return (
    <>
      <p class="muted">
        Tonearm downloads requested albums and tracks itself from the sources below, trying them in order of priority (lower first). Follow them on the{' '}
        <Link href="/downloads">Downloads</Link> screen.
      </p>
      <FolderCard settings={settings} />
      <LidarrSettings settings={settings} />
      <WorkerCard names={sources.data.names} />
      <ImportLimitCard settings={settings} />
      {sources.data.cards.map((card) => (
        <SourceCard key={card.id} settings={settings} title={card.title} id={card.anchor} intro={card.intro} specs={card.specs} />
      ))}
      <p class="muted">
        Push messages and webhooks (Gotify included) are set up under <Link href="/settings/notifications">Notifications</Link>.
      </p>
    </>
  );
}

// ---- downloads folder ----

function FolderCard({ settings }: { settings: SettingsState }) {
  const downloads = settings.data?.downloads as { folderPath?: string } | undefined;
  const saved = downloads?.folderPath ?? '';
  const [draft, setDraft] = useState<string | null>(null);
  const [browsing, setBrowsing] = useState(false);
  const [done, setDone] = useState(false);
  const value = draft ?? saved;
  const save = useAction(async () => {
    await settings.save({ downloads: { folderPath: value.trim() } });
    setDraft(null);
    setDone(true);
  });
  return (
    <Card title="Downloads folder" id="downloads-folder">
      <div class="field">
        <label for="downloads-folder-path">Downloads folder</label>
        <input
          id="downloads-folder-path"
          value={value}
          placeholder="<data folder>/downloads"
          aria-describedby="downloads-folder-path-hint"
          onInput={(e) => (setDraft(e.currentTarget.value), setDone(false))}
        />
        <small id="downloads-folder-path-hint" class="hint">
          Finished downloads are filed here as Artist/Album/NN Title; the library scans this folder too. Empty: the folder “downloads” in Tonearm’s data folder.
        </small>
      </div>
      {browsing ? (
        <FolderBrowser
          idPrefix="downloads-fs"
          chooseLabel="Use this folder"
          onChoose={(p) => {
            setDraft(p);
            setDone(false);
            setBrowsing(false);
          }}
        />
      ) : (
        <button type="button" onClick={() => setBrowsing(true)}>
          Choose a folder…
        </button>
      )}
      <div class="form-actions">
        <button type="button" class="primary" disabled={draft === null || draft === saved || save.busy} onClick={() => void save.trigger()}>
          {save.busy ? 'Saving…' : 'Save folder'}
        </button>
      </div>
      {done && <Notice tone="success">Downloads folder saved.</Notice>}
      <ErrorMessage error={save.error} />
    </Card>
  );
}

// ---- the import queue limit ----

/** downloads.importQueueLimit: how many downloads one person may have waiting after an import. */
function ImportLimitCard({ settings }: { settings: SettingsState }) {
  const downloads = settings.data?.downloads as { importQueueLimit?: number } | undefined;
  const saved = downloads?.importQueueLimit ?? 500;
  const [draft, setDraft] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const value = draft ?? String(saved);
  const parsed = parseWhole(value, 0, 1_000_000);
  const save = useAction(async () => {
    if (parsed === null) return;
    await settings.save({ downloads: { importQueueLimit: parsed } });
    setDraft(null);
    setDone(true);
  });
  return (
    <Card title="Imports" id="downloads-imports">
      <div class="field">
        <label for="downloads-import-limit">Import queue limit</label>
        <input
          id="downloads-import-limit"
          inputMode="numeric"
          value={value}
          aria-describedby="downloads-import-limit-hint"
          aria-invalid={parsed === null}
          onInput={(e) => (setDraft(e.currentTarget.value), setDone(false))}
        />
        <small id="downloads-import-limit-hint" class="hint">
          Downloads one person may have waiting or running when importing a playlist; an import that would queue more is refused with a message. 0: no limit.
        </small>
      </div>
      {parsed === null && <p class="error">Enter a whole number from 0 to 1,000,000.</p>}
      <div class="form-actions">
        <button type="button" class="primary" disabled={draft === null || parsed === null || parsed === saved || save.busy} onClick={() => void save.trigger()}>
          {save.busy ? 'Saving…' : 'Save limit'}
        </button>
      </div>
      {done && <Notice tone="success">Import queue limit saved.</Notice>}
      <ErrorMessage error={save.error} />
    </Card>
  );
}

// ---- the worker ----

type WorkerDraft = Record<keyof WorkerSettingsPatch, string | boolean>;

const toDraft = (w: WorkerSettings): WorkerDraft => ({
  concurrency: String(w.concurrency),
  existingFileMode: w.existingFileMode,
  durationToleranceSeconds: String(w.durationToleranceSeconds),
  minMatchScore: String(w.minMatchScore),
  retryPauseMinutes: String(w.retryPauseMinutes),
  blockedTimeoutHours: String(w.blockedTimeoutHours),
  preferLossless: w.preferLossless,
  qualityCutoff: w.qualityCutoff,
});

/** The draft as the server takes it, or the first field that is out of range. */
function fromDraft(d: WorkerDraft): { patch: WorkerSettingsPatch } | { error: string } {
  const whole = (key: keyof WorkerDraft, label: string, min: number, max: number) => {
    const n = parseWhole(String(d[key]), min, max);
    if (n === null) throw new Error(`${label}: enter a whole number from ${min} to ${max}`);
    return n;
  };
  try {
    const score = Number(d.minMatchScore);
    if (String(d.minMatchScore).trim() === '' || !Number.isFinite(score) || score < 0 || score > 1) throw new Error('Minimum match score: enter a number from 0 to 1');
    return {
      patch: {
        concurrency: whole('concurrency', 'Downloads at once', 1, 8),
        existingFileMode: d.existingFileMode === 'download' ? 'download' : 'reuse',
        durationToleranceSeconds: whole('durationToleranceSeconds', 'Duration tolerance', 1, 600),
        minMatchScore: score,
        retryPauseMinutes: whole('retryPauseMinutes', 'Pause before retrying', 0, 7 * 24 * 60),
        blockedTimeoutHours: whole('blockedTimeoutHours', 'Review deadline', 0, 24 * 365),
        preferLossless: d.preferLossless === true,
        qualityCutoff: qualityTiers.find((t) => t === d.qualityCutoff) ?? 'high',
      },
    };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** `names`: the sources' labels (GET /api/health `downloadSources`). */
function WorkerCard({ names }: { names: HealthSources }) {
  const worker = useAsync(async (signal): Promise<WorkerSettings | null> => {
    try {
      return await workerSettings(signal);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }, []);
  const [draft, setDraft] = useState<WorkerDraft | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const current = worker.data ? (draft ?? toDraft(worker.data)) : null;
  const set = (key: keyof WorkerDraft, value: string | boolean) => {
    if (!current) return;
    setDraft({ ...current, [key]: value });
    setInvalid(null);
    setDone(null);
  };
  const save = useAction(async () => {
    if (!current) return;
    const parsed = fromDraft(current);
    if ('error' in parsed) return setInvalid(parsed.error);
    worker.setData(await saveWorkerSettings(parsed.patch));
    setDraft(null);
    setDone('Worker settings saved.');
  });
  const toggle = useAction(async () => {
    if (!worker.data) return;
    const running = !worker.data.running;
    await setWorkerRunning(running);
    worker.setData({ ...worker.data, running });
    setDone(running ? 'The worker is running: waiting downloads start now.' : 'The worker is stopped: no new download starts; transfers under way finish.');
    worker.reload();
  });

  if (worker.loading && !worker.data) return <Card title="Download worker" id="worker"><Loading label="Loading the worker…" /></Card>;
  if (worker.error && !worker.data) return <Card title="Download worker" id="worker"><ErrorMessage error={worker.error} onRetry={worker.reload} /></Card>;
  if (!worker.data || !current)
    return (
      <Card title="Download worker" id="worker">
        <p class="muted">This server has no download worker.</p>
      </Card>
    );
  const w = worker.data;
  const order = w.sourcePriorities
    ? Object.entries(w.sourcePriorities)
        .filter((e): e is [string, number] => typeof e[1] === 'number')
        .sort((a, b) => a[1] - b[1])
    : [];
  return (
    <Card title="Download worker" id="worker">
      <div class="worker-state">
        <span class={`badge ${w.running ? 'status-done' : 'badge-warn'}`} data-testid="worker-state">
          {w.running ? 'Running' : 'Stopped'}
        </span>
        <button type="button" disabled={toggle.busy} onClick={() => void toggle.trigger()}>
          {w.running ? 'Stop the worker' : 'Start the worker'}
        </button>
      </div>
      <ErrorMessage error={toggle.error} />
      <div class="field-row">
        <NumberField id="worker-concurrency" label="Downloads at once" value={String(current.concurrency)} min={1} max={8} onInput={(v) => set('concurrency', v)} />
        <NumberField
          id="worker-duration"
          label="Duration tolerance (seconds)"
          hint="A file longer or shorter than the track by more than this is held for review."
          value={String(current.durationToleranceSeconds)}
          min={1}
          max={600}
          onInput={(v) => set('durationToleranceSeconds', v)}
        />
        <NumberField
          id="worker-score"
          label="Minimum match score"
          hint="0 to 1: how closely artist and title must match before a file is kept without review."
          value={String(current.minMatchScore)}
          min={0}
          max={1}
          step={0.05}
          onInput={(v) => set('minMatchScore', v)}
        />
        <NumberField
          id="worker-retry"
          label="Pause before retrying (minutes)"
          value={String(current.retryPauseMinutes)}
          min={0}
          max={7 * 24 * 60}
          onInput={(v) => set('retryPauseMinutes', v)}
        />
        <NumberField
          id="worker-blocked"
          label="Review deadline (hours)"
          hint="A held download nobody reviews fails after this long; 0 keeps it until someone does."
          value={String(current.blockedTimeoutHours)}
          min={0}
          max={24 * 365}
          onInput={(v) => set('blockedTimeoutHours', v)}
        />
      </div>
      <div class="field-row">
        <div class="field">
          <label for="worker-existing">Tracks already in the library</label>
          <select id="worker-existing" value={String(current.existingFileMode)} onChange={(e) => set('existingFileMode', e.currentTarget.value)}>
            <option value="reuse">Link them, do not download again</option>
            <option value="download">Download them again</option>
          </select>
        </div>
        <div class="field">
          <label for="worker-cutoff">Quality cutoff</label>
          <select id="worker-cutoff" value={String(current.qualityCutoff)} onChange={(e) => set('qualityCutoff', e.currentTarget.value)} aria-describedby="worker-cutoff-hint">
            {qualityTiers.map((t) => (
              <option key={t} value={t}>
                {t[0]!.toUpperCase() + t.slice(1)}
              </option>
            ))}
          </select>
          <small id="worker-cutoff-hint" class="hint">
            Files below this are searched again by quality upgrades.
          </small>
        </div>
      </div>
      <label class="check">
        <input type="checkbox" checked={current.preferLossless === true} onChange={(e) => set('preferLossless', e.currentTarget.checked)} />
        <span>Prefer lossless files</span>
      </label>
      {order.length > 0 && (
        <p class="muted small">
          Sources are tried in this order: {order.map(([id]) => names[id]?.label ?? id).join(', ')} (priorities {order.map(([, v]) => v).join(', ')}). Change a
          source’s priority in its card below.
        </p>
      )}
      <SaveActions label="Save worker settings" dirty={draft !== null} action={save} onDiscard={() => (setDraft(null), setInvalid(null))} invalid={invalid} done={done} />
    </Card>
  );
}

function NumberField(props: { id: string; label: string; hint?: string; value: string; min: number; max: number; step?: number; onInput: (value: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        inputMode={props.step ? 'decimal' : 'numeric'}
        min={props.min}
        max={props.max}
        step={props.step ?? 1}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
      />
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

// ---- sources ----

export const urlField = (name: string, placeholder: string): FieldSpec => ({ key: 'url', label: `${name} address`, kind: 'url', placeholder });
export const apiKeyField: FieldSpec = { key: 'apiKey', label: 'API key', kind: 'password' };

const slskdSpec: SourceSpec = {
  key: 'slskd',
  name: 'slskd',
  fields: [
    urlField('slskd', 'http://localhost:5030'),
    apiKeyField,
    {
      key: 'downloadPath',
      label: 'slskd downloads folder on this computer',
      hint: 'Only when slskd runs in a container or on another computer; empty: the folder slskd reports, once Test confirms it.',
    },
  ],
  priority: true,
  test: 'slskd',
  testFields: ['url', 'apiKey'],
  needs: ['url', 'apiKey'],
  folder: { setKey: 'downloadPath', confirmedKey: 'confirmedDownloadPath' },
};
const prowlarrSpec: SourceSpec = { key: 'prowlarr', name: 'Prowlarr', fields: [urlField('Prowlarr', 'http://localhost:9696'), apiKeyField], priority: false, test: 'prowlarr', testFields: ['url', 'apiKey'], needs: ['url', 'apiKey'] };
const completedField: FieldSpec = {
  key: 'completedPath',
  label: 'Completed folder on this computer',
  hint: 'Only when the client runs in a container or on another computer; empty: the folder it reports, once Test confirms it.',
};
const categoryField: FieldSpec = { key: 'category', label: 'Category', hint: 'Optional: the category Tonearm’s downloads are filed under.' };
const sabnzbdSpec: SourceSpec = {
  key: 'sabnzbd',
  name: 'SABnzbd',
  fields: [urlField('SABnzbd', 'http://localhost:8080'), apiKeyField, categoryField, completedField],
  priority: true,
  test: 'sabnzbd',
  testFields: ['url', 'apiKey'],
  needs: ['url', 'apiKey'],
  folder: { setKey: 'completedPath', confirmedKey: 'confirmedCompletedPath' },
};
const nzbgetSpec: SourceSpec = {
  key: 'nzbget',
  name: 'NZBGet',
  fields: [urlField('NZBGet', 'http://localhost:6789'), { key: 'username', label: 'User name' }, { key: 'password', label: 'Password', kind: 'password' }, categoryField, completedField],
  priority: true,
  test: 'nzbget',
  testFields: ['url', 'username', 'password'],
  needs: ['url'],
  folder: { setKey: 'completedPath', confirmedKey: 'confirmedCompletedPath' },
};
const ytdlpSpec: SourceSpec = {
  key: 'ytdlp',
  name: 'yt-dlp',
  fields: [
    { key: 'path', label: 'Program', hint: 'Empty: the yt-dlp found on the server’s PATH.', placeholder: 'yt-dlp' },
    { key: 'searchResults', label: 'Search results to consider', kind: 'number', min: 1, max: 20 },
  ],
  priority: true,
  test: 'ytdlp',
  testFields: ['path'],
};
/**
 * The UI's own words for the sources it knows (keyed by the server's source ids and program keys).
 * A source without an entry gets a card built from the server's description of its fields.
 */
const SOURCE_WORDS: Record<string, SourceWords> = {
  slskd: { intro: 'slskd is a Soulseek client with a web API; Tonearm searches it and downloads through it.', specs: { slskd: slskdSpec } },
  usenet: {
    intro: 'Prowlarr searches your Usenet indexers; SABnzbd or NZBGet downloads what Tonearm picks.',
    specs: { prowlarr: prowlarrSpec, sabnzbd: sabnzbdSpec, nzbget: nzbgetSpec },
  },
  ytdlp: { intro: 'yt-dlp is a command-line program on this server; Tonearm uses it as the last resort by default.', specs: { ytdlp: ytdlpSpec } },
};

export const gotifySpec: SourceSpec = {
  key: 'gotify',
  name: 'Gotify',
  fields: [urlField('Gotify', 'https://gotify.example.org'), { key: 'token', label: 'Application token', kind: 'password' }],
  priority: false,
  test: 'gotify',
  testFields: ['url', 'token'],
  needs: ['url', 'token'],
};

