import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGotify, type FakeGotify } from '../fakes/gotify/index.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/webhook/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** api.md §4.13 `settings/pushnotifier/test` (gotify), the webhook test, and the notification settings. */

let server: TestServer;
let gotify: FakeGotify;
let hook: FakeWebhookReceiver;

beforeAll(async () => {
  [server, gotify, hook] = await Promise.all([startTestServer(), startFakeGotify(), startFakeWebhookReceiver()]);
});
afterAll(async () => {
  await Promise.all([server.stop(), gotify.close(), hook.close()]);
});

const admin = (pathname: string, json?: unknown) => server.api(pathname, { method: json === undefined ? 'GET' : 'POST', token: server.admin.token, ...(json !== undefined && { json }) });
const body = async (res: Response) => (await res.json()) as Record<string, any>;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('POST /api/settings/gotify/test', () => {
  it('is for administrators and answers 409 NOT_CONFIGURED with nothing saved or sent', async () => {
    expect((await server.api('/api/settings/gotify/test', { method: 'POST', json: {} })).status).toBe(401);
    const res = await admin('/api/settings/gotify/test', {});
    expect(res.status).toBe(409);
    expect(await body(res)).toMatchObject({ code: 'NOT_CONFIGURED', message: expect.stringContaining('integrations.gotify.url') });
  });

  it('sends a real test message with a good application token', async () => {
    const res = await admin('/api/settings/gotify/test', { url: gotify.url, token: gotify.appToken });
    expect(res.status).toBe(200);
    const result = await body(res);
    expect(result).toEqual({ success: true, version: '2.6.1', messageId: gotify.messages.at(-1)!.id, message: `Sent a test message to Gotify 2.6.1 (message ${gotify.messages.at(-1)!.id})` });
    expect(gotify.messages.at(-1)).toMatchObject({ title: 'Tonearm – Test', message: 'Notifications from Tonearm reach this Gotify application.', priority: 5 });
    expect(gotify.requests.at(-1)).toMatchObject({ method: 'POST', path: '/message', via: 'header', token: gotify.appToken });
  });

  it('names a bad token (401) and a client token clearly', async () => {
    for (const token of ['not-a-token', gotify.clientToken]) {
      const res = await admin('/api/settings/gotify/test', { url: gotify.url, token });
      expect(res.status).toBe(502);
      expect(await body(res)).toEqual({
        error: 'Upstream unavailable',
        code: 'UPSTREAM_AUTH_FAILED',
        message: 'gotify: Gotify rejected the token (401); use the token of a Gotify application (Apps), not a client token',
      });
    }
  });

  it('answers UPSTREAM_UNAVAILABLE naming the cause when Gotify cannot be reached or is not Gotify', async () => {
    const port = await closedPort();
    const down = await admin('/api/settings/gotify/test', { url: `http://127.0.0.1:${port}`, token: 'x' });
    expect(down.status).toBe(502);
    expect(await body(down)).toEqual({
      error: 'Upstream unavailable',
      code: 'UPSTREAM_UNAVAILABLE',
      message: `gotify: Gotify at http://127.0.0.1:${port}/version: connection refused`,
    });
    // A URL where Gotify's API is not (a wrong sub-path).
    const other = await admin('/api/settings/gotify/test', { url: `${gotify.url}/sub`, token: gotify.appToken });
    expect(other.status).toBe(502);
    expect((await body(other)).message).toBe(`gotify: not Gotify at this URL: GET ${gotify.url}/sub/version answered HTTP 404 (check the URL and any sub-path)`);
    gotify.faults.failNext(1, 503);
    const unavailable = await admin('/api/settings/gotify/test', { url: gotify.url, token: gotify.appToken });
    expect(unavailable.status).toBe(502);
    expect((await body(unavailable)).message).toBe(`gotify: Gotify failed on GET ${gotify.url}/version (HTTP 503)`);
  });

  it('uses the saved token only for the saved address', async () => {
    expect((await admin('/api/settings', { integrations: { gotify: { url: gotify.url, token: gotify.appToken } } })).status).toBe(200);
    const settings = await body(await admin('/api/settings'));
    expect(settings.integrations.gotify).toEqual({ url: gotify.url, token: '********', enabled: true });
    const saved = await admin('/api/settings/gotify/test', {});
    expect(saved.status).toBe(200);
    const masked = await admin('/api/settings/gotify/test', { url: gotify.url, token: '********' });
    expect(masked.status).toBe(200);
    const moved = await admin('/api/settings/gotify/test', { url: 'http://127.0.0.2:8080', token: '********' });
    expect(moved.status).toBe(400);
    expect(await body(moved)).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED' });
    // The neutral spelling of api.md is the same route.
    expect((await admin('/api/settings/pushnotifier/test', {})).status).toBe(200);
  });
});

describe('notification settings', () => {
  it('have defaults and validate webhooks', async () => {
    const settings = await body(await admin('/api/settings'));
    expect(settings.notifications).toMatchObject({ publicUrl: '', gotify: { events: ['job_blocked', 'job_failed'], priority: 5, templates: {} }, webhooks: [] });
    expect(Object.keys(settings.notifications)).toEqual(['publicUrl', 'gotify', 'ntfy', 'discord', 'webhooks']);
    const bad = async (webhooks: unknown[], message: unknown) => {
      const res = await admin('/api/settings', { notifications: { webhooks } });
      expect(res.status).toBe(400);
      expect((await body(res)).message).toEqual(message);
    };
    const ok = { id: 'a', name: 'A', url: hook.url };
    await bad([{ ...ok, url: 'ftp://example.com' }], 'Webhooks, entry 1 (url): must be an http(s) URL');
    await bad([{ ...ok, url: 'http://169.254.169.254/latest' }], 'Webhooks, entry 1 (url): is a link-local or cloud metadata address, which is never allowed');
    await bad([{ ...ok, events: ['job_exploded'] }], expect.stringMatching(/^Webhooks, entry 1 \(events\)/));
    await bad([ok, { ...ok }], 'Webhooks: two webhooks have the same id');
    await bad([{ ...ok, headers: { 'X-A': 'one\r\nX-B: two' } }], 'Webhooks, entry 1 (headers x-a): must be a single line');
    await bad([{ ...ok, headers: { Host: 'evil' } }], 'Webhooks, entry 1 (headers host): is set by the server and cannot be changed');
    await bad([{ ...ok, headers: { 'Bad Name': 'x' } }], 'Webhooks, entry 1 (headers bad name): is not a valid header name');
    await bad([{ ...ok, url: 'http://user:pw@127.0.0.1:9/x' }], 'Webhooks, entry 1 (url): must not contain a user name or password; send them in an Authorization header');
    await bad([{ ...ok, method: 'GET' }], expect.stringMatching(/^Webhooks, entry 1 \(method\)/));
    const saved = await admin('/api/settings', { notifications: { webhooks: [ok] } });
    expect(saved.status).toBe(200);
    expect((await body(saved)).notifications.webhooks).toEqual([
      { id: 'a', name: 'A', url: hook.url, method: 'POST', events: ['job_blocked', 'job_failed'], headers: {}, bodyTemplate: '', enabled: true },
    ]);
  });
});

describe('POST /api/settings/webhooks/test', () => {
  it('sends a test event to a webhook given inline, with its template filled in', async () => {
    const res = await admin('/api/settings/webhooks/test', {
      event: 'job_failed',
      webhook: { url: `${hook.url}/ntfy/tonearm`, headers: { Title: 'Tonearm' }, bodyTemplate: '$title: $reason' },
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ success: true, status: 200, message: 'The webhook answered HTTP 200 to a test job_failed event' });
    const seen = hook.requests.at(-1)!;
    expect(seen).toMatchObject({ method: 'POST', path: '/ntfy/tonearm', body: 'Download failed: Tonearm – Test notification: This is a test message from Tonearm' });
    expect(seen.headers.title).toBe('Tonearm');
    expect(seen.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('sends to a saved webhook by id, and says why it failed', async () => {
    expect((await admin('/api/settings', { notifications: { webhooks: [{ id: 'saved', name: 'Saved', url: `${hook.url}/saved`, method: 'PUT' }] } })).status).toBe(200);
    const res = await admin('/api/settings/webhooks/test', { id: 'saved' });
    expect(res.status).toBe(200);
    const seen = hook.requests.at(-1)!;
    expect(seen).toMatchObject({ method: 'PUT', path: '/saved' });
    expect(JSON.parse(seen.body)).toMatchObject({ event: 'job_blocked', trackName: 'Test notification', title: 'Held for review: Tonearm – Test notification' });

    hook.failNext(1, 500);
    const failing = await admin('/api/settings/webhooks/test', { id: 'saved' });
    expect(failing.status).toBe(502);
    expect(await body(failing)).toEqual({ error: 'Upstream unavailable', code: 'UPSTREAM_UNAVAILABLE', message: `webhook: PUT ${hook.url}/saved failed (HTTP 500)` });
    hook.failNext(1, 401);
    expect(await body(await admin('/api/settings/webhooks/test', { id: 'saved' }))).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });

    const missing = await admin('/api/settings/webhooks/test', { id: 'nope' });
    expect(missing.status).toBe(404);
    expect(await body(missing)).toEqual({ error: 'Webhook not found', message: 'No saved webhook has the id nope' });
    const neither = await admin('/api/settings/webhooks/test', { event: 'job_done' });
    expect(neither.status).toBe(400);
    const port = await closedPort();
    const down = await admin('/api/settings/webhooks/test', { webhook: { url: `http://127.0.0.1:${port}/x` } });
    expect(down.status).toBe(502);
    expect(await body(down)).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: `webhook: Webhook at http://127.0.0.1:${port}/x: connection refused` });
  });

  it('masks credential headers and sends the saved values only to the saved address', async () => {
    const webhook = { id: 'auth', name: 'With a key', url: `${hook.url}/auth`, headers: { Authorization: 'Bearer s3cret', Title: 'Tonearm' } };
    expect((await admin('/api/settings', { notifications: { webhooks: [webhook] } })).status).toBe(200);
    const shown = (await body(await admin('/api/settings'))).notifications.webhooks[0];
    expect(shown.headers).toEqual({ Authorization: '********', Title: 'Tonearm' });

    // Sent back as shown (masked), the stored key stays.
    expect((await admin('/api/settings', { notifications: { webhooks: [{ ...shown, name: 'Renamed' }] } })).status).toBe(200);
    expect((await admin('/api/settings/webhooks/test', { id: 'auth' })).status).toBe(200);
    expect(hook.requests.at(-1)!.headers.authorization).toBe('Bearer s3cret');
    // Tested as edited, with the masked value: the saved one goes to the saved address.
    expect((await admin('/api/settings/webhooks/test', { id: 'auth', webhook: { url: `${hook.url}/auth?edited=1`, headers: shown.headers } })).status).toBe(200);
    expect(hook.requests.at(-1)!.headers.authorization).toBe('Bearer s3cret');

    // Moved elsewhere, the key must be typed again.
    const moved = await admin('/api/settings', { notifications: { webhooks: [{ ...shown, url: 'http://127.0.0.2:9/auth' }] } });
    expect(moved.status).toBe(400);
    expect(await body(moved)).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED' });
    const movedTest = await admin('/api/settings/webhooks/test', { id: 'auth', webhook: { url: 'http://127.0.0.2:9/auth', headers: shown.headers } });
    expect(movedTest.status).toBe(400);
    expect(await body(movedTest)).toMatchObject({ code: 'SECRET_REENTRY_REQUIRED' });
    const unsaved = await admin('/api/settings/webhooks/test', { webhook: { url: `${hook.url}/auth`, headers: { Authorization: '********' } } });
    expect(unsaved.status).toBe(400);
  });
});
