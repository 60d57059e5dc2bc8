import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api';
import { Needs } from '../components/Rights';
import { Card, Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { isAdmin, session } from '../session';
import { listen, socketState } from '../socket';
import { useStore } from '../store';
import { flowsApi, type Flow, type PlaylistStatus } from './api';
import { FlowForm } from './FlowForm';
import { FlowTracks } from './FlowTracks';
import { emptyForm, formOf, mixSummary, progressLine, scheduleSummary, when, type RunQueueState } from './logic';
import './flows.css';
import { withBase } from '../base';
import { inWords } from '../messages';
import { SourceReason } from './SourceReason';

/** How often the status is read when /ws is not open (the push keeps it current otherwise). */
const POLL_MS = 5000;

/**
 * Flows (issue 14 item 7): the user's flows with their switch, schedule, last and next run and live
 * progress from `playlist_status`; create from a template or from scratch, edit, delete, run now, the
 * tracks of the current run (play, search again), keep as a static playlist, the Lidarr import list.
 */
export function FlowsScreen() {
  return (
    <Needs permission="accessFlow" title="Flows are not available for your account" use="flows">
      <Flows />
    </Needs>
  );
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
  // One state per flow: a run waiting for the discovery refresh, else one queued.
  const queue = new Map<string, RunQueueState>();
  for (const o of status.operationQueue?.items ?? []) if (o.type === 'run' && queue.get(o.flowId) !== 'queued') queue.set(o.flowId, o.waitingFor === 'discovery' ? 'waiting' : 'queued');
  const unavailable = status.capabilities?.unavailableSources ?? {};
  return (
    <div class="flows-screen">
      <header class="page-header">
        <h1>Flows</h1>
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          {creating ? 'Close' : 'New flow'}
        </button>
      </header>
      <p class="muted" data-testid="flows-hint">
        {inWords(status.hint.message)}
      </p>
      {creating && (
        <CreateFlow
          unavailable={unavailable}
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
            <FlowItem key={f.id} flow={f} queue={queue.get(f.id) ?? null} unavailable={unavailable} tick={tick} onChanged={() => void refresh()} />
          ))}
        </ul>
      )}
    </div>
  );
}

// ---- creating ----------------------------------------------------------------------------------

function CreateFlow({ unavailable, onCreated }: { unavailable: Record<string, string>; onCreated: () => void }) {
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
                  {!t.available && t.reason && <SourceReason reason={t.reason} />}
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
          initial={emptyForm(unavailable)}
          unavailable={unavailable}
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

// ---- one flow ----------------------------------------------------------------------------------

function FlowItem({ flow, queue, unavailable, tick, onChanged }: { flow: Flow; queue: RunQueueState; unavailable: Record<string, string>; tick: number; onChanged: () => void }) {
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
  // The state line says "Queued to run" (or what the run does next): no separate note.
  const runNow = () => void act.trigger(() => flowsApi.start(flow.id));
  const remove = () => void act.trigger(() => flowsApi.remove(flow.id));
  const keep = () => void act.trigger(() => flowsApi.keepAsStatic(flow.id).then((r) => setNote(`Kept ${r.trackCount} track${r.trackCount === 1 ? '' : 's'} as the playlist “${r.name}”`)));
  const importList = () => void act.trigger(() => flowsApi.importList(flow.id).then((r) => setFeed({ url: new URL(withBase(r.url), window.location.origin).href, itemCount: r.itemCount })));
  // The tracks reload when the counts change, and on every status while something downloads (its progress).
  const state = progressLine(flow, queue);
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
      <p class={`flow-progress${state.warn ? ' warn' : ''}`} data-testid="flow-progress" aria-live="polite">
        {inWords(state.text)}
      </p>
      {flow.currentRun && flow.currentRun.planned > 0 && (
        <progress max={flow.currentRun.planned} value={Math.min(flow.stats.done ?? 0, flow.currentRun.planned)} aria-label={`Downloaded tracks of ${flow.name}`} />
      )}
      <div class="flow-actions">
        <button type="button" class="primary" disabled={act.busy || queue !== null} onClick={runNow} aria-label={`Run ${flow.name} now`}>
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
          unavailable={unavailable}
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
