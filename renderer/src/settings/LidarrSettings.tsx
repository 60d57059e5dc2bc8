import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorMessage, Loading, useAction, useAsync } from '../components/ui';
import { ProfileSelect, type Profile } from '../screens/Onboarding';
import { SaveActions, SourceCard, savedOf, type SourceSpec } from './SourceCard';
import type { SettingsState } from './useSettings';
import type { Answer } from '../wire.js';

/**
 * Lidarr after onboarding (issue 24 §4): the same card as the other services (address, API key,
 * switch, Test, Save) and, once a connection is saved, the quality and metadata profiles and the
 * root folder new artists get, read from Lidarr as the onboarding wizard's Lidarr step reads them.
 */
export function LidarrSettings({ settings }: { settings: SettingsState }) {
  return (
    <SourceCard
      settings={settings}
      title="Lidarr"
      id="source-lidarr"
      intro="Lidarr manages artists and albums you request: Tonearm adds them there and Lidarr downloads them. Without Lidarr, the sources below download requested albums track by track."
      specs={[lidarrSpec]}
    >
      <LidarrChoices settings={settings} />
    </SourceCard>
  );
}

export const lidarrSpec: SourceSpec = {
  key: 'lidarr',
  name: 'Lidarr',
  fields: [
    { key: 'url', label: 'Lidarr address', kind: 'url', placeholder: 'http://localhost:8686' },
    { key: 'apiKey', label: 'Lidarr API key', kind: 'password', hint: 'In Lidarr: Settings → General → Security.' },
  ],
  priority: false,
  test: 'lidarr',
  testFields: ['url', 'apiKey'],
  needs: ['url', 'apiKey'],
};

type RootFolder = Answer<'/api/settings/lidarr/root-folders'>[number];

interface Choices {
  quality: Profile[];
  metadata: Profile[];
  roots: RootFolder[];
}

/** The profiles and root folder new artists get; shown once an address and key are saved. */
function LidarrChoices({ settings }: { settings: SettingsState }) {
  const saved = savedOf(settings, 'lidarr');
  const url = String(saved.url ?? '');
  const connected = url !== '' && String(saved.apiKey ?? '') !== '';
  if (!connected)
    return (
      <p class="hint" data-lidarr-choices="waiting">
        Save an address and API key to choose the quality profile, metadata profile and root folder of the artists Tonearm adds.
      </p>
    );
  return <Choose key={url} settings={settings} saved={saved} />;
}

function Choose({ settings, saved }: { settings: SettingsState; saved: Record<string, unknown> }) {
  const choices = useAsync<Choices>(
    async (signal) => {
      const [quality, metadata, roots] = await Promise.all([
        api<Profile[]>('/api/settings/lidarr/profiles', { signal }),
        api<Profile[]>('/api/settings/lidarr/metadata-profiles', { signal }),
        api<RootFolder[]>('/api/settings/lidarr/root-folders', { signal }),
      ]);
      return { quality, metadata, roots };
    },
    [],
  );
  const savedChoice = {
    qualityProfileId: saved.qualityProfileId == null ? '' : String(saved.qualityProfileId),
    metadataProfileId: saved.metadataProfileId == null ? '' : String(saved.metadataProfileId),
    rootFolderPath: String(saved.rootFolderPath ?? ''),
  };
  const [draft, setDraft] = useState<typeof savedChoice | null>(null);
  const [done, setDone] = useState(false);
  const data = choices.data;
  // As the wizard does: Lidarr's first profile until one is chosen.
  const value = draft ?? {
    ...savedChoice,
    qualityProfileId: savedChoice.qualityProfileId || String(data?.quality[0]?.id ?? ''),
    metadataProfileId: savedChoice.metadataProfileId || String(data?.metadata[0]?.id ?? ''),
  };
  const edit = (key: keyof typeof savedChoice, v: string) => {
    setDraft({ ...value, [key]: v });
    setDone(false);
  };
  const save = useAction(async () => {
    await settings.save({
      integrations: {
        lidarr: {
          qualityProfileId: value.qualityProfileId ? Number(value.qualityProfileId) : null,
          metadataProfileId: value.metadataProfileId ? Number(value.metadataProfileId) : null,
          rootFolderPath: value.rootFolderPath,
        },
      },
    });
    setDraft(null);
    setDone(true);
  });
  const unsaved = JSON.stringify(value) !== JSON.stringify(savedChoice);
  return (
    <fieldset data-lidarr-choices="ready">
      <legend>New artists in Lidarr</legend>
      {choices.loading && !data && <Loading label="Asking Lidarr for its profiles…" />}
      <ErrorMessage error={choices.error} onRetry={choices.reload} />
      {data && (
        <>
          <div class="field-row">
            <ProfileSelect id="lidarr-quality" label="Quality profile" profiles={data.quality} value={value.qualityProfileId} onChange={(v) => edit('qualityProfileId', v)} />
            <ProfileSelect id="lidarr-metadata" label="Metadata profile" profiles={data.metadata} value={value.metadataProfileId} onChange={(v) => edit('metadataProfileId', v)} />
            <div class="field">
              <label for="lidarr-root">Root folder</label>
              <select id="lidarr-root" value={value.rootFolderPath} onChange={(e) => edit('rootFolderPath', e.currentTarget.value)}>
                <option value="">Lidarr’s first root folder</option>
                {data.roots.map((r) => (
                  <option key={r.id} value={r.path}>
                    {r.path}
                  </option>
                ))}
                {value.rootFolderPath !== '' && !data.roots.some((r) => r.path === value.rootFolderPath) && <option value={value.rootFolderPath}>{value.rootFolderPath} (not in Lidarr)</option>}
              </select>
            </div>
          </div>
          <SaveActions
            label="Save Lidarr profiles"
            dirty={unsaved}
            action={save}
            onDiscard={() => setDraft(null)}
            invalid={null}
            done={done && !unsaved ? 'Lidarr profiles saved.' : null}
          />
        </>
      )}
    </fieldset>
  );
}
