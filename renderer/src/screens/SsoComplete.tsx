import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorMessage, Loading } from '../components/ui';
import { navigate } from '../router';
import { signIn, type User } from '../session';
import { withBase } from '../base';
import type { Answer } from '../wire.js';

type SessionAnswer = Answer<'/api/auth/oidc/exchange', 'post'>;

/**
 * The end of an OpenID sign-in: the server put a one-time code (or the reason it failed) in the
 * fragment; trade the code for a session and go to the library.
 */
export function SsoComplete() {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    // The code is single-use: drop it from the address bar and history at once.
    history.replaceState(null, '', withBase('/sso/complete'));
    const code = fragment.get('code');
    if (!code) {
      setError(new Error(fragment.get('error') || 'The sign-in did not finish. Start again from the sign-in page.'));
      return;
    }
    api<SessionAnswer>('/api/auth/oidc/exchange', { method: 'POST', body: { code }, anonymous: true }).then(
      (answer) => {
        signIn(answer.token, answer.user);
        navigate('/library/artists', { replace: true });
      },
      (err: unknown) => setError(err),
    );
  }, []);
  return (
    <main class="onboarding" id="main">
      <div class="onboarding-card login-card">
        <p class="brand-line">
          <span class="logo" aria-hidden="true" /> Tonearm
        </p>
        <h1>Signing in</h1>
        {!error && <Loading label="Finishing sign-in…" />}
        {error !== null && (
          <>
            <ErrorMessage error={error} />
            <a class="button wide" href={withBase('/')}>
              Back to sign-in
            </a>
          </>
        )}
      </div>
    </main>
  );
}
