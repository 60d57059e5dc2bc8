import { api } from '../api';
import { Card, ErrorMessage, Loading, Notice, useAction, useAsync } from '../components/ui';
import { useLocation } from '../router';
import type { Answer } from '../wire.js';

type Identity = Identities['identities'][number];

type Identities = Answer<'/api/auth/oidc/identities'>;

/**
 * Settings → Account: the identities at the OpenID provider that sign in to this account. Linking
 * goes through the provider's sign-in page in this browser and comes back here with `?oidc=linked`
 * (or `?oidc=error&message=…`); the identity that created the account cannot be unlinked here.
 */
export function OidcIdentityCard() {
  const list = useAsync((signal) => api<Identities>('/api/auth/oidc/identities', { signal }), []);
  const query = useLocation().query;
  const outcome = query.get('oidc');
  const link = useAction(async () => {
    const { url } = await api<{ url: string }>('/api/auth/oidc/link', { method: 'POST' });
    window.location.assign(url);
  });
  const unlink = useAction(async (id: number) => {
    await api(`/api/auth/oidc/identities/${id}`, { method: 'DELETE' });
    list.reload();
  });
  const data = list.data;
  // Nothing to show on a server without OpenID sign-in and no identities left from when it had one
  // (nor while that is being found out, so such servers never see the card flash).
  if (!outcome && !list.error && (!data || (!data.enabled && data.identities.length === 0))) return null;
  const name = data?.label || 'single sign-on';
  return (
    <Card title="Sign-in with your identity provider" id="oidc">
      {outcome === 'linked' && <Notice tone="success">Your identity is linked: “Sign in with {name}” now opens this account.</Notice>}
      {outcome === 'error' && <Notice tone="warn">Not linked: {query.get('message') ?? 'unknown error'}</Notice>}
      {list.loading && !data && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {data && (
        <>
          {data.identities.length === 0 ? (
            <p class="muted">No identity is linked. Link yours to sign in to this account with {name}.</p>
          ) : (
            <ul class="service-list">
              {data.identities.map((identity) => (
                <li key={identity.id}>
                  <strong>{identity.subject}</strong> <span class="muted">at {identity.issuer}</span>{' '}
                  {identity.createdAccount ? (
                    <span class="muted">(created this account)</span>
                  ) : (
                    <button type="button" disabled={unlink.busy} aria-label={`Unlink ${identity.subject}`} onClick={() => void unlink.trigger(identity.id)}>
                      Unlink
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          <ErrorMessage error={unlink.error} />
          {data.enabled && data.identities.length === 0 && (
            <button type="button" class="primary" disabled={link.busy} onClick={() => void link.trigger()}>
              {link.busy ? 'Opening…' : `Link with ${name}…`}
            </button>
          )}
          <ErrorMessage error={link.error} />
        </>
      )}
    </Card>
  );
}

/**
 * Settings → Users → Edit: the identities bound to another account, for an administrator, each with
 * "Remove binding" (that identity's next sign-in then creates a new account). Nothing when none.
 */
export function UserIdentities({ userId, username }: { userId: number; username: string }) {
  const list = useAsync((signal) => api<Identities>('/api/auth/oidc/identities', { signal, query: { userId } }), [userId]);
  const remove = useAction(async (id: number) => {
    await api(`/api/auth/oidc/identities/${id}`, { method: 'DELETE' });
    list.reload();
  });
  if (!list.data?.identities.length && !list.error) return null;
  return (
    <div class="user-identities">
      <h3>Identity provider</h3>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      <ul class="service-list">
        {list.data?.identities.map((identity) => (
          <li key={identity.id}>
            <strong>{identity.subject}</strong> <span class="muted">at {identity.issuer}</span>{' '}
            {identity.createdAccount && <span class="muted">(created {username})</span>}{' '}
            <button type="button" class="danger" disabled={remove.busy} aria-label={`Remove binding ${identity.subject}`} onClick={() => void remove.trigger(identity.id)}>
              Remove binding
            </button>
          </li>
        ))}
      </ul>
      <ErrorMessage error={remove.error} />
    </div>
  );
}
