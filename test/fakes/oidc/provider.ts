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
  /** What the provider says of the email; true unless set. */
  email_verified?: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  signInAs(account: TestAccount): void;
  /** The provider answers every authorization with `error=access_denied` while set. */
  denyNext: boolean;
  /**
   * Plays someone on the path between Tonearm and the provider: while set, every answer of the token
   * endpoint is replaced by what this returns for it (e.g. an ID token signed with another key).
   */
  tamperTokens: ((body: Record<string, unknown>) => Record<string, unknown>) | null;
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
      return { accountId: sub, claims: async () => ({ email_verified: true, ...account }) };
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
    tamperTokens: null,
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
      if (handler.tamperTokens && req.method === 'POST' && req.url?.startsWith('/token')) tamper(res, handler.tamperTokens);
      callback(req, res);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    }
  }
  return handler;
}

/** Rewrites the JSON body the provider ends `res` with (it sets the length just before ending). */
function tamper(res: ServerResponse, rewrite: (body: Record<string, unknown>) => Record<string, unknown>): void {
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if ((typeof chunk === 'string' || Buffer.isBuffer(chunk)) && !res.headersSent && res.statusCode === 200) {
      const text = JSON.stringify(rewrite(JSON.parse(String(chunk)) as Record<string, unknown>));
      res.setHeader('content-length', Buffer.byteLength(text));
      return end(text, ...rest);
    }
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
}
