import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Notice, useAction } from '../components/ui';
import type { TestAnswer } from '../downloads/api';
import { parseWhole, testBody, testOutcome } from '../downloads/logic';
import type { Settings, SettingsState } from './useSettings';

/**
 * The generic settings card of an integration (`integrations.<key>` in the settings): its fields, a
 * switch, a priority for download sources, a connection test where the server has one
 * (`POST /api/settings/<test>/test`) and one Save for all the services it shows.
 */

/** The integration's block in `integrations` (settings). */
export type Integration = string;

export interface FieldSpec {
  key: string;
  label: string;
  kind?: 'text' | 'url' | 'password' | 'number';
  hint?: string;
  placeholder?: string;
  min?: number;
  max?: number;
}

export interface SourceSpec {
  key: Integration;
  /** The name the switch, the test button and the messages use. */
  name: string;
  fields: FieldSpec[];
  /** Download sources have a priority; Prowlarr (a search service) and Gotify do not. */
  priority: boolean;
  /** The connection test, `POST /api/settings/<test>/test`; none when the server has no test for it. */
  test?: string;
  /** The fields the connection test sends. */
  testFields?: string[];
  /**
   * Download clients whose folder files are taken from: the field an administrator may set, and the
   * one the server saves when Test confirms the folder the client reports (with the first empty).
   */
  folder?: { setKey: string; confirmedKey: string };
  /**
   * The fields the service cannot work without (address, key). Until they are filled the card reads
   * "Not set up" with what is missing instead of a "Use …" switch; the saved `enabled` keeps its wire
   * meaning ("use it once it is set up").
   */
  needs?: string[];
  /** Said after "Not set up": another way the service can be set up (an environment variable). */
  setupNote?: string;
  /**
   * A field an environment variable fills while it is empty (TONEARM_METADATA_URL for the metadata
   * server's address): the card shows that value as the one in use and says where it comes from.
   */
  environment?: { field: string; variable: string; read: (settings: Settings) => string | null | undefined };
}

/** The value the environment gives `spec`'s field, or null. */
export function environmentValue(spec: SourceSpec, settings: SettingsState): string | null {
  if (!spec.environment || !settings.data) return null;
  const v = spec.environment.read(settings.data);
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

/** The labels of the needed fields that are still empty in `values`. */
export function missingFields(spec: SourceSpec, values: Values): string[] {
  return (spec.needs ?? []).filter((k) => String(values[k] ?? '').trim() === '').map((k) => spec.fields.find((f) => f.key === k)?.label ?? k);
}

/** "the slskd address and API key" */
const listed = (labels: string[]) => (labels.length <= 1 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`);


export type Values = Record<string, string | number | boolean>;

export const savedOf = (settings: SettingsState, key: Integration): Values => {
  const integrations = (settings.data?.integrations ?? {}) as Record<string, Values | undefined>;
  return integrations[key] ?? {};
};

/** The draft as settings to POST: numbers parsed, text trimmed; or the first number out of range. */
export function patchOf(spec: SourceSpec, values: Values): { patch: Values } | { error: string } {
  const patch: Values = {};
  const numbers: FieldSpec[] = [...spec.fields.filter((f) => f.kind === 'number'), ...(spec.priority ? [{ key: 'priority', label: 'Priority', min: 0, max: 1000 }] : [])];
  for (const f of spec.fields) if (f.kind !== 'number') patch[f.key] = typeof values[f.key] === 'string' ? (values[f.key] as string).trim() : (values[f.key] ?? '');
  for (const f of numbers) {
    const n = parseWhole(String(values[f.key] ?? ''), f.min ?? 0, f.max ?? 1000);
    if (n === null) return { error: `${spec.name}, ${f.label.toLowerCase()}: enter a whole number from ${f.min ?? 0} to ${f.max ?? 1000}` };
    patch[f.key] = n;
  }
  patch.enabled = values.enabled !== false;
  return { patch };
}

/** One service's settings (or several, like Usenet's three) with a switch, a priority, a test and one Save. */
export function SourceCard({
  settings,
  title,
  id,
  intro,
  specs,
  children,
}: {
  settings: SettingsState;
  title: string;
  id: string;
  intro: ComponentChildren;
  specs: SourceSpec[];
  /** More of the service's settings, below its Save (Lidarr's profiles, which need a saved connection). */
  children?: ComponentChildren;
}) {
  const [drafts, setDrafts] = useState<Partial<Record<Integration, Values>>>({});
  const [done, setDone] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const valuesOf = (spec: SourceSpec): Values => drafts[spec.key] ?? savedOf(settings, spec.key);
  const dirty = Object.keys(drafts).length > 0;
  const save = useAction(async () => {
    const integrations: Record<string, Values> = {};
    for (const spec of specs) {
      if (!drafts[spec.key]) continue;
      const parsed = patchOf(spec, drafts[spec.key]!);
      if ('error' in parsed) return setInvalid(parsed.error);
      integrations[spec.key] = parsed.patch;
    }
    await settings.save({ integrations });
    setDrafts({});
    setDone(true);
  });
  const edit = (spec: SourceSpec, key: string, value: string | boolean) => {
    setDrafts((d) => ({ ...d, [spec.key]: { ...(d[spec.key] ?? savedOf(settings, spec.key)), [key]: value } }));
    setDone(false);
    setInvalid(null);
  };
  return (
    <Card title={title} id={id}>
      <p class="muted">{intro}</p>
      {specs.map((spec) =>
        specs.length > 1 ? (
          <fieldset key={spec.key}>
            <legend>{spec.name}</legend>
            <SourceFields spec={spec} values={valuesOf(spec)} saved={savedOf(settings, spec.key)} fromEnvironment={environmentValue(spec, settings)} onTested={settings.reload} onEdit={(k, v) => edit(spec, k, v)} />
          </fieldset>
        ) : (
          <SourceFields key={spec.key} spec={spec} values={valuesOf(spec)} saved={savedOf(settings, spec.key)} fromEnvironment={environmentValue(spec, settings)} onTested={settings.reload} onEdit={(k, v) => edit(spec, k, v)} />
        ),
      )}
      <SaveActions
        label={`Save ${title}`}
        dirty={dirty}
        action={save}
        onDiscard={() => (setDrafts({}), setInvalid(null))}
        invalid={invalid}
        done={done && !dirty ? `${title} settings saved.` : null}
      />
      {children}
    </Card>
  );
}

export function SourceFields({
  spec,
  values,
  saved,
  fromEnvironment = null,
  onTested,
  onEdit,
}: {
  spec: SourceSpec;
  values: Values;
  /** The saved settings of this service (the confirmed folder is only ever saved by the server). */
  saved?: Values;
  /** What spec.environment's variable gives its field, when it is set. */
  fromEnvironment?: string | null;
  /** After a test answered: the server may have saved a confirmed folder. */
  onTested?: () => void;
  onEdit: (key: string, value: string | boolean) => void;
}) {
  const [result, setResult] = useState<{ tone: 'success' | 'warn'; text: string } | null>(null);
  const test = useAction(async () => {
    setResult(null);
    if (!spec.test) return;
    setResult(testOutcome(await api<TestAnswer>(`/api/settings/${spec.test}/test`, { method: 'POST', body: testBody(values, spec.testFields ?? []) })));
    onTested?.();
  });
  // A result stays true only for the values it was given.
  const tested = (spec.testFields ?? []).map((f) => String(values[f] ?? '')).join('\n');
  useEffect(() => {
    setResult(null);
    test.setError(null);
  }, [tested]);
  const idOf = (key: string) => `${spec.key}-${key}`;
  const envField = spec.environment && fromEnvironment ? spec.environment.field : null;
  const typedOwn = envField !== null && String(values[envField] ?? '').trim() !== '';
  // A field the environment fills is not missing.
  const missing = missingFields(spec, envField && !typedOwn ? { ...values, [envField]: fromEnvironment! } : values);
  return (
    <div data-source={spec.key}>
      <div class="source-head">
        {missing.length > 0 ? (
          <p class="setup-state" data-setup="missing">
            <strong>Not set up.</strong> Add the {listed(missing.map((l, i) => (i === 0 ? l : l.replace(new RegExp(`^${spec.name} `), ''))))} to use {spec.name}.{spec.setupNote && ` ${spec.setupNote}`}
          </p>
        ) : (
          <label class="switch">
            <input type="checkbox" role="switch" checked={values.enabled !== false} onChange={(e) => onEdit('enabled', e.currentTarget.checked)} />
            <span>Use {spec.name}</span>
          </label>
        )}
      </div>
      <div class="field-row">
        {spec.fields.map((f) => (
          <Input key={f.key} id={idOf(f.key)} field={f.key === envField ? { ...f, placeholder: fromEnvironment! } : f} value={values[f.key]} onInput={(v) => onEdit(f.key, v)} />
        ))}
        {spec.priority && (
          <Input
            id={idOf('priority')}
            field={{ key: 'priority', label: `${spec.name} priority`, kind: 'number', min: 0, max: 1000, hint: 'Lower is tried first.' }}
            value={values.priority}
            onInput={(v) => onEdit('priority', v)}
          />
        )}
      </div>
      {envField && spec.environment && (
        <EnvironmentNote variable={spec.environment.variable} value={fromEnvironment!} label={spec.fields.find((f) => f.key === envField)?.label ?? envField} own={typedOwn} on={values.enabled !== false} />
      )}
      {spec.folder && <FolderNote name={spec.name} setFolder={String(saved?.[spec.folder.setKey] ?? '')} confirmed={String(saved?.[spec.folder.confirmedKey] ?? '')} />}
      {spec.test && (
        <div class="form-actions">
          <button type="button" disabled={test.busy} onClick={() => void test.trigger()}>
            {test.busy ? 'Testing…' : `Test ${spec.name}`}
          </button>
        </div>
      )}
      {result && <Notice tone={result.tone}>{result.text}</Notice>}
      <ErrorMessage error={test.error} />
    </div>
  );
}

/** Where a field's value in use comes from when an environment variable gives it. */
export function EnvironmentNote({ variable, value, label, own, on }: { variable: string; value: string; label: string; own: boolean; on: boolean }) {
  if (own)
    return (
      <p class="hint" data-environment="overridden">
        The {label.toLowerCase()} above takes the place of {value}, set by the environment ({variable}); empty it to use that one again.
      </p>
    );
  return (
    <p class="hint" data-environment="in-use">
      {on ? 'In use: ' : 'Set, but switched off: '}
      <strong>{value}</strong>, set by the environment ({variable}) when the server started. An address entered above takes its place.
    </p>
  );
}

/** Which folder finished downloads are copied from: the one set, the one confirmed at Test, or none yet. */
export function FolderNote({ name, setFolder, confirmed }: { name: string; setFolder: string; confirmed: string }) {
  if (setFolder.trim() !== '') return <p class="hint" data-folder="set">Finished downloads are copied only from {setFolder}.</p>;
  if (confirmed.trim() !== '')
    return (
      <p class="hint" data-folder="confirmed">
        Finished downloads are copied only from {confirmed}, the folder {name} reported when it was last tested.
      </p>
    );
  return (
    <p class="hint" data-folder="none">
      No folder is confirmed yet: nothing is taken from {name} until you press Test {name} (which confirms the folder it reports) or set the folder above.
    </p>
  );
}

export function Input({ id, field, value, onInput }: { id: string; field: FieldSpec; value: unknown; onInput: (value: string) => void }) {
  const kind = field.kind ?? 'text';
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      <input
        id={id}
        type={kind as 'text'}
        value={value === undefined || value === null ? '' : String(value)}
        placeholder={field.placeholder}
        autoComplete={kind === 'password' ? 'new-password' : 'off'}
        {...(kind === 'number' && { min: field.min, max: field.max, step: 1, inputMode: 'numeric' as const })}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-describedby={field.hint ? `${id}-hint` : undefined}
      />
      {field.hint && (
        <small id={`${id}-hint`} class="hint">
          {field.hint}
        </small>
      )}
    </div>
  );
}

/** Save (and Discard while edited), then the refusal, the success note and the request's error. */
export function SaveActions(props: {
  label: string;
  dirty: boolean;
  action: { busy: boolean; error: unknown; trigger: () => Promise<unknown> };
  onDiscard: () => void;
  invalid: string | null;
  done: string | null;
}) {
  const { label, dirty, action, invalid, done } = props;
  return (
    <>
      <div class="form-actions">
        <button type="button" class="primary" disabled={!dirty || action.busy} onClick={() => void action.trigger()}>
          {action.busy ? 'Saving…' : label}
        </button>
        {dirty && (
          <button type="button" onClick={props.onDiscard}>
            Discard changes
          </button>
        )}
      </div>
      {invalid && (
        <div class="error" role="alert">
          {invalid}
        </div>
      )}
      {done && <Notice tone="success">{done}</Notice>}
      <ErrorMessage error={action.error} />
    </>
  );
}
