import { useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import {
  draftFrom,
  draftProblem,
  jellyfinDraftFrom,
  jellyfinProblem,
  jellyfinSettingsPatch,
  jellyfinTestBody,
  playbackTestBody,
  plexDraftFrom,
  plexProblem,
  plexSettingsPatch,
  settingsPatch,
  statusLine,
  testText,
  type JellyfinDraft,
  type JellyfinUsers,
  type PlaybackDestination,
  type PlaybackDraft,
  type PlaybackTestAnswer,
  type PlexPlaybackDraft,
} from './playbackLogic';
import type { SettingsState } from './useSettings';

/** Settings → Playback: where playlists and flows are published (Navidrome or any Subsonic server, Plex and Jellyfin). */
export function PlaybackSettings({ settings }: { settings: SettingsState }) {
  const status = useAsync((signal) => api<{ destinations: PlaybackDestination[] }>('/api/settings/playback', { signal }), []);
  return (
    <>
      <p class="muted">
        Tonearm publishes your playlists and flows to the servers you play music from, and keeps them in sync: changes are sent as they happen, and while a
        server is down they wait and go once it answers again.
      </p>
      <SubsonicCard settings={settings} destination={status.data?.destinations.find((d) => d.key === 'navidrome')} onChanged={status.reload} />
      <PlexCard settings={settings} destination={status.data?.destinations.find((d) => d.key === 'plex')} onChanged={status.reload} />
      <JellyfinCard settings={settings} destination={status.data?.destinations.find((d) => d.key === 'jellyfin')} onChanged={status.reload} />
      <ErrorMessage error={status.error} onRetry={status.reload} />
    </>
  );
}

/** What both destination cards share: what is published, and how names are prefixed. */
interface PublishDraft {
  enabled: boolean;
  publishPlaylists: boolean;
  publishFlows: boolean;
  ownerPrefix: 'auto' | 'always' | 'never';
}

/**
 * A destination card's form: the draft over the saved settings, Save (checked first, then one
 * settings patch) and Test (whose answer is shown in words). Any edit clears the last messages.
 */
function useDestinationForm<D extends PublishDraft>(options: {
  settings: SettingsState;
  saved: D;
  problemOf: (draft: D) => string | null;
  patchOf: (draft: D) => Parameters<SettingsState['save']>[0];
  savedText: (draft: D) => string;
  test: (draft: D) => Promise<PlaybackTestAnswer>;
  onChanged: () => void;
}) {
  const [draft, setDraft] = useState<D | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [tested, setTested] = useState<{ tone: 'success' | 'warn'; text: string } | null>(null);
  const current = draft ?? options.saved;
  const set = <K extends keyof D>(key: K, value: D[K]) => {
    setDraft({ ...current, [key]: value });
    setProblem(null);
    setDone(null);
    setTested(null);
  };
  const save = useAction(async () => {
    const p = options.problemOf(current);
    if (p) return setProblem(p);
    await options.settings.save(options.patchOf(current));
    setDraft(null);
    setDone(options.savedText(current));
    options.onChanged();
  });
  const test = useAction(async () => {
    setTested(null);
    setTested(testText(await options.test(current)));
    options.onChanged();
  });
  return { current, set, edited: draft !== null, save, test, problem, done, tested };
}

type DestinationForm<D extends PublishDraft> = ReturnType<typeof useDestinationForm<D>>;

function DestinationStatus({ id, destination }: { id: string; destination: PlaybackDestination | undefined }) {
  const line = statusLine(destination);
  return (
    <>
      <p class="small" data-testid={`playback-${id}-status`}>
        <span class={`badge ${line.tone === 'success' ? 'status-done' : line.tone === 'warn' ? 'badge-warn' : ''}`}>{line.text}</span>
      </p>
      {!destination && <Loading label="Loading the status…" />}
    </>
  );
}

/** What is published and whether owners' names go before playlist names. */
function PublishChoices<D extends PublishDraft>({ id, form }: { id: string; form: DestinationForm<D> }) {
  const { current, set } = form;
  return (
    <>
      <label class="check">
        <input type="checkbox" id={`playback-${id}-playlists`} checked={current.publishPlaylists} onChange={(e) => set('publishPlaylists', e.currentTarget.checked as D['publishPlaylists'])} />
        <span>Publish playlists (static and shared)</span>
      </label>
      <label class="check">
        <input type="checkbox" id={`playback-${id}-flows`} checked={current.publishFlows} onChange={(e) => set('publishFlows', e.currentTarget.checked as D['publishFlows'])} />
        <span>Publish flows</span>
      </label>
      <div class="field">
        <label for={`playback-${id}-prefix`}>Owner’s name before playlist names</label>
        <select id={`playback-${id}-prefix`} value={current.ownerPrefix} onChange={(e) => set('ownerPrefix', e.currentTarget.value as D['ownerPrefix'])}>
          <option value="auto">When several people use Tonearm (“alice · Night drive”)</option>
          <option value="always">Always</option>
          <option value="never">Never</option>
        </select>
      </div>
    </>
  );
}

/** Save and Test, then what they answered. */
function FormActions<D extends PublishDraft>({ form }: { form: DestinationForm<D> }) {
  const { save, test, problem, tested, done } = form;
  return (
    <>
      <div class="form-actions">
        <button type="button" class="primary" disabled={!form.edited || save.busy} onClick={() => void save.trigger()}>
          {save.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={test.busy} onClick={() => void test.trigger()}>
          {test.busy ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      {problem && (
        <div class="error" role="alert">
          {problem}
        </div>
      )}
      {tested && <Notice tone={tested.tone}>{tested.text}</Notice>}
      {done && <Notice tone="success">{done}</Notice>}
      <ErrorMessage error={save.error} />
      <ErrorMessage error={test.error} />
    </>
  );
}

function SubsonicCard({ settings, destination, onChanged }: { settings: SettingsState; destination: PlaybackDestination | undefined; onChanged: () => void }) {
  const form = useDestinationForm<PlaybackDraft>({
    settings,
    saved: draftFrom(settings.data),
    problemOf: draftProblem,
    patchOf: settingsPatch,
    savedText: (d) => (d.enabled ? 'Saved. Playlists are being published.' : 'Saved. Publishing is off.'),
    test: (d) => api<PlaybackTestAnswer>('/api/settings/playback/navidrome/test', { method: 'POST', body: playbackTestBody(d) }),
    onChanged,
  });
  const { current, set } = form;
  return (
    <Card title="Navidrome (or any Subsonic server)" id="playback-navidrome">
      <DestinationStatus id="navidrome" destination={destination} />
      <label class="check">
        <input type="checkbox" id="playback-navidrome-enabled" checked={current.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <span>Publish playlists to this server</span>
      </label>
      <div class="field">
        <label for="playback-navidrome-url">Address</label>
        <input id="playback-navidrome-url" type="url" value={current.url} placeholder="http://nas:4533" onInput={(e) => set('url', e.currentTarget.value)} />
      </div>
      <div class="field-row">
        <div class="field">
          <label for="playback-navidrome-user">User name</label>
          <input id="playback-navidrome-user" value={current.username} autoComplete="off" onInput={(e) => set('username', e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="playback-navidrome-password">Password</label>
          <input
            id="playback-navidrome-password"
            type="password"
            value={current.password}
            autoComplete="new-password"
            aria-describedby="playback-navidrome-password-hint"
            onInput={(e) => set('password', e.currentTarget.value)}
          />
          <small id="playback-navidrome-password-hint" class="hint">
            Stored on this server and only sent to this address. An administrator account lets Tonearm ask the server to scan for new tracks.
          </small>
        </div>
      </div>
      <PublishChoices id="navidrome" form={form} />
      <FormActions form={form} />
    </Card>
  );
}

/** Plex: native playlists in the music library chosen in Settings → Library → Plex (the connection lives there). */
function PlexCard({ settings, destination, onChanged }: { settings: SettingsState; destination: PlaybackDestination | undefined; onChanged: () => void }) {
  const saved = plexDraftFrom(settings.data);
  const form = useDestinationForm<PlexPlaybackDraft>({
    settings,
    saved: saved.draft,
    problemOf: (d) => plexProblem(d, saved),
    patchOf: plexSettingsPatch,
    savedText: (d) => (d.enabled ? 'Saved. Playlists are being published to Plex.' : 'Saved. Publishing to Plex is off.'),
    test: () => api<PlaybackTestAnswer>('/api/settings/playback/plex/test', { method: 'POST', body: {} }),
    onChanged,
  });
  const { current, set } = form;
  return (
    <Card title="Plex" id="playback-plex">
      <DestinationStatus id="plex" destination={destination} />
      <p class="small muted">
        {saved.server ? `Server: ${saved.server}` : 'No Plex server chosen yet'}
        {saved.server && (saved.library ? ` · music library ${saved.library}` : ' · no music library chosen')}. The server, its music library and path mappings are
        chosen in Settings → Library → Plex; tracks are matched to Plex through its library sync.
      </p>
      <label class="check">
        <input type="checkbox" id="playback-plex-enabled" checked={current.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <span>Publish playlists to Plex</span>
      </label>
      <PublishChoices id="plex" form={form} />
      <FormActions form={form} />
    </Card>
  );
}

/** Jellyfin: the address, an API key, the Jellyfin user playlists go to, and each person's own Jellyfin user. */
function JellyfinCard({ settings, destination, onChanged }: { settings: SettingsState; destination: PlaybackDestination | undefined; onChanged: () => void }) {
  const saved = jellyfinDraftFrom(settings.data);
  const form = useDestinationForm<JellyfinDraft>({
    settings,
    saved,
    problemOf: jellyfinProblem,
    patchOf: jellyfinSettingsPatch,
    savedText: (d) => (d.enabled ? 'Saved. Playlists are being published to Jellyfin.' : 'Saved. Publishing to Jellyfin is off.'),
    test: (d) => api<PlaybackTestAnswer>('/api/settings/playback/jellyfin/test', { method: 'POST', body: jellyfinTestBody(d) }),
    onChanged,
  });
  const { current, set } = form;
  const connected = saved.url !== '' && saved.apiKey !== '';
  // Jellyfin's users are asked for with the saved address and key.
  const users = useAsync((signal) => (connected ? api<JellyfinUsers>('/api/settings/playback/jellyfin/users', { signal }) : Promise.resolve(null)), [saved.url, saved.apiKey]);
  const list = users.data?.users ?? [];
  const firstAdmin = list.find((u) => u.isAdministrator) ?? list[0];
  const choose = useAction(async (userId: number, jellyfinUserId: string) => {
    await api(`/api/settings/playback/jellyfin/users/${userId}`, { method: 'PUT', body: { jellyfinUserId: jellyfinUserId === '' ? null : jellyfinUserId } });
    users.reload();
    onChanged();
  });
  return (
    <Card title="Jellyfin" id="playback-jellyfin">
      <DestinationStatus id="jellyfin" destination={destination} />
      <label class="check">
        <input type="checkbox" id="playback-jellyfin-enabled" checked={current.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <span>Publish playlists to Jellyfin</span>
      </label>
      <div class="field">
        <label for="playback-jellyfin-url">Address</label>
        <input id="playback-jellyfin-url" type="url" value={current.url} placeholder="http://nas:8096" onInput={(e) => set('url', e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="playback-jellyfin-key">API key</label>
        <input
          id="playback-jellyfin-key"
          type="password"
          value={current.apiKey}
          autoComplete="off"
          aria-describedby="playback-jellyfin-key-hint"
          onInput={(e) => set('apiKey', e.currentTarget.value)}
        />
        <small id="playback-jellyfin-key-hint" class="hint">
          Made in Jellyfin’s Dashboard → API Keys. Stored on this server and only sent to this address.
        </small>
      </div>
      <div class="field">
        <label for="playback-jellyfin-user">Jellyfin user for playlists</label>
        <select id="playback-jellyfin-user" value={current.userId} disabled={!connected} onChange={(e) => set('userId', e.currentTarget.value)}>
          <option value="">{firstAdmin ? `Jellyfin’s first administrator (${firstAdmin.name})` : 'Jellyfin’s first administrator'}</option>
          {list.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
              {u.isAdministrator ? ' (administrator)' : ''}
            </option>
          ))}
          {current.userId !== '' && !list.some((u) => u.id === current.userId) && <option value={current.userId}>{current.userId} (not listed)</option>}
        </select>
        {!connected && <small class="hint">Save the address and API key to choose among Jellyfin’s users.</small>}
      </div>
      <PublishChoices id="jellyfin" form={form} />
      <FormActions form={form} />
      {connected && (
        <div class="field" data-testid="playback-jellyfin-people">
          <h4>Each person’s own Jellyfin user</h4>
          <p class="small muted">Playlists of someone with a Jellyfin user of their own become that user’s playlists, named without the owner’s name; changing it moves them.</p>
          {users.loading && !users.data && <Loading label="Loading Jellyfin’s users…" />}
          {users.data?.people.map((p) => (
            <div class="field-row" key={p.userId}>
              <label for={`playback-jellyfin-person-${p.userId}`}>{p.username}</label>
              <select
                id={`playback-jellyfin-person-${p.userId}`}
                value={p.jellyfinUserId ?? ''}
                disabled={choose.busy}
                onChange={(e) => void choose.trigger(p.userId, e.currentTarget.value)}
              >
                <option value="">The Jellyfin user for playlists</option>
                {list.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
                {p.jellyfinUserId && !list.some((u) => u.id === p.jellyfinUserId) && <option value={p.jellyfinUserId}>{p.jellyfinUserName ?? p.jellyfinUserId} (not listed)</option>}
              </select>
            </div>
          ))}
          <ErrorMessage error={users.error} onRetry={users.reload} />
          <ErrorMessage error={choose.error} />
        </div>
      )}
    </Card>
  );
}
