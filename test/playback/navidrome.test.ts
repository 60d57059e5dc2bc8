import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueOf } from '../../server/domain/playback/service.js';
import { restNumberOf, type PlaylistRef } from '../../server/domain/playlists/registry.js';
import { startNavidromeFake, type NavidromeFake } from '../fakes/navidrome/index.js';
import type { TestServer } from '../helpers/server.js';
import { configureNavidrome, publications, staticPlaylists, waitFor, type LibraryFile } from './helpers.js';
import { startPlaybackWorld, type PlaybackWorld } from './setup.js';

const PASSWORD = 'nävi secret 77';

describe('publishing playlists to Navidrome (fake)', () => {
  let w: PlaybackWorld;
  let server: TestServer;
  let fake: NavidromeFake;
  let files: LibraryFile[];
  let ids: Map<string, number>;
  let adminId: number;
  const remoteByName = (name: string) => [...fake.state.playlists.values()].filter((p) => p.name === name);
  const titlesOf = (name: string) => remoteByName(name)[0]!.songIds.map((id) => fake.state.songs.get(id)!.title);
  const settled = (id: number | string) => w.settled(id);

  beforeAll(async () => {
    w = await startPlaybackWorld({ prefix: 'nd', destination: 'navidrome', count: 12, perAlbum: 6 });
    ({ server, files, ids, adminId } = w);
    fake = await startNavidromeFake({ username: 'tonearm', password: PASSWORD });
    // Navidrome shares the music folder: ten files indexed, two new ones only after its next scan.
    const song = (f: LibraryFile) => ({ title: f.title, artist: f.artist, album: f.album, path: f.rel, duration: 1, track: f.track });
    fake.addSongs(files.slice(0, 10).map(song));
    fake.addFiles(files.slice(10).map(song));
    await configureNavidrome(server, fake.url, 'tonearm', PASSWORD);
  });
  afterAll(async () => {
    await w?.close();
    await fake?.close();
  });

  const id = (n: number) => ids.get(`Night Song ${n}`)!;

  it('publishes a static playlist, scanning for tracks Navidrome did not know, in order', async () => {
    const listId = staticPlaylists(server).create(adminId, 'Night drive', [id(3), id(1), id(11), id(2)]);
    const row = await settled(listId);
    expect(fake.state.scans).toBe(1);
    expect(remoteByName('Night drive')).toHaveLength(1);
    const remote = remoteByName('Night drive')[0]!;
    expect(row.remote_id).toBe(remote.id);
    expect(titlesOf('Night drive')).toEqual(['Night Song 3', 'Night Song 1', 'Night Song 11', 'Night Song 2']);
    expect(remote.comment).toContain(`Tonearm static:${listId}`);
    expect(row).toMatchObject({ track_count: 4, matched_count: 4, last_error: null });
    // Token authentication with a fresh salt, never the password.
    for (const r of fake.state.requests) {
      expect(r.query.p).toBeUndefined();
      expect(r.query.t).toMatch(/^[0-9a-f]{32}$/);
    }
    // Matches are cached: publishing again searches nothing.
    const searches = fake.state.requests.filter((r) => r.method === 'search3').length;
    staticPlaylists(server).update(adminId, listId, { name: 'Night drive' });
    await waitFor('second publish', () => publications(server).find((r) => r.playlist_id === String(listId) && r.done_seq === 2));
    expect(fake.state.requests.filter((r) => r.method === 'search3').length).toBe(searches);
  });

  it('follows renames, reorders, removals and additions with the same remote playlist, then deletes it', async () => {
    const lists = staticPlaylists(server);
    const listId = lists.create(adminId, 'Harbour mix', [id(1), id(2), id(3), id(4), id(5)]);
    const first = await settled(listId);
    const remoteId = first.remote_id;
    // Several changes in a row: coalesced, the newest state wins.
    lists.update(adminId, listId, { name: 'Harbour mix II' });
    lists.update(adminId, listId, { trackIds: [id(1), id(2), id(5), id(12), id(7)] });
    lists.update(adminId, listId, { trackIds: [id(1), id(2), id(5), id(12), id(7), id(9)] });
    await waitFor('changes published', () => {
      const row = publications(server).find((r) => r.playlist_id === String(listId))!;
      return row.done_seq >= row.want_seq && remoteByName('Harbour mix II').length === 1;
    });
    expect(remoteByName('Harbour mix')).toHaveLength(0);
    expect(remoteByName('Harbour mix II')[0]!.id).toBe(remoteId);
    expect(titlesOf('Harbour mix II')).toEqual(['Night Song 1', 'Night Song 2', 'Night Song 5', 'Night Song 12', 'Night Song 7', 'Night Song 9']);
    // updatePlaylist carries repeated songIdToAdd / songIndexToRemove keys.
    const updates = fake.state.requests.filter((r) => r.method === 'updatePlaylist' && r.query.playlistId === remoteId);
    expect(updates.some((u) => (u.all.songIndexToRemove ?? []).length > 1)).toBe(true);
    expect(updates.some((u) => (u.all.songIdToAdd ?? []).length > 1)).toBe(true);

    lists.delete(adminId, listId);
    await waitFor('remote deleted', () => !fake.state.playlists.has(remoteId!));
    await waitFor('publication removed', () => !publications(server).some((r) => r.playlist_id === String(listId)));
  });

  it('delays publishing while Navidrome is down and publishes once when it is back', async () => {
    fake.state.down = true;
    const listId = staticPlaylists(server).create(adminId, 'Storm watch', [id(4), id(6)]);
    const failed = await waitFor('a failed attempt', () => publications(server).find((r) => r.playlist_id === String(listId) && r.last_error));
    expect(failed.last_error).toMatch(/connection/);
    const status = (await (await server.api('/api/settings/playback', { token: server.admin.token })).json()) as any;
    expect(status.destinations[0]).toMatchObject({ key: 'navidrome', enabled: true, configured: true, pending: 1 });
    expect(status.destinations[0].lastError).toMatch(/connection/);
    // The job waits for its backoff; nothing reaches Navidrome meanwhile.
    const job = server.ctx.db.prepare(`SELECT * FROM jobs WHERE queue = ? AND status = 'pending'`).get(queueOf('navidrome')) as any;
    expect(job.run_at).toBeGreaterThan(server.clock.now() + 5_000);

    fake.state.down = false;
    // The destination's test succeeds: waiting publications go now.
    const test = await server.api('/api/settings/playback/navidrome/test', { method: 'POST', token: server.admin.token, json: {} });
    expect(test.status).toBe(200);
    const tested = (await test.json()) as any;
    expect(tested).toMatchObject({ success: true, key: 'navidrome', type: 'navidrome', authentication: 'token', canScan: true });
    await settled(listId);
    expect(remoteByName('Storm watch')).toHaveLength(1);
    expect(fake.state.requests.filter((r) => r.method === 'createPlaylist' && r.query.name === 'Storm watch')).toHaveLength(1);
    expect(titlesOf('Storm watch')).toEqual(['Night Song 4', 'Night Song 6']);
    const after = (await (await server.api('/api/settings/playback', { token: server.admin.token })).json()) as any;
    expect(after.destinations[0]).toMatchObject({ pending: 0, lastError: null });
  });

  it('remembers changes made while publishing is off and sends them when it is back on', async () => {
    const save = (enabled: boolean) =>
      server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { playback: { navidrome: { enabled } } } });
    const row = publications(server).find((r) => remoteByName('Storm watch')[0]?.id === r.remote_id)!;
    expect((await save(false)).status).toBe(200);
    const before = fake.state.requests.length;
    staticPlaylists(server).update(adminId, Number(row.playlist_id), { trackIds: [id(6), id(4), id(5)] });
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.state.requests.length).toBe(before);
    expect(titlesOf('Storm watch')).toEqual(['Night Song 4', 'Night Song 6']);
    expect((await save(true)).status).toBe(200);
    await waitFor('published when back on', () => titlesOf('Storm watch').join() === 'Night Song 6,Night Song 4,Night Song 5');
  });

  it('finds a playlist it created but never recorded (a crash before the answer) instead of making a second', async () => {
    fake.state.dropAnswer.add('createPlaylist');
    const listId = staticPlaylists(server).create(adminId, 'Lantern songs', [id(7), id(8)]);
    await waitFor('the lost answer', () => publications(server).find((r) => r.playlist_id === String(listId) && r.last_error));
    expect(remoteByName('Lantern songs')).toHaveLength(1); // made there, unknown here
    expect(publications(server).find((r) => r.playlist_id === String(listId))!.remote_id).toBeNull();
    server.clock.advance(10 * 60_000);
    server.ctx.jobs.wake(queueOf('navidrome'));
    const row = await settled(listId);
    expect(remoteByName('Lantern songs')).toHaveLength(1);
    expect(row.remote_id).toBe(remoteByName('Lantern songs')[0]!.id);
    expect(titlesOf('Lantern songs')).toEqual(['Night Song 7', 'Night Song 8']);
  });

  it("puts the owner's name before playlist names once several people share the account", async () => {
    const res = await server.api('/api/users', {
      method: 'POST',
      token: server.admin.token,
      json: { username: 'alice', password: 'alice password 1', role: 'user' },
    });
    expect(res.status).toBeLessThan(300);
    const aliceId = server.ctx.users.findByUsername('alice')!.id;
    const aliceList = staticPlaylists(server).create(aliceId, 'Night drive', [id(5)]);
    await settled(aliceList);
    expect(remoteByName('alice · Night drive')).toHaveLength(1);
    // The reconcile task renames the playlists published before.
    server.ctx.playback.reconcileAll();
    await waitFor('admin prefix', () => remoteByName('admin · Night drive').length === 1 && remoteByName('Night drive').length === 0);
    expect(titlesOf('admin · Night drive')).toEqual(['Night Song 3', 'Night Song 1', 'Night Song 11', 'Night Song 2']);
    expect(titlesOf('alice · Night drive')).toEqual(['Night Song 5']);
  });

  it('publishes every kind the registry knows: a flow, changed, switched off and deleted', async () => {
    // A stand-in for the flows provider (registered by the flows area): every kind goes through the registry.
    const registry = server.ctx.playlists;
    const flowId = '7f1c2a9e-0b1d-4c55-9a57-3f0c8f6b2d11';
    let tracks = [id(10), id(9)];
    let ref: PlaylistRef | undefined = {
      kind: 'flow', id: flowId, restNumber: restNumberOf('flow', 1), name: 'Weekly flow', comment: '', ownerUserId: adminId, owner: 'admin',
      public: false, createdAt: 0, updatedAt: 0, songCount: 2, durationMs: 2000, firstTrackId: null,
    };
    registry.register({
      kind: 'flow',
      visibleTo: (viewer) => (ref && viewer.id === adminId ? [ref] : []),
      find: (fid) => (fid === flowId ? ref : undefined),
      findByRestNumber: () => undefined,
      canSee: () => true,
      canEdit: () => true,
      trackIds: () => tracks,
    });
    registry.changed(ref!);
    const row = await settled(flowId);
    expect(titlesOf('admin · Weekly flow')).toEqual(['Night Song 10', 'Night Song 9']);
    expect(fake.state.playlists.get(row.remote_id!)!.comment).toContain(`Tonearm flow:${flowId}`);

    tracks = [id(8), id(10)];
    registry.changed(ref!);
    await waitFor('flow regenerated', () => titlesOf('admin · Weekly flow').join() === 'Night Song 8,Night Song 10');

    // Flows switched off: the published flow is taken down; back on: published again.
    const save = (publishFlows: boolean) =>
      server.api('/api/settings', { method: 'POST', token: server.admin.token, json: { playback: { navidrome: { publishFlows } } } });
    expect((await save(false)).status).toBe(200);
    await waitFor('flow unpublished', () => remoteByName('admin · Weekly flow').length === 0);
    expect(remoteByName('admin · Night drive')).toHaveLength(1);
    expect((await save(true)).status).toBe(200);
    await waitFor('flow published again', () => remoteByName('admin · Weekly flow').length === 1);

    const gone = ref!;
    ref = undefined;
    registry.deleted(gone);
    await waitFor('flow deleted there', () => remoteByName('admin · Weekly flow').length === 0);
    await waitFor('publication removed', () => !publications(server).some((r) => r.playlist_id === flowId));
  });

  it('never returns the password', async () => {
    const answers = await Promise.all([
      server.api('/api/settings', { token: server.admin.token }).then((r) => r.text()),
      server.api('/api/settings/playback', { token: server.admin.token }).then((r) => r.text()),
      server.api('/api/settings/playback/navidrome/test', { method: 'POST', token: server.admin.token, json: {} }).then((r) => r.text()),
      server.api('/api/settings/playback/navidrome/test', { method: 'POST', token: server.admin.token, json: { password: 'wrong one' } }).then((r) => r.text()),
      server.api('/api/settings/musicserver/test', { method: 'POST', token: server.admin.token, json: {} }).then((r) => r.text()),
    ]);
    for (const text of answers) expect(text).not.toContain(PASSWORD);
    // Sealed in the database too.
    const stored = server.ctx.db.prepare("SELECT value FROM settings WHERE key = 'settings'").pluck().get() as string;
    expect(stored).not.toContain(PASSWORD);
    expect(JSON.parse(stored).integrations.navidrome.password).toMatch(/^sealed:v1:/);
    expect(JSON.parse(answers[0]!).integrations.navidrome.password).toBe('********');
    expect(JSON.parse(answers[3]!)).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });
    // Another address with the saved password: refused, the password is never sent there.
    const moved = await server.api('/api/settings/playback/navidrome/test', { method: 'POST', token: server.admin.token, json: { url: 'http://127.0.0.1:9' } });
    expect(moved.status).toBe(400);
    expect(((await moved.json()) as any).code).toBe('SECRET_REENTRY_REQUIRED');
    const unknown = await server.api('/api/settings/playback/emby/test', { method: 'POST', token: server.admin.token, json: {} });
    expect(unknown.status).toBe(404);
    // Jellyfin is a destination (decisions §12), not configured here.
    const jellyfin = await server.api('/api/settings/playback/jellyfin/test', { method: 'POST', token: server.admin.token, json: {} });
    expect(jellyfin.status).toBe(409);
    expect(((await jellyfin.json()) as any).code).toBe('NOT_CONFIGURED');
  });
});
