import { useState } from 'preact/hooks';
import { Card, ErrorMessage, Field, Loading, Notice, useAction, useAsync } from '../components/ui';
import type { SettingsState } from '../settings/useSettings';
import { plexSettingsApi, type AccessCheck, type PlexStatus } from './api';
import { bestConnection, connectionLabel, syncDescription, type PlexServer } from './logic';
import { PinConnect } from './PinConnect';
import { PlexHomeUsers } from './PlexHomeUsers';

interface PlexSettingsBlock {
  url: string;
  machineIdentifier: string;
  serverName: string;
  librarySectionId: string;
  pathMappings: { from: string; to: string }[];
}

/**
 * Settings → Library → Plex: connect the server's Plex account with a PIN, choose one of its servers (or type
 * an address) and test it, choose the music library holding the same files, check that its files
 * are readable here, and sync (match Plex's tracks to this library's).
 */
export function PlexSettings({ settings }: { settings: SettingsState }) {
  const status = useAsync((signal) => plexSettingsApi.status(signal), []);
  const block = (settings.data?.integrations as { plex?: PlexSettingsBlock } | undefined)?.plex;
  const disconnect = useAction(async () => {
    await plexSettingsApi.disconnect();
    status.reload();
  });
  const s = status.data;
  return (
    <Card title="Plex" id="plex">
      <p class="muted">Connect a Plex account to choose a Plex server and the music library that holds the same files as this library. Playlists can then be published to Plex.</p>
      {status.loading && !s && <Loading />}
      <ErrorMessage error={status.error} onRetry={status.reload} />
      {s && !s.connected && <PinConnect label="Connect with Plex…" start={plexSettingsApi.startPin} check={plexSettingsApi.checkPin} onLinked={() => status.reload()} />}
      {s?.connected && (
        <>
          <p>
            Connected as <strong>{s.plexUsername ?? 'a Plex account'}</strong>{' '}
            <button type="button" disabled={disconnect.busy} onClick={() => void disconnect.trigger()}>
              Disconnect
            </button>
          </p>
          <ErrorMessage error={disconnect.error} />
          {block && <ServerChoice settings={settings} block={block} onSaved={status.reload} />}
          {block?.url && <LibraryChoice settings={settings} block={block} status={s} onChanged={status.reload} />}
          <PlexHomeUsers />
        </>
      )}
    </Card>
  );
}

function ServerChoice({ settings, block, onSaved }: { settings: SettingsState; block: PlexSettingsBlock; onSaved: () => void }) {
  const [servers, setServers] = useState<PlexServer[] | null>(null);
  const [url, setUrl] = useState(block.url);
  const [chosen, setChosen] = useState<PlexServer | null>(null);
  const [tested, setTested] = useState<string | null>(null);
  const find = useAction(async () => {
    const answer = await plexSettingsApi.servers();
    setServers(answer.servers);
  });
  const test = useAction(async () => {
    setTested(null);
    setTested((await plexSettingsApi.test(url.trim())).message);
  });
  const save = useAction(async () => {
    const trimmed = url.trim();
    const identity = trimmed ? await plexSettingsApi.test(trimmed) : null;
    await settings.save({
      integrations: { plex: { url: trimmed, machineIdentifier: identity?.machineIdentifier ?? '', serverName: chosen?.name ?? (trimmed === block.url ? block.serverName : '') } },
    });
    setTested(identity?.message ?? null);
    onSaved();
  });
  return (
    <div class="plex-server">
      <h3>Server</h3>
      <div class="form-actions">
        <button type="button" disabled={find.busy} onClick={() => void find.trigger()}>
          {find.busy ? 'Looking…' : 'Find my Plex servers'}
        </button>
      </div>
      <ErrorMessage error={find.error} />
      {servers && servers.length === 0 && <Notice tone="warn">This Plex account reaches no server.</Notice>}
      {servers && servers.length > 0 && (
        <ul class="service-list">
          {servers.map((server) => {
            const best = bestConnection(server);
            return (
              <li key={server.machineIdentifier}>
                <strong>{server.name}</strong> {!server.owned && <span class="badge">shared</span>} {!server.presence && <span class="muted">(offline)</span>}
                {server.connections.length > 0 && (
                  <select
                    aria-label={`Address of ${server.name}`}
                    value={chosen?.machineIdentifier === server.machineIdentifier ? url : ''}
                    onChange={(e) => {
                      setChosen(server);
                      setUrl(e.currentTarget.value);
                    }}
                  >
                    <option value="">Choose an address…</option>
                    {server.connections.map((c) => (
                      <option key={c.uri} value={c.uri}>
                        {connectionLabel(c)}
                        {c === best ? ' — suggested' : ''}
                      </option>
                    ))}
                  </select>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Field id="plex-url" label="Server address" value={url} placeholder="http://plex.lan:32400" onInput={(e) => setUrl(e.currentTarget.value)} />
      <div class="form-actions">
        <button type="button" disabled={test.busy || !url.trim()} onClick={() => void test.trigger()}>
          {test.busy ? 'Testing…' : 'Test'}
        </button>
        <button type="button" class="primary" disabled={save.busy || url.trim() === block.url} onClick={() => void save.trigger()}>
          {save.busy ? 'Saving…' : 'Save server'}
        </button>
      </div>
      {tested && <Notice tone="success">{tested}</Notice>}
      <ErrorMessage error={test.error ?? save.error} />
    </div>
  );
}

function LibraryChoice({ settings, block, status, onChanged }: { settings: SettingsState; block: PlexSettingsBlock; status: PlexStatus; onChanged: () => void }) {
  const libraries = useAsync((signal) => plexSettingsApi.libraries(signal), [block.url]);
  const [access, setAccess] = useState<AccessCheck | null>(null);
  const [synced, setSynced] = useState<string | null>(null);
  const [mappings, setMappings] = useState(block.pathMappings);
  const choose = useAction(async (key: string) => {
    setAccess(null);
    await settings.save({ integrations: { plex: { librarySectionId: key } } });
    onChanged();
  });
  const check = useAction(async () => setAccess(await plexSettingsApi.accessCheck(block.librarySectionId)));
  const saveMappings = useAction(async () => {
    await settings.save({ integrations: { plex: { pathMappings: mappings.filter((m) => m.from.trim() && m.to.trim()) } } });
    setAccess(null);
  });
  const sync = useAction(async () => {
    const result = await plexSettingsApi.sync();
    setSynced(`${result.matched} of ${result.plexTracks} Plex tracks match files in this library.`);
    onChanged();
  });
  return (
    <div class="plex-library">
      <h3>Music library</h3>
      {libraries.loading && !libraries.data && <Loading />}
      <ErrorMessage error={libraries.error} onRetry={libraries.reload} />
      {libraries.data && libraries.data.libraries.length === 0 && <Notice tone="warn">This server has no music library.</Notice>}
      {libraries.data && libraries.data.libraries.length > 0 && (
        <div class="field">
          <label for="plex-library">Plex library with this library's files</label>
          <select id="plex-library" value={block.librarySectionId} disabled={choose.busy} onChange={(e) => void choose.trigger(e.currentTarget.value)}>
            <option value="">Choose a library…</option>
            {libraries.data.libraries.map((l) => (
              <option key={l.key} value={l.key}>
                {l.title} ({l.locations.join(', ') || 'no folder'})
              </option>
            ))}
          </select>
        </div>
      )}
      <ErrorMessage error={choose.error} />
      <h4>Path mappings</h4>
      <p class="muted">When Plex sees the files under other paths (another computer or container), map its path to where they are here.</p>
      {mappings.map((m, i) => (
        <div class="form-row" key={i}>
          <Field id={`plex-map-from-${i}`} label="Path in Plex" value={m.from} onInput={(e) => setMappings(mappings.map((x, j) => (j === i ? { ...x, from: e.currentTarget.value } : x)))} />
          <Field id={`plex-map-to-${i}`} label="Path here" value={m.to} onInput={(e) => setMappings(mappings.map((x, j) => (j === i ? { ...x, to: e.currentTarget.value } : x)))} />
          <button type="button" onClick={() => setMappings(mappings.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <div class="form-actions">
        <button type="button" onClick={() => setMappings([...mappings, { from: '', to: '' }])}>
          Add a mapping
        </button>
        <button type="button" disabled={saveMappings.busy || JSON.stringify(mappings) === JSON.stringify(block.pathMappings)} onClick={() => void saveMappings.trigger()}>
          Save mappings
        </button>
      </div>
      <ErrorMessage error={saveMappings.error} />
      {block.librarySectionId && (
        <>
          <div class="form-actions">
            <button type="button" disabled={check.busy} onClick={() => void check.trigger()}>
              {check.busy ? 'Checking…' : 'Check file access'}
            </button>
            <button type="button" class="primary" disabled={sync.busy} onClick={() => void sync.trigger()}>
              {sync.busy ? 'Syncing…' : 'Sync now'}
            </button>
          </div>
          {access && !access.checked && <Notice tone="info">{access.reason}</Notice>}
          {access?.checked && access.accessible && <Notice tone="success">Plex's files are readable here ({access.localPath}).</Notice>}
          {access?.checked && !access.accessible && (
            <Notice tone="warn">
              Plex reports {access.reportedPath}, which is not readable here as {access.localPath}: {access.reason}
            </Notice>
          )}
          <ErrorMessage error={check.error ?? sync.error} />
          {synced ? <Notice tone="success">{synced}</Notice> : <p class="muted">{syncDescription(status.sync)}</p>}
        </>
      )}
    </div>
  );
}
