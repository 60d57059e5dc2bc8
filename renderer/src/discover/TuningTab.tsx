import { useState } from 'preact/hooks';
import { Empty, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { Link } from '../router';
import { loadPreferences, resetFeedback, resetPreferences, savePreferences, type Preferences } from './api';
import { addToList, artistHref, removeFromList } from './logic';
import { DiscoverSection, useFeedback } from './parts';

/** The caller's feedback (more/less like this) and preferences (excluded tags and artists, deep dive). */
export function TuningTab() {
  const prefs = useAsync((signal) => loadPreferences(signal), []);
  const feedback = useFeedback();
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction(async (patch: Partial<Preferences>, note: string) => {
    prefs.setData(await savePreferences(patch));
    setSaved(note);
  });
  const reset = useAction(async () => {
    prefs.setData(await resetPreferences());
    setSaved('Preferences reset: no exclusions, no deep dive.');
  });
  const forget = useAction(async () => {
    const r = await resetFeedback();
    feedback.reload();
    setSaved(`Feedback cleared (${r.removed} ${r.removed === 1 ? 'entry' : 'entries'}).`);
  });
  const undo = useAction(async (id: number) => {
    const f = feedback.list.find((x) => x.id === id);
    if (f) await feedback.undo(f);
  });
  const p = prefs.data;
  return (
    <>
      {saved && <Notice tone="success">{saved}</Notice>}
      <ErrorMessage error={save.error ?? reset.error ?? forget.error ?? undo.error} />
      <DiscoverSection id="discover-prefs" title="Preferences">
        {prefs.error ? <ErrorMessage error={prefs.error} onRetry={prefs.reload} /> : null}
        {!p && !prefs.error && <Loading label="Loading preferences…" />}
        {p && (
          <>
            <label class="check">
              <input
                type="checkbox"
                checked={p.deepDive}
                disabled={save.busy}
                onChange={(e) => void save.trigger({ deepDive: e.currentTarget.checked }, e.currentTarget.checked ? 'Deep dive on: fewer well-known artists.' : 'Deep dive off.')}
              />{' '}
              Deep dive: prefer lesser-known artists
            </label>
            <ListEditor
              id="excluded-tags"
              label="Excluded tags"
              hint="Artists with these tags are left out."
              items={p.excludedTags}
              busy={save.busy}
              onChange={(list, note) => void save.trigger({ excludedTags: list }, note)}
            />
            <ListEditor
              id="excluded-artists"
              label="Excluded artists"
              hint="Never recommended."
              items={p.excludedArtists}
              busy={save.busy}
              onChange={(list, note) => void save.trigger({ excludedArtists: list }, note)}
            />
            <button type="button" disabled={reset.busy} onClick={() => void reset.trigger()}>
              Reset preferences
            </button>
          </>
        )}
      </DiscoverSection>
      <DiscoverSection
        id="discover-feedback"
        title="Your feedback"
        actions={
          feedback.list.length > 0 ? (
            <button type="button" class="danger" disabled={forget.busy} onClick={() => void forget.trigger()}>
              Clear all feedback
            </button>
          ) : undefined
        }
      >
        {feedback.list.length === 0 ? (
          <Empty title="No feedback yet">
            <p>
              Use More and Less on <Link href="/discover">your recommendations</Link> to tune them.
            </p>
          </Empty>
        ) : (
          <ul class="feedback-list" aria-label="Your feedback">
            {feedback.list.map((f) => (
              <li key={f.id}>
                <Link href={artistHref({ name: f.artistName, id: f.artistMbid })}>{f.artistName}</Link>{' '}
                <span class="muted small">{f.kind === 'more' ? 'more like this' : 'less like this'}</span>{' '}
                <button type="button" class="link-button" aria-label={`Remove the feedback on ${f.artistName}`} disabled={undo.busy} onClick={() => void undo.trigger(f.id)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </DiscoverSection>
    </>
  );
}

function ListEditor({ id, label, hint, items, busy, onChange }: { id: string; label: string; hint: string; items: string[]; busy: boolean; onChange: (list: string[], note: string) => void }) {
  const [typed, setTyped] = useState('');
  return (
    <div class="field list-editor">
      <label for={id}>{label}</label>
      <small class="hint">{hint}</small>
      {items.length > 0 && (
        <ul class="tag-list" aria-label={label}>
          {items.map((x) => (
            <li key={x} class="tag-chip">
              {x}{' '}
              <button type="button" class="link-button" aria-label={`Remove ${x} from ${label.toLowerCase()}`} disabled={busy} onClick={() => onChange(removeFromList(items, x), `${x} is no longer excluded.`)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const next = addToList(items, typed);
          if (next !== items) onChange(next, `${typed.trim()} excluded.`);
          setTyped('');
        }}
      >
        <input id={id} type="text" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit" disabled={busy || !typed.trim()}>
          Add
        </button>
      </form>
    </div>
  );
}
