import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorMessage, Field, useAction } from '../components/ui';
import { signIn, type User } from '../session';

interface LoginAnswer {
  token: string;
  expiresAt: number;
  user: User;
}

export function Login({ notice, proxyAuth, oidc }: { notice: string | null; proxyAuth: boolean; oidc: { label: string | null } | null }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const login = useAction(async () => {
    const answer = await api<LoginAnswer>('/api/auth/login', { method: 'POST', body: { username, password }, anonymous: true });
    signIn(answer.token, answer.user);
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
            <a class="button wide" href="/api/auth/oidc/login">
              Sign in with {oidc.label || 'single sign-on'}
            </a>
          </>
        )}
      </form>
    </main>
  );
}
