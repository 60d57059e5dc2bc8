import { useState } from 'preact/hooks';
import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import {
  draftFrom,
  draftProblem,
  playbackTestBody,
  plexDraftFrom,
  plexProblem,
  plexSettingsPatch,
  settingsPatch,
  statusLine,
  testText,
  type PlaybackDestination,
  type PlaybackDraft,
  type PlaybackTestAnswer,
  type PlexPlaybackDraft,
} from './playbackLogic';
import type { SettingsState } from './useSettings';

/** Settings → Playback: where playlists and flows are published (Navidrome or any Subsonic server, and Plex). */
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
      <ErrorMessage error={status.error} onRetry={status.reload} />
    </>
  );
}

function SubsonicCard({ settings, destination, onChanged }: { settings: SettingsState; destination: PlaybackDestination | undefined; onChanged: () => void }) {
  const saved = draftFrom(settings.data);
  const [draft, setDraft] = useState<PlaybackDraft | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [tested, setTested] = useState<{ tone: 'success' | 'warn'; text: string } | null>(null);
  const current = draft ?? saved;
  const set = <K extends keyof PlaybackDraft>(key: K, value: PlaybackDraft[K]) => {
    setDraft({ ...current, [key]: value });
    setProblem(null);
    setDone(null);
    setTested(null);
  };
  const save = useAction(async () => {
    const p = draftProblem(current);
    if (p) return setProblem(p);
    await settings.save(settingsPatch(current));
    setDraft(null);
    setDone(current.enabled ? 'Saved. Playlists are being published.' : 'Saved. Publishing is off.');
    onChanged();
  });
  const test = useAction(async () => {
    setTested(null);
    const answer = await api<PlaybackTestAnswer>('/api/settings/playback/navidrome/test', { method: 'POST', body: playbackTestBody(current) });
    setTested(testText(answer));
    onChanged();
  });
  const line = statusLine(destination);
  return (
    <Card title="Navidrome (or any Subsonic server)" id="playback-navidrome">
      <p class="small" data-testid="playback-navidrome-status">
        <span class={`badge ${line.tone === 'success' ? 'status-done' : line.tone === 'warn' ? 'badge-warn' : ''}`}>{line.text}</span>
      </p>
      {!destination && <Loading label="Loading the status…" />}
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
      <label class="check">
        <input type="checkbox" checked={current.publishPlaylists} onChange={(e) => set('publishPlaylists', e.currentTarget.checked)} />
        <span>Publish playlists (static and shared)</span>
      </label>
      <label class="check">
        <input type="checkbox" checked={current.publishFlows} onChange={(e) => set('publishFlows', e.currentTarget.checked)} />
        <span>Publish flows</span>
      </label>
      <div class="field">
        <label for="playback-navidrome-prefix">Owner’s name before playlist names</label>
        <select id="playback-navidrome-prefix" value={current.ownerPrefix} onChange={(e) => set('ownerPrefix', e.currentTarget.value as PlaybackDraft['ownerPrefix'])}>
          <option value="auto">When several people use Tonearm (“alice · Night drive”)</option>
          <option value="always">Always</option>
          <option value="never">Never</option>
        </select>
      </div>
      <div class="form-actions">
        <button type="button" class="primary" disabled={draft === null || save.busy} onClick={() => void save.trigger()}>
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
    </Card>
  );
}

/** Plex: native playlists in the music library chosen in Settings → Plex (the connection lives there). */
function PlexCard({ settings, destination, onChanged }: { settings: SettingsState; destination: PlaybackDestination | undefined; onChanged: () => void }) {
  const saved = plexDraftFrom(settings.data);
  const [draft, setDraft] = useState<PlexPlaybackDraft | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [tested, setTested] = useState<{ tone: 'success' | 'warn'; text: string } | null>(null);
  const current = draft ?? saved.draft;
  const set = <K extends keyof PlexPlaybackDraft>(key: K, value: PlexPlaybackDraft[K]) => {
    setDraft({ ...current, [key]: value });
    setProblem(null);
    setDone(null);
    setTested(null);
  };
  const save = useAction(async () => {
    const p = plexProblem(current, saved);
    if (p) return setProblem(p);
    await settings.save(plexSettingsPatch(current));
    setDraft(null);
    setDone(current.enabled ? 'Saved. Playlists are being published to Plex.' : 'Saved. Publishing to Plex is off.');
    onChanged();
  });
  const test = useAction(async () => {
    setTested(null);
    const answer = await api<PlaybackTestAnswer>('/api/settings/playback/plex/test', { method: 'POST', body: {} });
    setTested(testText(answer));
    onChanged();
  });
  const line = statusLine(destination);
  return (
    <Card title="Plex" id="playback-plex">
      <p class="small" data-testid="playback-plex-status">
        <span class={`badge ${line.tone === 'success' ? 'status-done' : line.tone === 'warn' ? 'badge-warn' : ''}`}>{line.text}</span>
      </p>
      {!destination && <Loading label="Loading the status…" />}
      <p class="small muted">
        {saved.server ? `Server: ${saved.server}` : 'No Plex server chosen yet'}
        {saved.server && (saved.library ? ` · music library ${saved.library}` : ' · no music library chosen')}. The server, its music library and path mappings are
        chosen in Settings → Plex; tracks are matched to Plex through its library sync.
      </p>
      <label class="check">
        <input type="checkbox" id="playback-plex-enabled" checked={current.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} />
        <span>Publish playlists to Plex</span>
      </label>
      <label class="check">
        <input type="checkbox" id="playback-plex-playlists" checked={current.publishPlaylists} onChange={(e) => set('publishPlaylists', e.currentTarget.checked)} />
        <span>Publish playlists (static and shared)</span>
      </label>
      <label class="check">
        <input type="checkbox" id="playback-plex-flows" checked={current.publishFlows} onChange={(e) => set('publishFlows', e.currentTarget.checked)} />
        <span>Publish flows</span>
      </label>
      <div class="field">
        <label for="playback-plex-prefix">Owner’s name before playlist names</label>
        <select id="playback-plex-prefix" value={current.ownerPrefix} onChange={(e) => set('ownerPrefix', e.currentTarget.value as PlexPlaybackDraft['ownerPrefix'])}>
          <option value="auto">When several people use Tonearm (“alice · Night drive”)</option>
          <option value="always">Always</option>
          <option value="never">Never</option>
        </select>
      </div>
      <div class="form-actions">
        <button type="button" class="primary" disabled={draft === null || save.busy} onClick={() => void save.trigger()}>
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
    </Card>
  );
}
