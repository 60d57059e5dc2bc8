import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorMessage, Field, useAction } from '../components/ui';
import { session, signIn, signOut, type User } from '../session';
import { withBase } from '../base';
import type { Answer } from '../wire.js';

type LoginAnswer = Answer<'/api/auth/login', 'post'>;

export function Login({ notice, proxyAuth, oidc }: { notice: string | null; proxyAuth: boolean; oidc: { label: string | null } | null }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => {
    const answer = await api<LoginAnswer>('/api/auth/login', { method: 'POST', body: { username, password }, anonymous: true });
    signIn(answer.token, answer.user, answer.mustChangePassword === true);
  });
  return (
    <main class="onboarding" id="main">
      <form
        class="onboarding-card login-card"
        onSubmit={(e) => {
          e.preventDefault();
          void login.trigger();
        }}
      >
        <p class="brand-line">
          <span class="logo" aria-hidden="true" /> Tonearm
        </p>
        <h1>Sign in</h1>
        {notice && (
          <div class="notice notice-warn" role="alert">
            {notice}
          </div>
        )}
        {proxyAuth && <p class="muted">This server signs you in through its reverse proxy; password sign-in is turned off.</p>}
        <Field id="login-user" label="User name" autoComplete="username" value={username} onInput={(e) => setUsername(e.currentTarget.value)} required autoFocus />
        <Field id="login-pass" label="Password" type="password" autoComplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
        <ErrorMessage error={login.error} />
        <button type="submit" class="primary wide" disabled={login.busy}>
          {login.busy ? 'Signing in…' : 'Sign in'}
        </button>
        {oidc && (
          <>
            <p class="muted or-line">or</p>
            {/* A full navigation: the provider's page, then back through /sso/callback. */}
            <a class="button wide" href={withBase('/api/auth/oidc/login')}>
              Sign in with {oidc.label || 'single sign-on'}
            </a>
          </>
        )}
      </form>
    </main>
  );
}

/**
 * After signing in with a one-time password (`npm run reset-password`, or the tray's "Reset
 * administrator password…"): nothing else opens until a new password is chosen.
 */
export function ChooseNewPassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const save = useAction(async () => {
    await api('/api/users/me/password', { method: 'POST', body: { currentPassword: current, newPassword: next } });
    session.set((s) => ({ ...s, mustChangePassword: false }));
  });
  return (
    <main class="onboarding" id="main">
      <form
        class="onboarding-card login-card"
        onSubmit={(e) => {
          e.preventDefault();
          setMismatch(next !== again);
          if (next === again) void save.trigger();
        }}
      >
        <p class="brand-line">
          <span class="logo" aria-hidden="true" /> Tonearm
        </p>
        <h1>Choose a new password</h1>
        <p class="muted">You signed in with a one-time password. Choose your own password to continue; the one-time password stops working.</p>
        <Field id="otp-current" label="One-time password" type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} required autoFocus />
        <Field id="otp-new" label="New password" type="password" autoComplete="new-password" value={next} onInput={(e) => setNext(e.currentTarget.value)} required />
        <Field id="otp-again" label="New password again" type="password" autoComplete="new-password" value={again} onInput={(e) => setAgain(e.currentTarget.value)} required />
        {mismatch && (
          <div class="error" role="alert">
            The two new passwords are not the same
          </div>
        )}
        <ErrorMessage error={save.error} />
        <button type="submit" class="primary wide" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save and continue'}
        </button>
        <button type="button" class="wide" onClick={() => void api('/api/auth/logout', { method: 'POST' }).finally(() => signOut())}>
          Sign out
        </button>
      </form>
    </main>
  );
}
