import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api';
import { Icon } from './components/icons';
import { MainNav, type NavEntry } from './components/MainNav';
import { Needs, can } from './components/Rights';
import { DiscoverScreen } from './discover/DiscoverScreen';
import { DownloadsScreen } from './downloads/DownloadsScreen';
import { inboxUnread, startInboxBadge, stopInboxBadge } from './inbox/badge';
import { InboxScreen } from './inbox/InboxScreen';
import { badgeText } from './inbox/logic';
import { FlowsScreen } from './flows/FlowsScreen';
import { ErrorMessage, Loading } from './components/ui';
import { ImportScreen } from './imports/ImportScreen';
import { SpotifyCallbackScreen } from './imports/SpotifyAccount';
import { AlbumScreen, ArtistScreen, FavoritesScreen, LibraryScreen } from './library/LibraryScreen';
import { MetaArtistScreen } from './metadata/ArtistPage';
import { MetaReleaseScreen } from './metadata/ReleasePage';
import { NewsScreen } from './news/NewsScreen';
import { SearchScreen } from './metadata/SearchScreen';
import { PlayerBar } from './player/PlayerBar';
import { PlaylistScreen, PlaylistsScreen } from './playlists/PlaylistsScreen';
import { SharedPlaylistScreen } from './playlists/SharedPlaylistScreen';
import { detectQueueSaving, resetPlayer, restoreQueue } from './player/player';
import { Link, match, navigate, useLocation } from './router';
import { ConnectScreen } from './screens/Connect';
import { ChooseNewPassword, Login } from './screens/Login';
import { Onboarding } from './screens/Onboarding';
import { SsoComplete } from './screens/SsoComplete';
import { ReviewScreen } from './screens/Review';
import { unwatchScans, watchScans } from './settings/scan';
import { SettingsScreen, type SettingsTab } from './settings/SettingsScreen';
import { SESSION_EXPIRED, isAdmin, session, signOut, type User } from './session';
import { startSocket, stopSocket } from './socket';
import { useStore } from './store';
import { effectiveTheme, setTheme, theme } from './theme';
import { stripBase } from './base';
import type { Answer } from './wire.js';

type Bootstrap = Answer<'/api/health/bootstrap'>;

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
        if (b.user) session.set((s) => ({ ...s, user: b.user!, notice: null, mustChangePassword: b.mustChangePassword === true }));
        else if (session.get().token) signOut(SESSION_EXPIRED);
        inboxUnread.set((s) => ({ ...s, enabled: b.inboxEnabled === true }));
        setPhase({ kind: 'ready', boot: b });
      },
      (error: unknown) => setPhase({ kind: 'error', error }),
    );
  };
  useEffect(boot, []);

  const signedIn = current.user !== null;
  // A one-time-password session opens nothing (socket, badges, player) until a new password is chosen.
  const usable = signedIn && !current.mustChangePassword;
  useEffect(() => {
    if (!usable) {
      stopSocket();
      stopInboxBadge();
      unwatchScans();
      resetPlayer();
      return;
    }
    startSocket();
    startInboxBadge();
    if (isAdmin(current.user)) watchScans();
    void detectQueueSaving().then(restoreQueue);
  }, [usable, current.user?.id]);

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
  if (stripBase(window.location.pathname) === '/sso/complete') return <SsoComplete />;
  if (!signedIn)
    return (
      <Login
        notice={current.notice}
        proxyAuth={phase.boot.proxyAuthEnabled === true}
        oidc={phase.boot.oidcEnabled ? { label: phase.boot.oidcLabel ?? null } : null}
      />
    );
  if (current.mustChangePassword) return <ChooseNewPassword />;
  return <Shell appVersion={phase.boot.appVersion} />;
}

/**
 * The main navigation, one entry a line (add yours where it belongs): `primary` ones stay in the top
 * bar, the others are under "More".
 */
export const navEntries: NavEntry[] = [
  { href: '/library', label: 'Library', primary: true },
  { href: '/search', label: 'Search', primary: true },
  { href: '/discover', label: 'Discover', primary: true },
  { href: '/flows', label: 'Flows', primary: true, needs: 'flows' },
  { href: '/playlists', label: 'Playlists', primary: true },
  { href: '/inbox', label: 'Inbox', primary: true, needs: 'inbox' },
  { href: '/downloads', label: 'Downloads', primary: true, needs: 'flows' },
  { href: '/news', label: 'News' },
  { href: '/import', label: 'Import', needs: 'flows' },
  { href: '/library/favorites', label: 'Favorites' },
  { href: '/review', label: 'Review', needs: 'flows' },
  { href: '/settings', label: 'Settings' },
  { href: '/connect', label: 'Connect an app' },
];

/** The entries this user gets: Flows, Import, Downloads and Review need the accessFlow permission (“Flows and review”), Inbox an inbox that is switched on. */
export function visibleEntries(entries: readonly NavEntry[], has: Record<NonNullable<NavEntry['needs']>, boolean>): NavEntry[] {
  return entries.filter((e) => !e.needs || has[e.needs]);
}

/** The unread badge of the Inbox entry, or none. */
function inboxBadge(unread: number | null): { text: string; label: string } | undefined {
  const text = badgeText(unread);
  return text ? { text, label: `Inbox, ${unread} unread` } : undefined;
}

function Shell({ appVersion }: { appVersion: string }) {
  const loc = useLocation();
  const { user, token } = useStore(session);
  const inbox = useStore(inboxUnread);
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
        <MainNav entries={visibleEntries(navEntries, { flows: can(user, 'accessFlow'), inbox: inbox.enabled })} badges={{ '/inbox': inboxBadge(inbox.unread) }} />
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
  if (path === '/playlists') return <PlaylistsScreen />;
  if ((m = match('/playlists/shared/:id', path))) return <SharedPlaylistScreen id={m.id!} />;
  if ((m = match('/playlists/:id', path))) return <PlaylistScreen id={m.id!} />;
  if (path === '/downloads')
    return (
      <Needs permission="accessFlow" title="Downloads are not available for your account" use="downloads">
        <DownloadsScreen />
      </Needs>
    );
  if (path === '/discover' || ['tags', 'shows', 'tuning'].some((t) => path === `/discover/${t}`)) return <DiscoverScreen path={path} />;
  if (path === '/news') return <NewsScreen />;
  if (path === '/inbox') return <InboxScreen />;
  if (path === '/flows') return <FlowsScreen />;
  if (path === '/review')
    return (
      <Needs permission="accessFlow" title="Download review is not available for your account" use="downloads and their review">
        <ReviewScreen />
      </Needs>
    );
  if (path === '/connect') return <ConnectScreen />;
  if (path === '/import')
    return (
      <Needs permission="accessFlow" title="Importing playlists is not available for your account" use="flows and playlist imports">
        <ImportScreen />
      </Needs>
    );
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

/** The inbox in the navigation, with its unread count; absent while the inbox is switched off. */
function ThemeToggle() {
  const choice = useStore(theme);
  const dark = effectiveTheme(choice) === 'dark';
  return (
    <button type="button" class="icon-button" onClick={() => setTheme(dark ? 'light' : 'dark')} aria-label={dark ? 'Switch to the light theme' : 'Switch to the dark theme'} title={dark ? 'Light theme' : 'Dark theme'}>
      <Icon name={dark ? 'sun' : 'moon'} />
    </button>
  );
}
