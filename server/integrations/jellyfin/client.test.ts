import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startJellyfinFake, type JellyfinFake } from '../../../test/fakes/jellyfin/index.js';
import { IntegrationError } from '../errors.js';
import { JellyfinClient } from './client.js';

let fake: JellyfinFake;
beforeEach(async () => {
  fake = await startJellyfinFake({ apiKey: 'key-123' });
});
afterEach(() => fake.close());

const clientFor = (apiKey = 'key-123', baseUrl = fake.url) => new JellyfinClient({ baseUrl, apiKey, timeoutMs: 2000 });

async function failure(call: Promise<unknown>): Promise<IntegrationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

const song = (n: number, extra: Partial<{ ProviderIds: Record<string, string> }> = {}) => ({
  Name: `Song ${n}`,
  Album: 'Tides',
  AlbumArtist: 'Harbor',
  Artists: ['Harbor'],
  Path: `/media/music/Harbor/Tides/${n}.flac`,
  RunTimeTicks: 1_800_000_000,
  ProviderIds: extra.ProviderIds ?? {},
});

describe('JellyfinClient (against the Jellyfin fake)', () => {
  it('sends the key in the MediaBrowser Authorization header, never in the URL', async () => {
    const info = await clientFor().systemInfo();
    expect(info).toMatchObject({ version: '10.10.3', serverName: 'Den' });
    const seen = fake.requests.at(-1)!;
    expect(seen.headers.authorization).toMatch(/^MediaBrowser .*Token="key-123"/);
    expect(seen.query.toString()).not.toContain('key-123');
  });

  it('reports a wrong key as unauthorized and another server as the wrong URL', async () => {
    expect((await failure(clientFor('nope').systemInfo())).kind).toBe('unauthorized');
    expect((await failure(clientFor('key-123', `${fake.url}/jellyfin`).systemInfo())).kind).toBe('wrong_url');
    fake.faults.down = true;
    expect((await failure(clientFor().users())).kind).toBe('unreachable');
  });

  it('lists users, searches and pages audio with paths and MusicBrainz ids', async () => {
    const admin = fake.addUser('root', true);
    fake.addUser('alice');
    expect(await clientFor().users()).toEqual([
      { id: admin.Id, name: 'root', isAdministrator: true },
      expect.objectContaining({ name: 'alice', isAdministrator: false }),
    ]);
    fake.addSongs([song(1, { ProviderIds: { MusicBrainzRecording: 'AB5C0E6E-0000-4000-8000-000000000001' } }), song(2, { ProviderIds: { MusicBrainzTrack: 'cd000000-0000-4000-8000-000000000002' } }), song(3)]);
    const found = await clientFor().audio(admin.Id, { searchTerm: 'song 1' });
    expect(found.items).toEqual([
      expect.objectContaining({ title: 'Song 1', artist: 'Harbor', album: 'Tides', path: '/media/music/Harbor/Tides/1.flac', durationSeconds: 180, musicBrainzId: 'ab5c0e6e-0000-4000-8000-000000000001' }),
    ]);
    const page = await clientFor().audio(admin.Id, { startIndex: 1, limit: 1 });
    expect(page).toMatchObject({ total: 3, items: [{ title: 'Song 2', musicBrainzId: 'cd000000-0000-4000-8000-000000000002' }] });
  });

  it('creates, renames, fills, reorders, empties and deletes a playlist', async () => {
    const admin = fake.addUser('root', true);
    const [a, b, c] = fake.addSongs([song(1), song(2), song(3)]);
    const client = clientFor();
    const id = await client.createPlaylist({ name: 'Night', userId: admin.Id, ids: [a!.Id, b!.Id] });
    await client.updateItem(id, admin.Id, { name: 'Night II', overview: 'Tonearm static:1' });
    expect(await client.playlists(admin.Id)).toEqual([{ id, name: 'Night II', overview: 'Tonearm static:1' }]);
    await client.addEntries(id, admin.Id, [c!.Id]);
    let entries = await client.entries(id, admin.Id);
    expect(entries.map((e) => e.id)).toEqual([a!.Id, b!.Id, c!.Id]);
    await client.moveEntry(id, entries[2]!.playlistItemId, 0);
    expect(fake.titles(id)).toEqual(['Song 3', 'Song 1', 'Song 2']);
    entries = await client.entries(id, admin.Id);
    await client.removeEntries(id, [entries[0]!.playlistItemId, entries[2]!.playlistItemId]);
    expect(fake.titles(id)).toEqual(['Song 1']);
    await client.deleteItem(id);
    expect((await failure(client.entries(id, admin.Id))).kind).toBe('not_found');
    expect((await failure(client.deleteItem(id))).kind).toBe('not_found');
  });

  it('starts a library scan and reports its task until it is done', async () => {
    fake.addFiles([song(9)]);
    const client = clientFor();
    await client.refreshLibrary();
    expect((await client.tasks()).find((t) => t.key === 'RefreshLibrary')?.state).toBe('Running');
    await expect.poll(async () => (await client.tasks()).find((t) => t.key === 'RefreshLibrary')?.state).toBe('Idle');
    expect([...fake.items.values()].map((i) => i.Name)).toEqual(['Song 9']);
  });

  it('the fake takes the older X-Emby-Token header and answers 401 with an empty body without one', async () => {
    const ok = await fetch(`${fake.url}/Users`, { headers: { 'X-Emby-Token': 'key-123' } });
    expect(ok.status).toBe(200);
    const refused = await fetch(`${fake.url}/Users`);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('');
  });
});
