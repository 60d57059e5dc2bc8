import { useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Notice, useAction } from '../components/ui';
import { gotifySpec } from './DownloadsSettings';
import { Input, SaveActions, SourceCard, type SourceSpec } from './SourceCard';
import type { SettingsState } from './useSettings';

/** What notifies (Gotify, ntfy, Discord, webhooks), the texts each sends, and the webhooks (settings `notifications`). */

export const notificationEvents = ['job_blocked', 'job_failed', 'job_done', 'album_complete'] as const;
export type NotificationEvent = (typeof notificationEvents)[number];

export const eventLabels: Record<NotificationEvent, string> = {
  job_blocked: 'A download is held for review',
  job_failed: 'A download failed',
  job_done: 'A download finished',
  album_complete: 'An album is complete',
};

const placeholders = '$artistName, $trackName, $albumName, $status, $reason, $reviewUrl, $flowName, $event';

export interface Webhook {
  id: string;
  name: string;
  url: string;
  method: 'POST' | 'PUT';
  events: NotificationEvent[];
  headers: Record<string, string>;
  bodyTemplate: string;
  enabled: boolean;
}

type Templates = Partial<Record<NotificationEvent, { title?: string; message?: string }>>;
type PerEvent<T> = Record<NotificationEvent, T>;

interface NotificationSettings {
  publicUrl: string;
  gotify: { events: NotificationEvent[]; priority: number; templates: Templates };
  ntfy: { events: NotificationEvent[]; priorities: PerEvent<number>; tags: PerEvent<string[]>; templates: Templates };
  discord: { events: NotificationEvent[]; templates: Templates };
  webhooks: Webhook[];
}

const perEvent = <T,>(value: T): PerEvent<T> => Object.fromEntries(notificationEvents.map((e) => [e, value])) as PerEvent<T>;

const notificationsOf = (settings: SettingsState): NotificationSettings => {
  const n = settings.data?.notifications as Partial<NotificationSettings> | undefined;
  return {
    publicUrl: n?.publicUrl ?? '',
    gotify: n?.gotify ?? { events: [], priority: 5, templates: {} },
    ntfy: n?.ntfy ?? { events: [], priorities: perEvent(3), tags: perEvent([]), templates: {} },
    discord: n?.discord ?? { events: [], templates: {} },
    webhooks: n?.webhooks ?? [],
  };
};

export const ntfySpec: SourceSpec = {
  key: 'ntfy',
  name: 'ntfy',
  fields: [
    { key: 'url', label: 'ntfy server', kind: 'url', placeholder: 'https://ntfy.sh' },
    { key: 'topic', label: 'Topic', placeholder: 'tonearm', hint: 'Letters, digits, - and _. On a public server the topic works like a password.' },
    { key: 'token', label: 'Access token', kind: 'password', hint: 'Only for protected topics (tk_…).' },
  ],
  priority: false,
  test: 'ntfy',
  testFields: ['url', 'topic', 'token'],
};

export const discordSpec: SourceSpec = {
  key: 'discord',
  name: 'Discord',
  fields: [
    {
      key: 'webhookUrl',
      label: 'Webhook address',
      kind: 'password',
      placeholder: 'https://discord.com/api/webhooks/…',
      hint: 'Channel settings → Integrations → Webhooks → Copy Webhook URL. It holds the webhook’s secret and is kept like a password.',
    },
  ],
  priority: false,
  test: 'discord',
  testFields: ['webhookUrl'],
};

/** ntfy's priorities by the names its apps show. */
const ntfyPriorities = [
  [1, 'Min'],
  [2, 'Low'],
  [3, 'Default'],
  [4, 'High'],
  [5, 'Urgent'],
] as const;

export function NotificationsSettings({ settings }: { settings: SettingsState }) {
  return (
    <>
      <SourceCard settings={settings} title="Gotify" id="source-gotify" intro="Gotify sends push messages for the events you choose below." specs={[gotifySpec]} />
      <GotifyEventsCard settings={settings} />
      <SourceCard settings={settings} title="ntfy" id="source-ntfy" intro="ntfy publishes push messages to a topic on ntfy.sh or your own ntfy server." specs={[ntfySpec]} />
      <ServiceEventsCard settings={settings} service="ntfy" />
      <SourceCard settings={settings} title="Discord" id="source-discord" intro="Discord posts a message with the artist, the title, the reason and a link into a channel, through the channel’s webhook." specs={[discordSpec]} />
      <ServiceEventsCard settings={settings} service="discord" />
      <WebhooksCard settings={settings} />
    </>
  );
}

function EventChoice({ idPrefix, legend, chosen, onChange }: { idPrefix: string; legend: string; chosen: readonly NotificationEvent[]; onChange: (events: NotificationEvent[]) => void }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {notificationEvents.map((e) => (
        <label class="check" key={e}>
          <input
            type="checkbox"
            id={`${idPrefix}-${e}`}
            checked={chosen.includes(e)}
            onChange={(ev) => onChange(ev.currentTarget.checked ? notificationEvents.filter((x) => x === e || chosen.includes(x)) : chosen.filter((x) => x !== e))}
          />
          <span>{eventLabels[e]}</span>
        </label>
      ))}
    </fieldset>
  );
}

// ---- Gotify: events, priority, texts ----

type GotifyDraft = { publicUrl: string; events: NotificationEvent[]; priority: string; templates: Record<NotificationEvent, { title: string; message: string }> };

function GotifyEventsCard({ settings }: { settings: SettingsState }) {
  const saved = notificationsOf(settings);
  const fromSaved = (): GotifyDraft => ({
    publicUrl: saved.publicUrl,
    events: saved.gotify.events,
    priority: String(saved.gotify.priority),
    templates: Object.fromEntries(notificationEvents.map((e) => [e, { title: saved.gotify.templates[e]?.title ?? '', message: saved.gotify.templates[e]?.message ?? '' }])) as GotifyDraft['templates'],
  });
  const [draft, setDraft] = useState<GotifyDraft | null>(null);
  const [done, setDone] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const current = draft ?? fromSaved();
  const edit = (next: Partial<GotifyDraft>) => (setDraft({ ...current, ...next }), setDone(false), setInvalid(null));
  const save = useAction(async () => {
    const priority = Number(current.priority);
    if (!/^\s*\d+\s*$/.test(current.priority) || priority > 10) return setInvalid('Message priority: enter a whole number from 0 to 10');
    // An empty text means "the built-in one": it is left out.
    const templates = Object.fromEntries(
      notificationEvents
        .map((e) => [e, Object.fromEntries(Object.entries(current.templates[e]).filter(([, v]) => v.trim() !== ''))] as const)
        .filter(([, t]) => Object.keys(t).length > 0),
    );
    await settings.save({ notifications: { publicUrl: current.publicUrl.trim(), gotify: { events: current.events, priority, templates } } });
    setDraft(null);
    setDone(true);
  });
  return (
    <Card title="What notifies" id="notification-events">
      <EventChoice idPrefix="gotify-event" legend="Gotify sends a message when" chosen={current.events} onChange={(events) => edit({ events })} />
      <div class="field-row">
        <Input id="gotify-priority" field={{ key: 'priority', label: 'Gotify message priority', kind: 'number', min: 0, max: 10 }} value={current.priority} onInput={(v) => edit({ priority: v })} />
        <Input
          id="notifications-public-url"
          field={{ key: 'publicUrl', label: 'Address for links in notifications', kind: 'url', placeholder: 'https://music.example.org', hint: 'Where people open Tonearm; empty: this server’s first LAN address.' }}
          value={current.publicUrl}
          onInput={(v) => edit({ publicUrl: v })}
        />
      </div>
      <h3>Message texts</h3>
      <p class="muted small">Empty: the built-in text. Placeholders: {placeholders}.</p>
      {notificationEvents.map((e) => (
        <fieldset key={e} data-template={e}>
          <legend>{eventLabels[e]}</legend>
          <Input id={`template-${e}-title`} field={{ key: 'title', label: 'Title' }} value={current.templates[e].title} onInput={(v) => edit({ templates: { ...current.templates, [e]: { ...current.templates[e], title: v } } })} />
          <div class="field">
            <label for={`template-${e}-message`}>Message</label>
            <textarea
              id={`template-${e}-message`}
              rows={2}
              value={current.templates[e].message}
              onInput={(ev) => edit({ templates: { ...current.templates, [e]: { ...current.templates[e], message: ev.currentTarget.value } } })}
            />
          </div>
        </fieldset>
      ))}
      <SaveActions
        label="Save notification settings"
        dirty={draft !== null}
        action={save}
        onDiscard={() => (setDraft(null), setInvalid(null))}
        invalid={invalid}
        done={done && !draft ? 'Notification settings saved.' : null}
      />
    </Card>
  );
}

// ---- ntfy and Discord: events, texts, and ntfy's priority and tags per event ----

type TextDraft = Record<NotificationEvent, { title: string; message: string }>;
type ServiceDraft = { events: NotificationEvent[]; templates: TextDraft; priorities: PerEvent<string>; tags: PerEvent<string> };

const textsOf = (templates: Templates): TextDraft =>
  Object.fromEntries(notificationEvents.map((e) => [e, { title: templates[e]?.title ?? '', message: templates[e]?.message ?? '' }])) as TextDraft;

/** An empty text means "the built-in one": it is left out. */
const templatesOf = (texts: TextDraft): Templates =>
  Object.fromEntries(
    notificationEvents
      .map((e) => [e, Object.fromEntries(Object.entries(texts[e]).filter(([, v]) => v.trim() !== ''))] as const)
      .filter(([, t]) => Object.keys(t).length > 0),
  );

/** `warning, tada` → `['warning', 'tada']`. */
export const parseTags = (text: string): string[] =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

function ServiceEventsCard({ settings, service }: { settings: SettingsState; service: 'ntfy' | 'discord' }) {
  const saved = notificationsOf(settings);
  const name = service === 'ntfy' ? 'ntfy' : 'Discord';
  const fromSaved = (): ServiceDraft => ({
    events: saved[service].events,
    templates: textsOf(saved[service].templates),
    priorities: perEventOf((e) => String(saved.ntfy.priorities[e] ?? 3)),
    tags: perEventOf((e) => (saved.ntfy.tags[e] ?? []).join(', ')),
  });
  const [draft, setDraft] = useState<ServiceDraft | null>(null);
  const [done, setDone] = useState(false);
  const current = draft ?? fromSaved();
  const edit = (next: Partial<ServiceDraft>) => (setDraft({ ...current, ...next }), setDone(false));
  const save = useAction(async () => {
    const common = { events: current.events, templates: templatesOf(current.templates) };
    const patch =
      service === 'ntfy'
        ? { ...common, priorities: perEventOf((e) => Number(current.priorities[e])), tags: perEventOf((e) => parseTags(current.tags[e])) }
        : common;
    await settings.save({ notifications: { [service]: patch } });
    setDraft(null);
    setDone(true);
  });
  const setText = (e: NotificationEvent, key: 'title' | 'message', value: string) => edit({ templates: { ...current.templates, [e]: { ...current.templates[e], [key]: value } } });
  return (
    <Card title={`What ${name} sends`} id={`notification-events-${service}`}>
      <EventChoice idPrefix={`${service}-event`} legend={`${name} sends a message when`} chosen={current.events} onChange={(events) => edit({ events })} />
      <p class="muted small">
        {service === 'ntfy' ? 'Per event: the priority, the tags (emoji short codes such as warning or tada show as emojis) and the texts.' : 'Per event: the title and text of the message; the artist, title, reason and link are added below them.'} Empty texts: the built-in ones. Placeholders: {placeholders}.
      </p>
      {notificationEvents.map((e) => (
        <fieldset key={e} data-template={e}>
          <legend>{eventLabels[e]}</legend>
          {service === 'ntfy' && (
            <div class="field-row">
              <div class="field">
                <label for={`ntfy-priority-${e}`}>Priority</label>
                <select id={`ntfy-priority-${e}`} value={current.priorities[e]} onChange={(ev) => edit({ priorities: { ...current.priorities, [e]: ev.currentTarget.value } })}>
                  {ntfyPriorities.map(([value, label]) => (
                    <option key={value} value={String(value)}>
                      {label}
                    </option>
                  ))}
                </select>
              </div>
              <Input id={`ntfy-tags-${e}`} field={{ key: 'tags', label: 'Tags', placeholder: 'warning, music' }} value={current.tags[e]} onInput={(v) => edit({ tags: { ...current.tags, [e]: v } })} />
            </div>
          )}
          <Input id={`${service}-template-${e}-title`} field={{ key: 'title', label: 'Title' }} value={current.templates[e].title} onInput={(v) => setText(e, 'title', v)} />
          <div class="field">
            <label for={`${service}-template-${e}-message`}>Message</label>
            <textarea id={`${service}-template-${e}-message`} rows={2} value={current.templates[e].message} onInput={(ev) => setText(e, 'message', ev.currentTarget.value)} />
          </div>
        </fieldset>
      ))}
      <SaveActions
        label={`Save ${name} messages`}
        dirty={draft !== null}
        action={save}
        onDiscard={() => setDraft(null)}
        invalid={null}
        done={done && !draft ? `${name} messages saved.` : null}
      />
    </Card>
  );
}

function perEventOf<T>(value: (e: NotificationEvent) => T): PerEvent<T> {
  return Object.fromEntries(notificationEvents.map((e) => [e, value(e)])) as PerEvent<T>;
}

// ---- webhooks ----

/** A new webhook's id: its name as letters, digits and dashes, made unique among `taken`. */
export function webhookId(name: string, taken: readonly string[]): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56) || 'webhook';
  let id = base;
  for (let i = 2; taken.includes(id); i++) id = `${base}-${i}`;
  return id;
}

type WebhookDraft = { name: string; url: string; method: 'POST' | 'PUT'; events: NotificationEvent[]; bodyTemplate: string; authorization: string };
const emptyDraft: WebhookDraft = { name: '', url: '', method: 'POST', events: ['job_blocked', 'job_failed'], bodyTemplate: '', authorization: '' };

const testWebhook = (body: { id?: string; webhook?: Record<string, unknown>; event?: NotificationEvent }) =>
  api<{ success: true; status: number; message: string }>('/api/settings/webhooks/test', { method: 'POST', body });

function WebhooksCard({ settings }: { settings: SettingsState }) {
  const webhooks = notificationsOf(settings).webhooks;
  const [draft, setDraft] = useState<WebhookDraft>(emptyDraft);
  const [result, setResult] = useState<{ tone: 'success' | 'warn'; text: string } | null>(null);
  const edit = (next: Partial<WebhookDraft>) => (setDraft({ ...draft, ...next }), setResult(null));
  const draftWebhook = (): Omit<Webhook, 'id' | 'enabled'> => ({
    name: draft.name.trim(),
    url: draft.url.trim(),
    method: draft.method,
    events: draft.events,
    headers: draft.authorization.trim() ? { Authorization: draft.authorization.trim() } : {},
    bodyTemplate: draft.bodyTemplate,
  });
  const saveList = (list: Webhook[]) => settings.save({ notifications: { webhooks: list } });
  const add = useAction(async () => {
    const w = draftWebhook();
    await saveList([...webhooks, { ...w, id: webhookId(w.name, webhooks.map((x) => x.id)), enabled: true }]);
    setDraft(emptyDraft);
    setResult({ tone: 'success', text: `Webhook added: ${w.name}.` });
  });
  const testDraft = useAction(async () => {
    setResult(null);
    const { events: _events, ...webhook } = draftWebhook();
    const answer = await testWebhook({ webhook, event: draft.events[0] ?? 'job_blocked' });
    setResult({ tone: answer.status < 300 ? 'success' : 'warn', text: answer.message });
  });
  const testSaved = useAction(async (w: Webhook) => {
    setResult(null);
    const answer = await testWebhook({ id: w.id, event: w.events[0] ?? 'job_blocked' });
    setResult({ tone: answer.status < 300 ? 'success' : 'warn', text: `${w.name}: ${answer.message}` });
  });
  const remove = useAction(async (w: Webhook) => {
    await saveList(webhooks.filter((x) => x.id !== w.id));
    setResult({ tone: 'success', text: `Webhook removed: ${w.name}.` });
  });
  const toggle = useAction(async (w: Webhook, enabled: boolean) => {
    await saveList(webhooks.map((x) => (x.id === w.id ? { ...x, enabled } : x)));
  });
  const canSend = draft.name.trim() !== '' && draft.url.trim() !== '';
  return (
    <Card title="Webhooks" id="webhooks">
      <p class="muted">A webhook receives a JSON document (or your own body) for the events it is set to.</p>
      {webhooks.length > 0 ? (
        <ul class="webhook-list" aria-label="Webhooks">
          {webhooks.map((w) => (
            <li key={w.id} data-webhook={w.id}>
              <label class="switch">
                <input type="checkbox" role="switch" checked={w.enabled} disabled={toggle.busy} onChange={(e) => void toggle.trigger(w, e.currentTarget.checked)} />
                <span>{w.name}</span>
              </label>
              <span class="muted small">
                {' '}
                {w.method} {w.url} · {w.events.map((e) => eventLabels[e]).join(', ') || 'no events'}
              </span>
              <span class="webhook-actions">
                <button type="button" aria-label={`Test ${w.name}`} disabled={testSaved.busy} onClick={() => void testSaved.trigger(w)}>
                  Test
                </button>
                <button type="button" aria-label={`Remove ${w.name}`} disabled={remove.busy} onClick={() => void remove.trigger(w)}>
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No webhooks yet.</p>
      )}
      <fieldset>
        <legend>Add a webhook</legend>
        <div class="field-row">
          <Input id="webhook-name" field={{ key: 'name', label: 'Name' }} value={draft.name} onInput={(v) => edit({ name: v })} />
          <Input id="webhook-url" field={{ key: 'url', label: 'Address', kind: 'url', placeholder: 'https://example.org/hook' }} value={draft.url} onInput={(v) => edit({ url: v })} />
          <div class="field">
            <label for="webhook-method">Method</label>
            <select id="webhook-method" value={draft.method} onChange={(e) => edit({ method: e.currentTarget.value === 'PUT' ? 'PUT' : 'POST' })}>
              <option value="POST">POST</option>
              <option value="PUT">PUT</option>
            </select>
          </div>
          <Input
            id="webhook-authorization"
            field={{ key: 'authorization', label: 'Authorization header', kind: 'password', hint: 'Optional, e.g. “Bearer …”.' }}
            value={draft.authorization}
            onInput={(v) => edit({ authorization: v })}
          />
        </div>
        <EventChoice idPrefix="webhook-event" legend="Send when" chosen={draft.events} onChange={(events) => edit({ events })} />
        <div class="field">
          <label for="webhook-body">Body template</label>
          <textarea id="webhook-body" rows={3} value={draft.bodyTemplate} aria-describedby="webhook-body-hint" onInput={(e) => edit({ bodyTemplate: e.currentTarget.value })} />
          <small id="webhook-body-hint" class="hint">
            Empty: a JSON document with every field. Placeholders: {placeholders}.
          </small>
        </div>
        <div class="form-actions">
          <button type="button" class="primary" disabled={!canSend || add.busy} onClick={() => void add.trigger()}>
            {add.busy ? 'Adding…' : 'Add webhook'}
          </button>
          <button type="button" disabled={!canSend || testDraft.busy} onClick={() => void testDraft.trigger()}>
            {testDraft.busy ? 'Testing…' : 'Test webhook'}
          </button>
        </div>
      </fieldset>
      {result && <Notice tone={result.tone}>{result.text}</Notice>}
      <ErrorMessage error={add.error ?? testDraft.error ?? testSaved.error ?? remove.error ?? toggle.error} />
    </Card>
  );
}
