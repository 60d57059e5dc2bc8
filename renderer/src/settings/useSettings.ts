import { api } from '../api';
import { useAsync } from '../components/ui';

/** The parts of GET /api/settings the UI edits (the rest is carried unchanged). */
export interface Settings {
  /** environmentMusicFolders: read-only, from TONEARM_MUSIC_DIRS (the server ignores it when sent back). */
  library: { musicFolders: string[]; watchEnabled: boolean; writeReplayGainTags?: boolean; environmentMusicFolders?: string[] };
  security: { localNetworkBypass: { enabled: boolean }; corsOrigins: string[]; allowPrivateTargets: string[] };
  network?: { basePath: string };
  /** Read-only: what environment variables set (environment.metadataUrl: TONEARM_METADATA_URL); the server ignores it when sent back. */
  environment?: { metadataUrl?: string | null };
  [section: string]: unknown;
}

export interface SettingsState {
  data: Settings | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** POSTs a partial settings object; the server merges it and answers with the whole (masked) settings. */
  save: (patch: Record<string, unknown>) => Promise<void>;
}

export function useSettings(): SettingsState {
  const state = useAsync((signal) => api<Settings>('/api/settings', { signal }), []);
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: state.reload,
    save: async (patch) => {
      const next = await api<Settings>('/api/settings', { method: 'POST', body: patch });
      state.setData(next);
    },
  };
}
