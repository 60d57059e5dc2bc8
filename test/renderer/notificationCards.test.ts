import { click, container, find, fire, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent, type VNode } from 'preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { startFakeNtfy, type FakeNtfy } from '../fakes/ntfy/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Settings → Notifications, the ntfy and Discord cards rendered against a real server: each tested
 * against its fake and saved, then its events, ntfy's priority and tags per event, and a text chosen.
 */

const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);
type Session = { token: string; user: unknown };

let server: TestServer;
let ntfy: FakeNtfy;
let discord: FakeDiscord;
let session: { set(v: { token: string | null; user: unknown; notice: null }): void };
let router: { navigate(to: string): void };
let SettingsScreen: FunctionComponent<{ tab: string }>;
let admin: Session;
let root: El | null = null;

const TOKEN = 'tk_notificationcardstoken000000';

function showNotifications(): El {
  router.navigate('/settings/notifications');
  session.set({ token: admin.token, user: admin.user, notice: null });
  root = container();
  render(h(SettingsScreen, { tab: 'notifications' }) as VNode, root as unknown as Element);
  return root;
}
const card = (r: El, title: string) => {
  const found = find(r, 'section').find((s) => text(find(s, 'h2')[0] ?? null) === title);
  if (!found) throw new Error(`no card ${title}`);
  return found;
};
const input = (r: El, label: string) => {
  const l = find(r, 'label').find((x) => text(x) === label);
  if (!l) throw new Error(`no label ${label}`);
  return one(r, `#${l.getAttribute('for')}`);
};
const settings = () => server.ctx.settings.get();
const settled = () => new Promise((r) => setTimeout(r, 0));

beforeAll(async () => {
  [ntfy, discord] = await Promise.all([startFakeNtfy(), startFakeDiscord()]);
  ntfy.protect('tonearm', [TOKEN]);
  server = await startTestServer();
  setOrigin(server.url, '/settings/notifications');
  const s = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as Session;
  admin = { token: s.token, user: s.user };
  const [sessionModule, routerModule, screen] = await Promise.all([renderer('session.ts'), renderer('router.tsx'), renderer('settings/SettingsScreen.tsx')]);
  session = (sessionModule as { session: typeof session }).session;
  router = routerModule as typeof router;
  SettingsScreen = (screen as { SettingsScreen: typeof SettingsScreen }).SettingsScreen;
});

afterEach(() => {
  if (root) render(null, root as unknown as Element);
  root = null;
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([ntfy?.close(), discord?.close()]);
});

describe('Settings: ntfy and Discord', () => {
  it('tests ntfy against the fake, saves it, and sets the events, a priority, tags and a title', async () => {
    const r = showNotifications();
    const c = await waitFor(() => card(r, 'ntfy'));
    await typeInto(input(c, 'ntfy server'), ntfy.url);
    await typeInto(input(c, 'Topic'), 'tonearm');
    click(one(c, 'button', 'Test ntfy'));
    // A protected topic without the token: the server's words are shown.
    await waitFor(() => expect(text(c)).toContain('ntfy needs an access token for this topic'));
    await typeInto(input(c, 'Access token'), TOKEN);
    click(one(c, 'button', 'Test ntfy'));
    await waitFor(() => expect(text(c)).toContain('Sent a test message to the ntfy topic tonearm'));
    expect(ntfy.messages.map((m) => m.title)).toEqual(['Tonearm – Test']);
    click(one(c, 'button', 'Save ntfy'));
    await waitFor(() => expect(settings().integrations.ntfy).toEqual({ url: ntfy.url, topic: 'tonearm', token: TOKEN, enabled: true }));
    // Shown masked after saving, and tested with the saved token.
    await waitFor(() => expect(input(c, 'Access token').value).toBe('********'));
    click(one(c, 'button', 'Test ntfy'));
    await waitFor(() => expect(ntfy.messages).toHaveLength(2));

    const events = card(r, 'What ntfy sends');
    click(one(events, '#ntfy-event-album_complete'));
    await settled();
    const priority = one(events, '#ntfy-priority-job_failed');
    priority.value = '5';
    fire(priority, 'change');
    await settled();
    await typeInto(one(events, '#ntfy-tags-album_complete'), 'cd, tada');
    await typeInto(one(events, '#ntfy-template-album_complete-title'), 'All of $albumName');
    click(one(events, 'button', 'Save ntfy messages'));
    await waitFor(() => expect(text(events)).toContain('ntfy messages saved.'));
    expect(settings().notifications.ntfy).toEqual({
      events: ['job_blocked', 'job_failed', 'album_complete'],
      priorities: { job_blocked: 4, job_failed: 5, job_done: 3, album_complete: 3 },
      tags: { job_blocked: ['warning'], job_failed: ['x'], job_done: ['musical_note'], album_complete: ['cd', 'tada'] },
      templates: { album_complete: { title: 'All of $albumName' } },
    });
  });

  it('tests a Discord webhook against the fake, saves it masked, and chooses its events and a text', async () => {
    const r = showNotifications();
    const c = await waitFor(() => card(r, 'Discord'));
    await typeInto(input(c, 'Webhook address'), `${discord.url}/api/webhooks/${discord.webhookId}/not-it`);
    click(one(c, 'button', 'Test Discord'));
    await waitFor(() => expect(text(c)).toContain('Discord refused the webhook (401: Invalid Webhook Token)'));
    expect(text(c)).not.toContain('not-it');
    await typeInto(input(c, 'Webhook address'), discord.webhookUrl);
    click(one(c, 'button', 'Test Discord'));
    await waitFor(() => expect(text(c)).toContain('Sent a test message to the Discord webhook'));
    expect(discord.messages.map((m) => m.embeds[0]!.title)).toEqual(['Tonearm – Test']);
    click(one(c, 'button', 'Save Discord'));
    await waitFor(() => expect(settings().integrations.discord).toEqual({ webhookUrl: discord.webhookUrl, enabled: true }));
    await waitFor(() => expect(input(c, 'Webhook address').value).toBe('********'));
    expect(r.innerHTML).not.toContain(discord.webhookToken);

    const events = card(r, 'What Discord sends');
    click(one(events, '#discord-event-job_failed'));
    await settled();
    click(one(events, '#discord-event-job_done'));
    await settled();
    await typeInto(one(events, '#discord-template-job_done-message'), 'Now in the library: $albumName');
    click(one(events, 'button', 'Save Discord messages'));
    await waitFor(() => expect(text(events)).toContain('Discord messages saved.'));
    expect(settings().notifications.discord).toEqual({ events: ['job_blocked', 'job_done'], templates: { job_done: { message: 'Now in the library: $albumName' } } });
  });
});
