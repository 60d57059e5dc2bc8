import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api';
import { Card, Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import type { Track } from '../library/model';
import { playTracks } from '../player/player';
import { streamToken } from '../player/streamToken';
import { isAdmin, session } from '../session';
import { listen, socketState } from '../socket';
import { useStore } from '../store';
import { MIX_SOURCES, flowsApi, jobStreamUrl, type Flow, type FlowInput, type FlowJob, type PlaylistStatus } from './api';
import { DAY_NAMES, SOURCE_LABELS, emptyForm, formOf, inputOf, mixSummary, progressLine, scheduleSummary, when, type FormState } from './logic';
import './flows.css';

/** How often the status is read when /ws is not open (the push keeps it current otherwise). */
const POLL_MS = 5000;

/**
 * Flows (issue 14 item 7): the user's flows with their switch, schedule, last and next run and live
 * progress from `playlist_status`; create from a template or from scratch, edit, delete, run now, the
 * tracks of the current run (play, search again), keep as a static playlist, the Lidarr import list.
 */
export function FlowsScreen() {
  const { user } = useStore(session);
  if (!user || !(isAdmin(user) || user.permissions?.accessFlow))
    return (
      <Empty title="Flows are not available">
        <p>Your account cannot use flows. Ask an administrator for the “Flows” permission.</p>
      </Empty>
    );
  return <Flows />;
}

/** The status from GET /api/playlists/status, replaced by every `playlist_status` push; polled while /ws is down. */
function useFlowStatus() {
  const [status, setStatusValue] = useState<PlaylistStatus | null>(null);
  const [tick, setTick] = useState(0);
  const setStatus = (s: PlaylistStatus) => {
    setStatusValue(s);
    setTick((t) => t + 1);
  };
  const [error, setError] = useState<unknown>(null);
  const refresh = () =>
    flowsApi.status().then(
      (s) => {
        setStatus(s);
        setError(null);
      },
      (err: unknown) => setError(err),
    );
  useEffect(() => {
    void refresh();
    const stop = listen(['playlists'], (msg) => {
      if (msg.type === 'playlist_status') setStatus(msg as unknown as PlaylistStatus);
    });
    const poll = setInterval(() => {
      if (socketState.get() !== 'open') void refresh();
    }, POLL_MS);
    return () => {
      stop();
      clearInterval(poll);
    };
  }, []);
  return { status, tick, error, refresh };
}

function Flows() {
  const { status, tick, error, refresh } = useFlowStatus();
  const [creating, setCreating] = useState(false);
  if (!status) return error ? <ErrorMessage error={error} onRetry={() => void refresh()} /> : <Loading label="Loading flows…" />;
  const queued = new Set((status.operationQueue?.items ?? []).filter((o) => o.type === 'run').map((o) => o.flowId));
  return (
    <div class="flows-screen">
      <header class="page-header">
        <h1>Flows</h1>
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          {creating ? 'Close' : 'New flow'}
        </button>
      </header>
      <p class="muted" data-testid="flows-hint">
        {status.hint.message}
      </p>
      {creating && (
        <CreateFlow
          onCreated={() => {
            setCreating(false);
            void refresh();
          }}
        />
      )}
      {status.flows.length === 0 ? (
        <Empty title="No flows yet">
          <p>A flow is a playlist that fills itself on a schedule: pick a template or mix your own sources.</p>
        </Empty>
      ) : (
        <ul class="flow-list" aria-label="Your flows">
          {status.flows.map((f) => (
            <FlowItem key={f.id} flow={f} queued={queued.has(f.id)} tick={tick} onChanged={() => void refresh()} />
          ))}
        </ul>
      )}
    </div>
  );
}

// ---- creating ----------------------------------------------------------------------------------

function CreateFlow({ onCreated }: { onCreated: () => void }) {
  const templates = useAsync(() => flowsApi.templates(), []);
  const fromTemplate = useAction(async (id: string) => {
    await flowsApi.createFromTemplate(id);
    onCreated();
  });
  return (
    <div class="flow-create">
      <Card title="Start from a template" id="flow-templates">
        {templates.error ? (
          <ErrorMessage error={templates.error} onRetry={templates.reload} />
        ) : !templates.data ? (
          <Loading />
        ) : (
          <ul class="flow-templates" aria-label="Templates">
            {templates.data.map((t) => (
              <li key={t.id} class="flow-template" data-template={t.id}>
                <div>
                  <strong>{t.name}</strong>
                  <p class="muted small">{t.description}</p>
                  {!t.available && t.reason && <p class="small warn">{t.reason}</p>}
                </div>
                <button type="button" disabled={!t.available || fromTemplate.busy} aria-label={`Create ${t.name}`} onClick={() => void fromTemplate.trigger(t.id)}>
                  Create
                </button>
              </li>
            ))}
          </ul>
        )}
        {fromTemplate.error !== null && (
          <p role="alert" class="form-error">
            {errorText(fromTemplate.error)}
          </p>
        )}
      </Card>
      <Card title="From scratch" id="flow-scratch">
        <FlowForm
          prefix="new-flow"
          initial={emptyForm()}
          submitLabel="Create flow"
          onSubmit={async (input) => {
            await flowsApi.create(input);
            onCreated();
          }}
        />
      </Card>
    </div>
  );
}

function FlowForm({ prefix, initial, submitLabel, onSubmit, onCancel }: { prefix: string; initial: FormState; submitLabel: string; onSubmit: (input: FlowInput) => Promise<void>; onCancel?: () => void }) {
  const [form, setForm] = useState<FormState>(initial);
  const save = useAction(() => onSubmit(inputOf(form)));
  const set = (p: Partial<FormState>) => setForm((f) => ({ ...f, ...p }));
  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const total = MIX_SOURCES.reduce((a, s) => a + form.mix[s], 0);
  const id = (name: string) => `${prefix}-${name}`;
  return (
    <form
      class="flow-form"
      aria-label={submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        void save.trigger();
      }}
    >
      <div class="field">
        <label for={id('name')}>Name</label>
        <input id={id('name')} aria-label="Name" value={form.name} onInput={(e) => set({ name: value(e) })} />
      </div>
      <fieldset class="flow-mix">
        <legend>Sources (percent of the tracks)</legend>
        {MIX_SOURCES.map((s) => (
          <div class="flow-slider" key={s}>
            <label for={id(`mix-${s}`)}>{SOURCE_LABELS[s]}</label>
            <input
              id={id(`mix-${s}`)}
              type="range"
              min={0}
              max={100}
              step={5}
              aria-label={`${SOURCE_LABELS[s]} percent`}
              value={String(form.mix[s])}
              onInput={(e) => {
                const v = Number(value(e));
                setForm((f) => ({ ...f, mix: { ...f.mix, [s]: v } }));
              }}
            />
            <output>{form.mix[s]}%</output>
          </div>
        ))}
        <p class="muted small">{total > 0 ? `${total === 100 ? '' : `Weights add up to ${total}; they are used as proportions. `}` : 'Choose at least one source.'}</p>
      </fieldset>
      {form.mix.focus > 0 && (
        <div class="flow-focus">
          <div class="field">
            <label for={id('tags')}>Focus tags</label>
            <input id={id('tags')} aria-label="Focus tags" placeholder="shoegaze, dream pop" value={form.tags} onInput={(e) => set({ tags: value(e) })} />
          </div>
          <div class="field">
            <label for={id('related')}>Related artists</label>
            <input id={id('related')} aria-label="Related artists" placeholder="Artist one, Artist two" value={form.relatedArtists} onInput={(e) => set({ relatedArtists: value(e) })} />
          </div>
        </div>
      )}
      <div class="flow-row">
        <div class="field">
          <label for={id('size')}>Tracks</label>
          <input id={id('size')} aria-label="Tracks" type="number" min={1} max={500} value={form.size} onInput={(e) => set({ size: value(e) })} />
        </div>
        <div class="field">
          <label for={id('year-from')}>From year</label>
          <input id={id('year-from')} aria-label="From year" type="number" placeholder="any" value={form.yearFrom} onInput={(e) => set({ yearFrom: value(e) })} />
        </div>
        <div class="field">
          <label for={id('year-to')}>To year</label>
          <input id={id('year-to')} aria-label="To year" type="number" placeholder="any" value={form.yearTo} onInput={(e) => set({ yearTo: value(e) })} />
        </div>
      </div>
      <label class="check">
        <input type="checkbox" aria-label="Deep dive" checked={form.deepDive} onChange={(e) => set({ deepDive: (e.currentTarget as HTMLInputElement).checked })} /> Deep dive (less popular tracks)
      </label>
      <label class="check">
        <input type="checkbox" aria-label="One track per artist" checked={form.onePerArtist} onChange={(e) => set({ onePerArtist: (e.currentTarget as HTMLInputElement).checked })} /> One track per artist
      </label>
      <label class="check">
        <input type="checkbox" aria-label="Show in library" checked={form.showInLibrary} onChange={(e) => set({ showInLibrary: (e.currentTarget as HTMLInputElement).checked })} /> Show its tracks in the library
        (else only this flow's playlist holds them)
      </label>
      <fieldset class="flow-days">
        <legend>Runs on</legend>
        {DAY_NAMES.map((d, i) => (
          <label class="check" key={d}>
            <input
              type="checkbox"
              aria-label={d}
              checked={form.scheduleDays.includes(i)}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                setForm((f) => ({ ...f, scheduleDays: on ? [...f.scheduleDays.filter((x) => x !== i), i] : f.scheduleDays.filter((x) => x !== i) }));
              }}
            />{' '}
            {d.slice(0, 3)}
          </label>
        ))}
        <div class="field">
          <label for={id('time')}>At</label>
          <input id={id('time')} aria-label="At" type="time" value={form.scheduleTime} onInput={(e) => set({ scheduleTime: value(e) })} />
        </div>
      </fieldset>
      {save.error !== null && (
        <p role="alert" class="form-error">
          {errorText(save.error)}
        </p>
      )}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={save.busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

// ---- one flow ----------------------------------------------------------------------------------

function FlowItem({ flow, queued, tick, onChanged }: { flow: Flow; queued: boolean; tick: number; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [showTracks, setShowTracks] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [feed, setFeed] = useState<{ url: string; itemCount: number } | null>(null);
  const act = useAction(async (run: () => Promise<unknown>) => {
    setNote(null);
    await run();
    onChanged();
  });
  const toggle = (enabled: boolean) => void act.trigger(() => flowsApi.setEnabled(flow.id, enabled));
  const runNow = () => void act.trigger(() => flowsApi.start(flow.id).then(() => setNote(`${flow.name} is queued to run`)));
  const remove = () => void act.trigger(() => flowsApi.remove(flow.id));
  const keep = () => void act.trigger(() => flowsApi.keepAsStatic(flow.id).then((r) => setNote(`Kept ${r.trackCount} track${r.trackCount === 1 ? '' : 's'} as the playlist “${r.name}”`)));
  const importList = () => void act.trigger(() => flowsApi.importList(flow.id).then((r) => setFeed({ url: new URL(r.url, window.location.origin).href, itemCount: r.itemCount })));
  // The tracks reload when the counts change, and on every status while something downloads (its progress).
  const statsKey = JSON.stringify([flow.stats, flow.currentRun?.id, flow.currentRun?.status, flow.stats.downloading ? tick : 0]);

  return (
    <li class="flow-item card" data-flow={flow.name}>
      <header class="flow-head">
        <div>
          <h2 class="flow-name">{flow.name}</h2>
          <p class="muted small">
            {mixSummary(flow.mix)} · {flow.size} tracks{flow.deepDive ? ' · deep dive' : ''}
            {flow.owner ? ` · ${flow.owner}` : ''}
          </p>
        </div>
        <label class="switch">
          <input type="checkbox" role="switch" aria-label={`Enabled: ${flow.name}`} checked={flow.enabled} disabled={act.busy} onChange={(e) => toggle((e.currentTarget as HTMLInputElement).checked)} />
          <span>{flow.enabled ? 'On' : 'Off'}</span>
        </label>
      </header>
      <dl class="flow-facts">
        <dt>Schedule</dt>
        <dd data-testid="flow-schedule">{scheduleSummary(flow.scheduleDays, flow.scheduleTime)}</dd>
        <dt>Last run</dt>
        <dd>{when(flow.lastRunAt)}</dd>
        <dt>Next run</dt>
        <dd>{flow.enabled ? when(flow.nextRunAt) : 'switched off'}</dd>
      </dl>
      <p class="flow-progress" data-testid="flow-progress" aria-live="polite">
        {progressLine(flow, queued)}
      </p>
      {flow.currentRun && flow.currentRun.planned > 0 && (
        <progress max={flow.currentRun.planned} value={Math.min(flow.stats.done ?? 0, flow.currentRun.planned)} aria-label={`Downloaded tracks of ${flow.name}`} />
      )}
      {flow.lastError && <p class="small warn">{flow.lastError}</p>}
      <div class="flow-actions">
        <button type="button" class="primary" disabled={act.busy || queued} onClick={runNow} aria-label={`Run ${flow.name} now`}>
          Run now
        </button>
        <button type="button" aria-expanded={showTracks} onClick={() => setShowTracks(!showTracks)} aria-label={`${showTracks ? 'Hide' : 'Show'} the tracks of ${flow.name}`}>
          Tracks
        </button>
        <button type="button" onClick={() => setEditing(!editing)} aria-label={`Edit ${flow.name}`}>
          Edit
        </button>
        <button type="button" disabled={act.busy || (flow.stats.done ?? 0) === 0} onClick={keep} aria-label={`Keep ${flow.name} as a static playlist`}>
          Keep as playlist
        </button>
        <button type="button" disabled={act.busy} onClick={importList} aria-label={`Lidarr import list of ${flow.name}`}>
          Lidarr list
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)} aria-label={`Delete ${flow.name}`}>
          Delete
        </button>
      </div>
      {confirming && (
        <div class="flow-confirm" role="alertdialog" aria-label={`Delete ${flow.name}?`}>
          <p>Delete “{flow.name}”? Its downloads stop; files nothing else uses are removed.</p>
          <button type="button" class="danger" disabled={act.busy} onClick={remove}>
            Delete for good
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      {note && <Notice tone="success">{note}</Notice>}
      {act.error !== null && (
        <p role="alert" class="form-error">
          {errorText(act.error)}
        </p>
      )}
      {feed && (
        <div class="flow-feed">
          <label>
            Lidarr Custom List URL ({feed.itemCount} artist{feed.itemCount === 1 ? '' : 's'})
            <input readOnly value={feed.url} aria-label={`Lidarr import list URL of ${flow.name}`} onFocus={(e) => (e.currentTarget as HTMLInputElement).select?.()} />
          </label>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(feed.url).then(() => setNote('Copied the import list URL'))}>
            Copy
          </button>
        </div>
      )}
      {editing && (
        <FlowForm
          prefix={`edit-${flow.id}`}
          initial={formOf(flow)}
          submitLabel="Save changes"
          onCancel={() => setEditing(false)}
          onSubmit={async (input) => {
            await flowsApi.update(flow.id, input);
            setEditing(false);
            onChanged();
          }}
        />
      )}
      {showTracks && <FlowTracks flow={flow} version={statsKey} />}
    </li>
  );
}

const STATUS_LABELS: Record<string, string> = {
  pending: 'Waiting',
  searching: 'Searching',
  downloading: 'Downloading',
  blocked: 'For review',
  done: 'Downloaded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The flow's download jobs (current run first), reloaded whenever its counts change. */
function FlowTracks({ flow, version }: { flow: Flow; version: string }) {
  const jobs = useAsync(() => flowsApi.jobs(flow.id), [flow.id, version]);
  const act = useAction(async (job: FlowJob) => {
    await flowsApi.research(flow.id, job.id);
    jobs.reload();
  });
  const play = useAction(async (job: FlowJob) => {
    const done = (jobs.data ?? []).filter((j) => j.status === 'done');
    const { token } = await streamToken();
    const tracks: Track[] = done.map((j) => ({
      id: -Number(j.id),
      title: j.trackName,
      artistName: j.artistName,
      albumTitle: j.albumName ?? null,
      durationMs: j.durationMs ?? 0,
      previewUrl: jobStreamUrl(j.id, token),
    }));
    playTracks(tracks, done.indexOf(job));
  });
  if (!jobs.data) return jobs.error ? <ErrorMessage error={jobs.error} onRetry={jobs.reload} /> : <Loading label="Loading tracks…" />;
  if (jobs.data.length === 0) return <p class="muted small">No tracks yet: run the flow to fill it.</p>;
  return (
    <div class="flow-tracks">
      <ol aria-label={`Tracks of ${flow.name}`}>
        {jobs.data.map((j) => (
          <li key={j.id} class="flow-track" data-status={j.status}>
            <span class="track-title">{j.trackName}</span> <span class="muted">{j.artistName}</span>{' '}
            <span class={`job-status status-${j.status}`}>
              {STATUS_LABELS[j.status] ?? j.status}
              {j.status === 'downloading' && typeof j.progress === 'number' ? ` ${Math.round(j.progress)}%` : ''}
            </span>
            {j.error && j.status === 'failed' && <span class="muted small"> {j.error}</span>}
            {j.status === 'done' && (
              <button type="button" class="small-button" disabled={play.busy} onClick={() => void play.trigger(j)} aria-label={`Play ${j.trackName} by ${j.artistName}`}>
                Play
              </button>
            )}
            {(j.status === 'failed' || j.status === 'cancelled') && (
              <button type="button" class="small-button" disabled={act.busy} onClick={() => void act.trigger(j)} aria-label={`Search again for ${j.trackName} by ${j.artistName}`}>
                Search again
              </button>
            )}
          </li>
        ))}
      </ol>
      {(act.error !== null || play.error !== null) && (
        <p role="alert" class="form-error">
          {errorText(act.error ?? play.error)}
        </p>
      )}
    </div>
  );
}
