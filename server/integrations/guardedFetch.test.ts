import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchRefusedError, guardedRequest, readText, type GuardedRequest } from './guardedFetch.js';
import { guardedLookup, isNeverAllowedAddress, isPrivateAddress } from './targets.js';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
interface Served {
  port: number;
  url: string;
  requests: Recorded[];
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A real server on 127.0.0.1:0 that records every request it receives. */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Served> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}`, requests };
}

const request = (url: string, extra: Partial<GuardedRequest> = {}) =>
  guardedRequest({ url, allowPrivateTargets: 'lan', timeoutMs: 2000, maxBytes: 1 << 20, ...extra });

const refusal = async (p: Promise<unknown>): Promise<FetchRefusedError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchRefusedError);
  return err as FetchRefusedError;
};

describe('redirects', () => {
  it('follows a redirect within the same scheme, host and port, keeping the headers', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { location: '/new' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('here');
    });
    const res = await request(`${s.url}/old`, { headers: { 'X-Api-Key': 'k' } });
    expect([res.status, res.url, await readText(res)]).toEqual([200, `${s.url}/new`, 'here']);
    expect(s.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
      ['/old', 'k'],
      ['/new', 'k'],
    ]);
  });

  it('refuses a redirect to another port, naming it, and the other server receives nothing', async () => {
    const other = await serve((_req, res) => res.writeHead(200).end('other'));
    const s = await serve((_req, res) => res.writeHead(302, { location: `${other.url}/steal?x=1` }).end());
    const err = await refusal(request(`${s.url}/api/v1/system/status`, { headers: { 'X-Api-Key': 'secret-key' } }));
    expect([err.reason, err.message]).toEqual([
      'redirect',
      `${s.url}/api/v1/system/status redirects to another host (${other.url}); only redirects within ${s.url} are followed`,
    ]);
    expect(other.requests).toEqual([]);
  });

  it('refuses a redirect from 127.0.0.1 to localhost on the same port', async () => {
    let port = 0;
    const s = await serve((req, res) => {
      if (req.headers.host?.startsWith('localhost')) return void res.writeHead(200).end('reached');
      res.writeHead(307, { location: `http://localhost:${port}/x` }).end();
    });
    port = s.port;
    const err = await refusal(request(`${s.url}/x`));
    expect(err.message).toContain(`redirects to another host (http://localhost:${port})`);
    expect(s.requests).toHaveLength(1);
  });

  it("in 'any' mode follows another host but drops every header except Accept and User-Agent", async () => {
    const other = await serve((_req, res) => res.writeHead(200).end('feed'));
    const s = await serve((_req, res) => res.writeHead(302, { location: `${other.url}/feed.xml` }).end());
    const res = await request(`${s.url}/feed`, { redirects: 'any', headers: { Accept: 'text/xml', Authorization: 'Bearer t', 'X-Api-Key': 'k' } });
    expect(await readText(res)).toBe('feed');
    expect(s.requests[0]!.headers).toMatchObject({ authorization: 'Bearer t', 'x-api-key': 'k' });
    const hop = other.requests[0]!.headers;
    expect([hop.accept, hop.authorization, hop['x-api-key']]).toEqual(['text/xml', undefined, undefined]);
  });

  it('turns a POST answered by 303 into a GET without body, and stops after maxRedirects', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/form') return void res.writeHead(303, { location: '/done' }).end();
      if (req.url?.startsWith('/loop')) return void res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` }).end();
      res.writeHead(200).end('ok');
    });
    await readText(await request(`${s.url}/form`, { method: 'POST', body: '{"a":1}', headers: { 'Content-Type': 'application/json' } }));
    expect(s.requests.map((r) => [r.method, r.url, r.body, r.headers['content-type']])).toEqual([
      ['POST', '/form', '{"a":1}', 'application/json'],
      ['GET', '/done', '', undefined],
    ]);
    const err = await refusal(request(`${s.url}/loop`, { maxRedirects: 3 }));
    expect([err.reason, err.message]).toEqual(['too_many_redirects', `${s.url}/loop redirects more than 3 times`]);
  });
});

describe('addresses', () => {
  it('refuses link-local and cloud metadata addresses even when allow-listed or on the LAN policy', async () => {
    const allowList = ['127.0.0.1', '169.254.169.254', 'fd00:ec2::254', 'fe80::1'];
    for (const policy of ['lan', allowList] as const) {
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/latest/', 'http://[fe80::1]:8686/', 'http://[::ffff:169.254.169.254]/', 'http://169.254.1.1/']) {
        const started = Date.now();
        const err = await refusal(request(url, { allowPrivateTargets: policy }));
        expect(err.reason).toBe('address');
        expect(err.message).toMatch(/is a link-local or cloud metadata address, which is never allowed$/);
        expect(Date.now() - started).toBeLessThan(100); // refused before any connection attempt
      }
    }
  });

  it('keeps allow-listed loopback working and refuses loopback outside the allow-list', async () => {
    const s = await serve((_req, res) => res.writeHead(200).end('ok'));
    expect((await request(s.url, { allowPrivateTargets: ['127.0.0.1'] })).status).toBe(200);
    expect((await request(s.url, { allowPrivateTargets: 'lan' })).status).toBe(200);
    const err = await refusal(request(s.url, { allowPrivateTargets: [] }));
    expect(err.message).toContain('127.0.0.1 is a private or loopback address');
    expect(s.requests).toHaveLength(2);
  });

  it('checks what a name resolves to, not only the literal host', async () => {
    const resolveTo =
      (...addresses: string[]) =>
      (_host: string, _options: unknown, callback: (err: null, list: Array<{ address: string; family: number }>) => void) =>
        callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    const lookup = (url: string, policy: 'lan' | Set<string>, ...addresses: string[]) =>
      new Promise<string>((resolve, reject) =>
        guardedLookup(new URL(url), policy, resolveTo(...addresses))(new URL(url).hostname, {}, (err, address) => (err ? reject(err) : resolve(address as string))),
      );
    await expect(lookup('http://metadata.example/', 'lan', '169.254.169.254')).rejects.toThrow(
      'metadata.example (169.254.169.254) is a link-local or cloud metadata address',
    );
    await expect(lookup('http://metadata.example/', new Set(['metadata.example', '169.254.169.254']), '169.254.169.254')).rejects.toThrow(/never allowed/);
    await expect(lookup('http://aws6.example/', 'lan', '2001:db8::1', 'fd00:ec2::254')).rejects.toThrow(/fd00:ec2::254/);
    await expect(lookup('http://nas.lan/', 'lan', '192.168.1.5')).resolves.toBe('192.168.1.5');
    await expect(lookup('http://nas.lan/', new Set(), '192.168.1.5')).rejects.toThrow(/private or loopback/);
    await expect(lookup('http://nas.lan/', new Set(['nas.lan']), '192.168.1.5')).resolves.toBe('192.168.1.5');
  });

  it('classifies addresses', () => {
    for (const a of ['169.254.169.254', '169.254.0.1', 'fe80::1', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '100.100.100.200', '224.0.0.1'])
      expect([a, isNeverAllowedAddress(a)]).toEqual([a, true]);
    for (const a of ['127.0.0.1', '10.0.0.1', '192.168.1.5', 'fd00::1', '::1', '1.1.1.1', '2606:4700:4700::1111'])
      expect([a, isNeverAllowedAddress(a)]).toEqual([a, false]);
    expect(isPrivateAddress('::ffff:7f00:1')).toBe(true);
  });
});
