import { useState } from 'preact/hooks';
import { errorText } from '../api';
import { useAction } from '../components/ui';
import { MIX_SOURCES, type FlowInput } from './api';
import { DAY_NAMES, SOURCE_LABELS, inputOf, type FormState } from './logic';
import { SourceReason } from './SourceReason';

export interface FlowFormProps {
  /** Prefix of the inputs' ids, unique per form on the page. */
  prefix: string;
  initial: FormState;
  submitLabel: string;
  onSubmit: (input: FlowInput) => Promise<void>;
  onCancel?: () => void;
  /** Sources this server cannot use, with the server's reason (GET /api/playlists/status capabilities). */
  unavailable?: Record<string, string>;
}

/** A flow's settings (name, source mix, focus, size, years, options, schedule): creating and editing. */
export function FlowForm({ prefix, initial, submitLabel, onSubmit, onCancel, unavailable = {} }: FlowFormProps) {
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
        {MIX_SOURCES.map((s) => {
          const reason = unavailable[s];
          // A source this server cannot use is shown switched off with the reason; one an existing flow still
          // uses stays movable, so it can be set to 0.
          const off = reason !== undefined && form.mix[s] === 0;
          return (
            <div class={`flow-slider${reason ? ' unavailable' : ''}`} key={s} data-source={s}>
              <label for={id(`mix-${s}`)}>{SOURCE_LABELS[s]}</label>
              <input
                id={id(`mix-${s}`)}
                type="range"
                min={0}
                max={100}
                step={5}
                aria-label={`${SOURCE_LABELS[s]} percent`}
                disabled={off}
                aria-describedby={reason ? id(`why-${s}`) : undefined}
                value={String(form.mix[s])}
                onInput={(e) => {
                  const v = Number(value(e));
                  setForm((f) => ({ ...f, mix: { ...f.mix, [s]: v } }));
                }}
              />
              <output>{form.mix[s]}%</output>
              {reason && <SourceReason reason={reason} id={id(`why-${s}`)} />}
            </div>
          );
        })}
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
