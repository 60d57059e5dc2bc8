import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api';
import { Icon } from './components/icons';
import { DownloadsScreen } from './downloads/DownloadsScreen';
import { ErrorMessage, Loading } from './components/ui';
import { ImportScreen } from './imports/ImportScreen';
import { SpotifyCallbackScreen } from './imports/SpotifyAccount';
import { AlbumScreen, ArtistScreen, FavoritesScreen, LibraryScreen } from './library/LibraryScreen';
import { MetaArtistScreen } from './metadata/ArtistPage';
import { MetaReleaseScreen } from './metadata/ReleasePage';
import { SearchScreen } from './metadata/SearchScreen';
import { PlayerBar } from './player/PlayerBar';
import { detectQueueSaving, resetPlayer, restoreQueue } from './player/player';
import { Link, match, navigate, useLocation } from './router';
import { ConnectScreen } from './screens/Connect';
import { Login } from './screens/Login';
import { Onboarding } from './screens/Onboarding';
import { SsoComplete } from './screens/SsoComplete';
import { ReviewScreen } from './screens/Review';
import { unwatchScans, watchScans } from './settings/scan';
import { SettingsScreen, type SettingsTab } from './settings/SettingsScreen';
import { SESSION_EXPIRED, isAdmin, session, signOut, type User } from './session';
import { startSocket, stopSocket } from './socket';
import { useStore } from './store';
import { effectiveTheme, setTheme, theme } from './theme';

interface Bootstrap {
  onboardingRequired: boolean;
  proxyAuthEnabled?: boolean;
  oidcEnabled?: boolean;
  oidcLabel?: string | null;
  appVersion: string;
  api: { version: number; features: string[] };
  user?: User;
}

type Phase = { kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; boot: Bootstrap };

async function loadBootstrap(): Promise<Bootstrap> {
  try {
    return await api<Bootstrap>('/api/health/bootstrap');
  } catch (err) {
    // A stored token the server no longer accepts: the api layer signed out; ask again without it.
    if (err instanceof ApiError && err.status === 401) return api<Bootstrap>('/api/health/bootstrap');
    throw err;
  }
}

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const current = useStore(session);
  const boot = () => {
    setPhase({ kind: 'loading' });
    loadBootstrap().then(
      (b) => {
        if (b.user) session.set((s) => ({ ...s, user: b.user!, notice: null }));
        else if (session.get().token) signOut(SESSION_EXPIRED);
        setPhase({ kind: 'ready', boot: b });
      },
      (error: unknown) => setPhase({ kind: 'error', error }),
    );
  };
  useEffect(boot, []);

  const signedIn = current.user !== null;
  useEffect(() => {
    if (!signedIn) {
      stopSocket();
      unwatchScans();
      resetPlayer();
      return;
    }
    startSocket();
    if (isAdmin(current.user)) watchScans();
    void detectQueueSaving().then(restoreQueue);
  }, [signedIn, current.user?.id]);

  if (phase.kind === 'loading') return <Loading label="Connecting to Tonearm…" />;
  if (phase.kind === 'error')
    return (
      <main class="onboarding" id="main">
        <div class="onboarding-card">
          <h1>Tonearm is not answering</h1>
          <ErrorMessage error={phase.error} onRetry={boot} />
        </div>
      </main>
    );
  if (phase.boot.onboardingRequired && !signedIn) return <Onboarding onDone={() => setPhase({ kind: 'ready', boot: { ...phase.boot, onboardingRequired: false } })} />;
  if (window.location.pathname === '/sso/complete') return <SsoComplete />;
  if (!signedIn)
    return (
      <Login
        notice={current.notice}
        proxyAuth={phase.boot.proxyAuthEnabled === true}
        oidc={phase.boot.oidcEnabled ? { label: phase.boot.oidcLabel ?? null } : null}
      />
    );
  return <Shell appVersion={phase.boot.appVersion} />;
}

function Shell({ appVersion }: { appVersion: string }) {
  const loc = useLocation();
  const { user, token } = useStore(session);
  useEffect(() => {
    if (loc.path === '/' || loc.path === '/library' || loc.path === '/login' || loc.path === '/onboarding' || loc.path === '/sso/complete') navigate('/library/artists', { replace: true });
    if (loc.path === '/settings') navigate(isAdmin(user) ? '/settings/library' : '/settings/account', { replace: true });
  }, [loc.path]);
  const logout = async () => {
    try {
      await api('/api/auth/logout', { method: 'POST' });
    } catch {
      // signed out locally either way
    }
    signOut(null);
  };
  return (
    <div class="shell">
      <a href="#main" class="skip-link">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/library/artists" class="brand" aria-label="Tonearm home">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">Tonearm</span>
        </Link>
        <nav class="mainnav" aria-label="Main">
          <Link href="/library">Library</Link>
          <Link href="/search">Search</Link>
          <Link href="/library/favorites">Favorites</Link>
          <Link href="/downloads">Downloads</Link>
          <Link href="/import">Import</Link>
          <Link href="/review">Review</Link>
          <Link href="/settings">Settings</Link>
          <Link href="/connect">Connect an app</Link>
        </nav>
        <div class="topbar-end">
          <ThemeToggle />
          {token ? (
            <button type="button" class="link-button" onClick={() => void logout()}>
              Sign out{user && <span class="signout-name"> ({user.username})</span>}
            </button>
          ) : (
            <span class="muted small" title="Signed in automatically on the local network">
              {user?.username} · LAN
            </span>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={loc.path} />
      </main>
      <footer class="appfooter muted small">Tonearm {appVersion}</footer>
      <PlayerBar />
    </div>
  );
}

function Routes({ path }: { path: string }) {
  let m: Record<string, string> | null;
  if ((m = match('/library/artists/:id', path))) return <ArtistScreen id={Number(m.id)} />;
  if ((m = match('/library/albums/:id', path))) return <AlbumScreen id={Number(m.id)} />;
  if (path === '/library/favorites') return <FavoritesScreen />;
  if (path === '/search') return <SearchScreen />;
  if ((m = match('/artist/:mbid', path))) return <MetaArtistScreen mbid={m.mbid!.toLowerCase()} />;
  if ((m = match('/release/:mbid', path))) return <MetaReleaseScreen mbid={m.mbid!.toLowerCase()} />;
  if ((m = match('/library/:tab', path)) && ['artists', 'albums', 'tracks', 'genres'].includes(m.tab!))
    return <LibraryScreen tab={m.tab as 'artists'} />;
  if ((m = match('/settings/:tab', path))) return <SettingsScreen tab={m.tab as SettingsTab} />;
  if (path === '/downloads') return <DownloadsScreen />;
  if (path === '/review') return <ReviewScreen />;
  if (path === '/connect') return <ConnectScreen />;
  if (path === '/import') return <ImportScreen />;
  if (path === '/import/spotify/callback') return <SpotifyCallbackScreen />;
  if (['/', '/library', '/settings', '/login', '/onboarding'].includes(path)) return <Loading />;
  return (
    <div class="empty">
      <h1>Page not found</h1>
      <p>
        <Link href="/library/artists">Back to the library</Link>
      </p>
    </div>
  );
}

function ThemeToggle() {
  const choice = useStore(theme);
  const dark = effectiveTheme(choice) === 'dark';
  return (
    <button type="button" class="icon-button" onClick={() => setTheme(dark ? 'light' : 'dark')} aria-label={dark ? 'Switch to the light theme' : 'Switch to the dark theme'} title={dark ? 'Light theme' : 'Dark theme'}>
      <Icon name={dark ? 'sun' : 'moon'} />
    </button>
  );
}
