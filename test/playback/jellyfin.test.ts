import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueOf } from '../../server/domain/playback/service.js';
import { startJellyfinFake, type FakeJellyfinUser, type JellyfinFake } from '../fakes/jellyfin/index.js';
import type { TestServer } from '../helpers/server.js';
import { staticPlaylists, waitFor, type LibraryFile } from './helpers.js';
import { startPlaybackWorld, type PlaybackWorld } from './setup.js';

const API_KEY = 'jf-key-5c1d0e7a9b';
const MBID_13 = '8f2b7c1e-3d4a-4b5c-9e6f-0a1b2c3d4e13';

describe('publishing playlists to Jellyfin (fake)', () => {
  let w: PlaybackWorld;
  let server: TestServer;
  let fake: JellyfinFake;
  let files: LibraryFile[];
  let adminId: number;
  let root: FakeJellyfinUser;
  let alice: FakeJellyfinUser;
  const id = (n: number) => w.id(n);
  const settled = (listId: number | string) => w.settled(listId);
  const remote = (name: string) => {
    const found = fake.byName(name);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  beforeAll(async () => {
    w = await startPlaybackWorld({ prefix: 'jf', destination: 'jellyfin', count: 14, perAlbum: 7, mbidOf: (n) => (n === 13 ? MBID_13 : undefined) });
    ({ server, files, adminId } = w);
    fake = await startJellyfinFake({ apiKey: API_KEY });
    root = fake.addUser('root', true);
    alice = fake.addUser('alice-jf');
    const item = (f: LibraryFile, patch: Partial<{ Name: string; Path: string; ProviderIds: Record<string, string> }> = {}) => ({
      Name: f.title,
      Album: f.album,
      AlbumArtist: f.artist,
      Artists: [f.artist],
      Path: `/media/music/${f.rel}`,
      RunTimeTicks: 10_000_000,
      ProviderIds: {},
      ...patch,
    });
    // Jellyfin shares the music folder for 1–10 (matched by path); 11 only after its next scan; 12
    // not at all; 13 elsewhere under another title but with the recording id; 14 elsewhere with the same tags.
    fake.addSongs(files.slice(0, 10).map((f) => item(f)));
    fake.addFiles([item(files[10]!)]);
    fake.addSongs([
      item(files[12]!, { Name: 'Night Song 13 (2024 Remaster)', Path: '/srv/other/13.flac', ProviderIds: { MusicBrainzRecording: MBID_13.toUpperCase() } }),
      item(files[13]!, { Path: '/srv/other/14.flac' }),
    ]);
    const saved = await w.admin('/api/settings', { method: 'POST', json: { playback: { jellyfin: { url: fake.url, apiKey: API_KEY, enabled: true, scanTimeoutSeconds: 10 } } } });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await w?.close();
    await fake?.close();
  });

  it('publishes a static playlist to the first administrator, matching by path, MusicBrainz id and tags after a scan, in order', async () => {
    const listId = staticPlaylists(server).create(adminId, 'Night drive', [id(3), id(1), id(11), id(2), id(12), id(13), id(14)]);
    const row = await settled(listId);
    expect(fake.scans).toBe(1);
    const p = remote('Night drive');
    expect(row).toMatchObject({ remote_id: p.id, track_count: 7, matched_count: 6, last_error: null });
    expect(p.ownerId).toBe(root.Id);
    expect(p.overview).toContain(`Tonearm static:${listId}`);
    expect(fake.titles(p.id)).toEqual(['Night Song 3', 'Night Song 1', 'Night Song 11', 'Night Song 2', 'Night Song 13 (2024 Remaster)', 'Night Song 14']);
    const methods = new Map(
      (server.ctx.db.prepare(`SELECT track_id, method FROM playback_track_matches WHERE destination = 'jellyfin'`).all() as Array<{ track_id: number; method: string }>).map((m) => [
        m.track_id,
        m.method,
      ]),
    );
    expect([methods.get(id(1)), methods.get(id(11)), methods.get(id(13)), methods.get(id(14)), methods.get(id(12))]).toEqual(['path', 'path', 'mbid', 'tags', undefined]);
    // The key only ever travels in the Authorization header.
    for (const r of fake.requests) {
      expect(r.headers.authorization).toContain(`Token="${API_KEY}"`);
      expect(r.query.toString()).not.toContain(API_KEY);
    }
    // The settings answer masks the key.
    const settings = await w.admin('/api/settings');
    expect(settings.body.playback.jellyfin).toMatchObject({ url: fake.url, apiKey: '********', enabled: true });
  });

  it('follows renames, reorders, removals and additions with the same remote playlist, then deletes it', async () => {
    const lists = staticPlaylists(server);
    const listId = lists.create(adminId, 'Harbour mix', [id(1), id(2), id(3), id(4), id(5)]);
    const first = await settled(listId);
    lists.update(adminId, listId, { name: 'Harbour mix II' });
    lists.update(adminId, listId, { trackIds: [id(5), id(1), id(2), id(14), id(7)] });
    lists.update(adminId, listId, { trackIds: [id(5), id(1), id(2), id(14), id(7), id(9)] });
    await waitFor('changes published', () => {
      const row = w.rows().find((r) => r.playlist_id === String(listId))!;
      return row.done_seq >= row.want_seq && fake.byName('Harbour mix II').length === 1;
    });
    expect(fake.byName('Harbour mix')).toHaveLength(0);
    const p = remote('Harbour mix II');
    expect(p.id).toBe(first.remote_id);
    expect(fake.titles(p.id)).toEqual(['Night Song 5', 'Night Song 1', 'Night Song 2', 'Night Song 14', 'Night Song 7', 'Night Song 9']);
    // Entries are removed by PlaylistItemId and added in batches.
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/Playlists/${p.id}/Items` && (r.query.get('entryIds') ?? '').split(',').length > 1)).toBe(true);
    expect(fake.requests.some((r) => r.method === 'POST' && r.path === `/Playlists/${p.id}/Items` && (r.query.get('ids') ?? '').split(',').length > 1)).toBe(true);

    lists.delete(adminId, listId);
    await waitFor('remote deleted', () => !fake.playlists.has(p.id));
    await waitFor('publication removed', () => !w.rows().some((r) => r.playlist_id === String(listId)));
  });

  it('forgets a match whose Jellyfin item was rescanned away and matches it anew', async () => {
    const lists = staticPlaylists(server);
    const listId = lists.create(adminId, 'Rescanned', [id(6)]);
    await settled(listId);
    // Jellyfin rescans song 7: same file, new item id. The cached match points at the old one.
    const old = [...fake.items.values()].find((i) => i.Name === 'Night Song 7')!;
    lists.update(adminId, listId, { trackIds: [id(6), id(7)] });
    fake.items.delete(old.Id);
    const [fresh] = fake.addSongs([{ ...old }]);
    const first = await waitFor('published without it', () => w.rows().find((r) => r.playlist_id === String(listId) && r.done_seq >= r.want_seq && r.track_count === 2));
    const p = remote('Rescanned');
    // Jellyfin skipped the stale id: the match is forgotten and the publication marked for a retry.
    expect(first.matched_count).toBe(1);
    expect(fake.titles(p.id)).toEqual(['Night Song 6']);
    const cached = server.ctx.db.prepare(`SELECT remote_id FROM playback_track_matches WHERE destination = 'jellyfin' AND track_id = ?`).pluck().get(id(7));
    expect(cached).toBeUndefined();
    expect((server.ctx.db.prepare(`SELECT retry_at FROM playback_publications WHERE destination = 'jellyfin' AND playlist_id = ?`).pluck().get(String(listId)) as number) > 0).toBe(true);
    // The next publish (its retry, or any change) matches the new item.
    lists.update(adminId, listId, { name: 'Rescanned' });
    await waitFor('matched anew', () => fake.titles(p.id).join() === 'Night Song 6,Night Song 7');
    expect(fake.playlists.get(p.id)!.entries.map((e) => e.itemId)).toContain(fresh!.Id);
  });

  it('finds a playlist it created but never recorded (a failure after the create) instead of making a second', async () => {
    fake.failAfter.add('POST /Playlists');
    const listId = staticPlaylists(server).create(adminId, 'Lantern songs', [id(7), id(8)]);
    await waitFor('the failed create', () => w.rows().find((r) => r.playlist_id === String(listId) && r.last_error));
    expect(fake.byName('Lantern songs')).toHaveLength(1); // made there, unknown here
    expect(w.rows().find((r) => r.playlist_id === String(listId))!.remote_id).toBeNull();
    server.clock.advance(10 * 60_000);
    server.ctx.jobs.wake(queueOf('jellyfin'));
    const row = await settled(listId);
    const p = remote('Lantern songs');
    expect(row.remote_id).toBe(p.id);
    expect(p.overview).toContain(`Tonearm static:${listId}`);
    expect(fake.titles(p.id)).toEqual(['Night Song 7', 'Night Song 8']);
  });

  it('waits while Jellyfin is down and publishes once when it is back', async () => {
    const creates = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/Playlists').length;
    const before = creates();
    fake.faults.down = true;
    const listId = staticPlaylists(server).create(adminId, 'Storm watch', [id(4), id(6)]);
    const failed = await waitFor('a failed attempt', () => w.rows().find((r) => r.playlist_id === String(listId) && r.last_error));
    expect(failed.last_error).toMatch(/connection/);
    const status = await w.admin('/api/settings/playback');
    expect(status.body.destinations.find((d: any) => d.key === 'jellyfin')).toMatchObject({ enabled: true, configured: true, pending: 1 });
    const job = server.ctx.db.prepare(`SELECT * FROM jobs WHERE queue = ? AND status = 'pending'`).get(queueOf('jellyfin')) as any;
    expect(job.run_at).toBeGreaterThan(server.clock.now() + 5_000);
    expect(fake.byName('Storm watch')).toHaveLength(0);

    fake.faults.down = false;
    const test = await w.admin('/api/settings/playback/jellyfin/test', { method: 'POST', json: {} });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ success: true, key: 'jellyfin', version: '10.10.3', authentication: 'token', canScan: true });
    expect(test.body.message).toContain('root');
    await settled(listId);
    expect(fake.titles(remote('Storm watch').id)).toEqual(['Night Song 4', 'Night Song 6']);
    expect(creates()).toBe(before + 1);
  });

  it("publishes a person's playlists as their own Jellyfin user's once chosen, and back to the default one", async () => {
    const created = await w.admin('/api/users', { method: 'POST', json: { username: 'alice', password: 'alice password 1', role: 'user' } });
    expect(created.status).toBeLessThan(300);
    const aliceId = server.ctx.users.findByUsername('alice')!.id;
    const listId = staticPlaylists(server).create(aliceId, 'Tide pool', [id(8), id(9)]);
    await settled(listId);
    // Two people share root: names get the owner's prefix.
    expect(remote('alice · Tide pool').ownerId).toBe(root.Id);
    // The reconcile task renames the playlists published before.
    server.ctx.playback.reconcile('jellyfin');
    await waitFor('admin prefix', () => fake.byName('admin · Night drive').length === 1 && fake.byName('Night drive').length === 0);

    const listed = await w.admin('/api/settings/playback/jellyfin/users');
    expect(listed.status).toBe(200);
    expect(listed.body.users.map((u: any) => u.name)).toEqual(['root', 'alice-jf']);
    expect(listed.body.defaultUserId).toBe(root.Id);
    expect(listed.body.people.find((p: any) => p.username === 'alice')).toMatchObject({ jellyfinUserId: null });

    const unknown = await w.admin(`/api/settings/playback/jellyfin/users/${aliceId}`, { method: 'PUT', json: { jellyfinUserId: 'ffffffffffffffffffffffffffffffff' } });
    expect(unknown.status).toBe(400);
    const chosen = await w.admin(`/api/settings/playback/jellyfin/users/${aliceId}`, { method: 'PUT', json: { jellyfinUserId: alice.Id } });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ userId: aliceId, username: 'alice', jellyfinUserId: alice.Id, jellyfinUserName: 'alice-jf' });
    await waitFor('moved to her own Jellyfin user', () => fake.byName('Tide pool').length === 1 && fake.byName('alice · Tide pool').length === 0);
    const own = remote('Tide pool');
    expect(own.ownerId).toBe(alice.Id);
    expect(fake.titles(own.id)).toEqual(['Night Song 8', 'Night Song 9']);
    expect((await settled(listId)).remote_id).toBe(own.id);

    const back = await w.admin(`/api/settings/playback/jellyfin/users/${aliceId}`, { method: 'PUT', json: { jellyfinUserId: null } });
    expect(back.status).toBe(200);
    await waitFor('back under root', () => fake.byName('alice · Tide pool').length === 1 && fake.byName('Tide pool').length === 0);
    expect(remote('alice · Tide pool').ownerId).toBe(root.Id);
  });

  it('keeps the key for its address only, and says so when the key is refused', async () => {
    const moved = await w.admin('/api/settings', { method: 'POST', json: { playback: { jellyfin: { url: 'http://127.0.0.2:8096', apiKey: '********' } } } });
    expect(moved.status).toBe(400);
    expect(moved.body.code).toBe('SECRET_REENTRY_REQUIRED');
    const elsewhere = await w.admin('/api/settings/playback/jellyfin/test', { method: 'POST', json: { url: 'http://127.0.0.2:8096' } });
    expect(elsewhere.status).toBe(400);
    const wrong = await w.admin('/api/settings/playback/jellyfin/test', { method: 'POST', json: { apiKey: 'not-the-key' } });
    expect(wrong.status).toBe(502);
    expect(JSON.stringify(wrong.body)).toMatch(/API key was refused/);
    const bad = await w.admin('/api/settings', { method: 'POST', json: { playback: { jellyfin: { userId: 'not an id' } } } });
    expect(bad.status).toBe(400);
  });
});
