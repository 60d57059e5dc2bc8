import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real, certified OpenID provider (the npm package `oidc-provider`) on 127.0.0.1:0 for tests:
 * discovery, authorization code with PKCE, RS256 ID tokens, JWKS, userinfo with a groups claim.
 * Interactions approve themselves: the account signed in is whatever `signInAs` last named.
 */

export interface TestAccount {
  sub: string;
  preferred_username?: string;
  email?: string;
  name?: string;
  groups?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  signInAs(account: TestAccount): void;
  /** The provider answers every authorization with `error=access_denied` while set. */
  denyNext: boolean;
  close(): Promise<void>;
}

export async function startOidcProvider(options: { redirectUris: string[]; clientId?: string; clientSecret?: string }): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? 'tonearm';
  const clientSecret = options.clientSecret ?? 'tonearm-secret-0123456789';
  let current: TestAccount = { sub: 'nobody' };
  const accounts = new Map<string, TestAccount>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name', 'groups'],
      email: ['email', 'email_verified'],
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['tonearm-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account, email_verified: true }) };
    },
    // Consent is given once for everything the client asks for (a test provider has no consent page).
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  });

  const handler: TestOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    denyNext: false,
    signInAs(account) {
      current = account;
      accounts.set(account.sub, account);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };

  const callback = provider.callback();
  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      if (/^\/interaction\/[^/?]+/.test(req.url ?? '')) {
        if (handler.denyNext) {
          handler.denyNext = false;
          return await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user said no' }, { mergeWithLastSubmission: false });
        }
        return await provider.interactionFinished(req, res, { login: { accountId: current.sub } });
      }
      callback(req, res);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    }
  }
  return handler;
}
