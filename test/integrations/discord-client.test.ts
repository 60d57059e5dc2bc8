import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordWebhookClient, fitEmbed, hideWebhookToken } from '../../server/integrations/discord/index.js';
import { IntegrationError } from '../../server/integrations/errors.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';

/** The Discord webhook client against its fake: Discord's limits, its errors, and the token kept out of messages. */

let discord: FakeDiscord;
beforeAll(async () => {
  discord = await startFakeDiscord();
});
afterAll(() => discord.close());

describe('Discord webhook client', () => {
  it('fits long texts into Discord’s limits and leaves empty fields out, which Discord would refuse', async () => {
    const client = new DiscordWebhookClient({ webhookUrl: discord.webhookUrl });
    const embed = { title: 'T'.repeat(300), description: 'D'.repeat(5000), fields: [{ name: 'Reason', value: '' }, { name: 'Artist', value: 'A'.repeat(2000) }] };
    const sent = await client.execute({ embeds: [embed] });
    expect(sent?.id).toBe(discord.messages.at(-1)!.id);
    const stored = discord.messages.at(-1)!.embeds[0]!;
    expect([...stored.title!].length).toBe(256);
    expect(stored.title!.endsWith('…')).toBe(true);
    expect(stored.fields).toEqual([{ name: 'Artist', value: `${'A'.repeat(1023)}…`, inline: false }]);
    expect([...stored.title!].length + [...stored.description!].length + 6 + 1024).toBeLessThanOrEqual(6000);
    // The same embed as it is: the fake refuses it the way Discord does.
    const raw = await fetch(`${discord.webhookUrl}?wait=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ embeds: [embed] }) });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ message: 'Invalid Form Body', code: 50035, errors: { embeds: { 0: { title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } } });
  });

  it('cuts the description so a whole embed stays within 6000 characters', () => {
    const fitted = fitEmbed({ title: 'x'.repeat(256), description: 'y'.repeat(4096), fields: Array.from({ length: 3 }, (_, i) => ({ name: `f${i}`, value: 'z'.repeat(1024) })) });
    const size = 256 + [...fitted.description!].length + fitted.fields!.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(size).toBe(6000);
  });

  it('names refusals, empty messages and rate limits, and the webhook by id only', async () => {
    expect(hideWebhookToken(discord.webhookUrl)).toBe(`${discord.url}/api/webhooks/${discord.webhookId}/…`);
    const bad = new DiscordWebhookClient({ webhookUrl: `${discord.url}/api/webhooks/${discord.webhookId}/wrong-secret-token` });
    const err = (await bad.execute({ content: 'hi', embeds: [] }).catch((e: unknown) => e)) as IntegrationError;
    expect(err).toBeInstanceOf(IntegrationError);
    expect(err.kind).toBe('unauthorized');
    expect(err.message).not.toContain('wrong-secret-token');
    const empty = (await new DiscordWebhookClient({ webhookUrl: discord.webhookUrl }).execute({ embeds: [] }).catch((e: unknown) => e)) as IntegrationError;
    expect(empty.kind).toBe('bad_request');
    expect(empty.message).toBe('Discord refused the message (400: Cannot send an empty message)');
    discord.rateLimitNext(1, 0.35);
    const limited = (await new DiscordWebhookClient({ webhookUrl: discord.webhookUrl }).execute({ content: 'x', embeds: [] }).catch((e: unknown) => e)) as IntegrationError;
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details).toEqual({ retryAfterMs: 350 });
  });
});
