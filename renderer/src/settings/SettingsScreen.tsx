import { useEffect } from 'preact/hooks';
import { ErrorMessage, Loading } from '../components/ui';
import { Link } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';
import { PlexSettings } from '../plex/PlexSettings';
import { AccountSettings } from './AccountSettings';
import { DownloadsSettings } from './DownloadsSettings';
import { IntegrationsSettings } from './IntegrationsSettings';
import { LibrarySettings } from './LibrarySettings';
import { NotificationsSettings } from './NotificationsSettings';
import { PlaybackSettings } from './PlaybackSettings';
import { SecuritySettings } from './SecuritySettings';
import { UsersSettings } from './UsersSettings';
import { useSettings } from './useSettings';

export type SettingsTab = 'library' | 'downloads' | 'playback' | 'integrations' | 'notifications' | 'security' | 'users' | 'account';

const adminTabs: { id: SettingsTab; label: string }[] = [
  { id: 'library', label: 'Library' },
  { id: 'downloads', label: 'Downloads' },
  { id: 'playback', label: 'Playback' },
  { id: 'integrations', label: 'Integrations' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'security', label: 'Security' },
  { id: 'users', label: 'Users' },
  { id: 'account', label: 'Account' },
];

export function SettingsScreen({ tab }: { tab: SettingsTab }) {
  const user = useStore(session).user;
  const admin = isAdmin(user) || user === null;
  const visible = admin ? adminTabs : adminTabs.filter((t) => t.id === 'account');
  const active = visible.some((t) => t.id === tab) ? tab : 'account';
  return (
    <div class="settings">
      <h1>Settings</h1>
      <nav class="tabs" aria-label="Settings sections">
        {visible.map((t) => (
          <Link key={t.id} href={`/settings/${t.id}`} class="tab" aria-current={t.id === active ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      {active === 'account' ? <AccountSettings /> : active === 'users' ? <UsersSettings /> : <AdminSettings tab={active} />}
    </div>
  );
}

function AdminSettings({ tab }: { tab: Exclude<SettingsTab, 'users' | 'account'> }) {
  const settings = useSettings();
  const loaded = settings.data !== undefined;
  // A link such as /settings/integrations#integration-lastfm opens that card (messages' "Open Settings → …").
  useEffect(() => {
    const card = window.location.hash.slice(1);
    if (!loaded || !card) return;
    const title = document.getElementById(`${card}-title`);
    title?.scrollIntoView({ block: 'start' });
    title?.closest('section')?.querySelector<HTMLElement>('input, select, button')?.focus({ preventScroll: true });
  }, [loaded, tab]);
  if (settings.error && !settings.data) return <ErrorMessage error={settings.error} onRetry={settings.reload} />;
  if (!settings.data) return <Loading label="Loading settings…" />;
  if (tab === 'downloads') return <DownloadsSettings settings={settings} />;
  if (tab === 'integrations') return <IntegrationsSettings settings={settings} />;
  if (tab === 'notifications') return <NotificationsSettings settings={settings} />;
  if (tab === 'playback') return <PlaybackSettings settings={settings} />;
  return tab === 'library' ? (
    <>
      <LibrarySettings settings={settings} />
      <PlexSettings settings={settings} />
    </>
  ) : (
    <SecuritySettings settings={settings} />
  );
}
