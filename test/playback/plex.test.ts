import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueOf } from '../../server/domain/playback/service.js';
import { restNumberOf, type PlaylistRef } from '../../server/domain/playlists/registry.js';
import type { TestServer } from '../helpers/server.js';
import type { PlexFakes } from '../plex/helpers.js';
import { staticPlaylists, waitFor, type LibraryFile } from './helpers.js';
import { startPlexPlayback, type PlexWorld } from './setup.js';

/** Flows and playlists published to Plex as native playlists (the PMS fake), kept in sync, through a Plex that goes down. */
describe('publishing playlists to Plex (fake Plex Media Server)', () => {
  let w: PlexWorld;
  let server: TestServer;
  let f: PlexFakes;
  let files: LibraryFile[];
  let adminId: number;
  const rkOf = (n: number) => w.rkOf(n);
  const plexFile = (file: LibraryFile) => w.plexFile(file);
  const remoteByTitle = (title: string) => [...f.pms.playlists.values()].filter((p) => p.title === title);
  const itemsOf = (title: string) => remoteByTitle(title)[0]!.items.map((i) => i.ratingKey);
  const id = (n: number) => w.id(n);
  const rows = () => w.rows();
  const settled = (listId: number | string) => w.settled(listId);
  const admin = (p: string, init: { method?: string; json?: unknown } = {}) => w.admin(p, init);

  beforeAll(async () => {
    // Plex sees the same files under its own path; the eighth one is not in Plex yet.
    w = await startPlexPlayback({ prefix: 'plex', count: 8, perAlbum: 4, inPlex: 7 });
    ({ server, f, files, adminId } = w);
  }, 60_000);

  afterAll(async () => {
    await w?.close();
  });

  it('lists Plex among the destinations and tests it', async () => {
    const status = await admin('/api/settings/playback');
    expect(status.body.destinations.map((d: { key: string }) => d.key)).toEqual(['navidrome', 'plex', 'jellyfin']);
    expect(status.body.destinations[1]).toMatchObject({ key: 'plex', name: 'Plex', enabled: true, configured: true, publishFlows: true, publishPlaylists: true });
    const tested = await admin('/api/settings/playback/plex/test', { method: 'POST', json: {} });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ success: true, key: 'plex', authentication: 'token', playlists: 0 });
    expect(tested.body.message).toContain('library “Music”');
    expect(JSON.stringify(tested.body)).not.toContain(f.serverToken);
  });

  it('publishes a static playlist in order, syncing the Plex map first, and stores its ratingKey', async () => {
    const listId = staticPlaylists(server).create(adminId, 'Night drive', [id(3), id(1), id(8), id(2)]);
    const row = await settled(listId);
    expect(remoteByTitle('Night drive')).toHaveLength(1);
    const remote = remoteByTitle('Night drive')[0]!;
    expect(row.remote_id).toBe(remote.ratingKey);
    // Song 8 is not in Plex: published without it, tried again later.
    expect(itemsOf('Night drive')).toEqual([rkOf(3), rkOf(1), rkOf(2)]);
    expect(row).toMatchObject({ track_count: 4, matched_count: 3, last_error: null });
    expect(remote.summary).toContain(`Tonearm static:${listId}`);
    expect(f.pms.refreshed).toEqual(['3']);
    // Every request carries the server's own token.
    for (const r of f.pms.requests.filter((q) => q.path.startsWith('/playlists'))) expect(r.headers['x-plex-token']).toBe(f.serverToken);
  });

  it('publishes a track Plex did not have once a Plex sync maps it', async () => {
    const row = rows().find((r) => r.remote_id === remoteByTitle('Night drive')[0]!.ratingKey)!;
    expect(row.matched_count).toBe(3);
    f.pms.tracks.push({ ratingKey: rkOf(8), sectionKey: '3', title: files[7]!.title, artist: files[7]!.artist, album: files[7]!.album, file: plexFile(files[7]!) });
    expect((await admin('/api/settings/plex/sync', { method: 'POST' })).status).toBe(200);
    await waitFor('song 8 published', () => itemsOf('Night drive').join() === [rkOf(3), rkOf(1), rkOf(8), rkOf(2)].join());
    await waitFor('fully matched', () => rows().find((r) => r.playlist_id === row.playlist_id)!.matched_count === 4);
    expect(remoteByTitle('Night drive')).toHaveLength(1);
  });

  it('follows additions, removals and renames in the same playlist (items removed by playlistItemID), then deletes it', async () => {
    const lists = staticPlaylists(server);
    const listId = lists.create(adminId, 'Harbour mix', [id(1), id(2), id(3), id(4)]);
    const first = await settled(listId);
    const rk = first.remote_id!;
    const keptItem = f.pms.playlists.get(rk)!.items[0]!.playlistItemID;
    const creates = () => f.pms.requests.filter((r) => r.method === 'POST' && r.path === '/playlists').length;
    const created = creates();

    lists.update(adminId, listId, { name: 'Harbour mix II' });
    lists.update(adminId, listId, { trackIds: [id(1), id(2), id(4), id(6), id(5)] });
    await waitFor('changes published', () => {
      const row = rows().find((r) => r.playlist_id === String(listId))!;
      return row.done_seq >= row.want_seq && remoteByTitle('Harbour mix II').length === 1;
    });
    expect(remoteByTitle('Harbour mix')).toHaveLength(0);
    expect(remoteByTitle('Harbour mix II')[0]!.ratingKey).toBe(rk);
    expect(itemsOf('Harbour mix II')).toEqual([rkOf(1), rkOf(2), rkOf(4), rkOf(6), rkOf(5)]);
    // Song 1 stayed where it was: same item, not removed and added again.
    expect(f.pms.playlists.get(rk)!.items[0]!.playlistItemID).toBe(keptItem);
    const removals = f.pms.requests.filter((r) => r.method === 'DELETE' && r.path.startsWith(`/playlists/${rk}/items/`));
    expect(removals).toHaveLength(1);
    expect(creates()).toBe(created);

    // A reorder: the items end in the new order.
    lists.update(adminId, listId, { trackIds: [id(5), id(4), id(1)] });
    await waitFor('reorder published', () => itemsOf('Harbour mix II').join() === [rkOf(5), rkOf(4), rkOf(1)].join());

    lists.delete(adminId, listId);
    await waitFor('deleted there', () => !f.pms.playlists.has(rk));
    await waitFor('publication removed', () => !rows().some((r) => r.playlist_id === String(listId)));
  });

  it('delays publishing while Plex is down and publishes once when it is back', async () => {
    f.pms.faults.down = true;
    const listId = staticPlaylists(server).create(adminId, 'Storm watch', [id(4), id(6)]);
    const failed = await waitFor('a failed attempt', () => rows().find((r) => r.playlist_id === String(listId) && r.last_error));
    expect(failed.remote_id).toBeNull();
    const status = await admin('/api/settings/playback');
    expect(status.body.destinations[1]).toMatchObject({ key: 'plex', pending: 1 });
    expect(status.body.destinations[1].lastError).toBeTruthy();
    const job = server.ctx.db.prepare(`SELECT * FROM jobs WHERE queue = ? AND status = 'pending'`).get(queueOf('plex')) as { run_at: number };
    expect(job.run_at).toBeGreaterThan(server.clock.now() + 5_000);

    f.pms.faults.down = false;
    // A successful test makes the waiting retry due now.
    expect((await admin('/api/settings/playback/plex/test', { method: 'POST', json: {} })).status).toBe(200);
    const row = await settled(listId);
    expect(remoteByTitle('Storm watch')).toHaveLength(1);
    expect(row.remote_id).toBe(remoteByTitle('Storm watch')[0]!.ratingKey);
    expect(itemsOf('Storm watch')).toEqual([rkOf(4), rkOf(6)]);
    const status2 = await admin('/api/settings/playback');
    expect(status2.body.destinations[1]).toMatchObject({ pending: 0, lastError: null });
  });

  it('publishes a flow, follows it, takes it down when flows are switched off and when it is deleted', async () => {
    // A stand-in for the flows provider: every kind reaches the destinations through the registry.
    const registry = server.ctx.playlists;
    const flowId = '0d5a7c1e-6f2b-4e8a-9c3d-5b7e1f2a4c60';
    let tracks = [id(6), id(5)];
    let ref: PlaylistRef | undefined = {
      kind: 'flow', id: flowId, restNumber: restNumberOf('flow', 7), name: 'Weekly flow', comment: '', ownerUserId: adminId, owner: 'admin',
      public: false, createdAt: 0, updatedAt: 0, songCount: 2, durationMs: 2000, firstTrackId: null,
    };
    const previous = registry.provider('flow');
    registry.register({
      kind: 'flow',
      visibleTo: (viewer) => (ref && viewer.id === adminId ? [ref] : []),
      find: (fid) => (fid === flowId ? ref : undefined),
      findByRestNumber: () => undefined,
      canSee: () => true,
      canEdit: () => true,
      trackIds: () => tracks,
    });
    try {
      registry.changed(ref!);
      const row = await settled(flowId);
      expect(itemsOf('Weekly flow')).toEqual([rkOf(6), rkOf(5)]);
      expect(f.pms.playlists.get(row.remote_id!)!.summary).toContain(`Tonearm flow:${flowId}`);
      tracks = [id(7), id(6)];
      registry.changed(ref!);
      await waitFor('flow regenerated', () => itemsOf('Weekly flow').join() === [rkOf(7), rkOf(6)].join());

      const save = (publishFlows: boolean) => admin('/api/settings', { method: 'POST', json: { playback: { plex: { publishFlows } } } });
      expect((await save(false)).status).toBe(200);
      await waitFor('flow taken down', () => remoteByTitle('Weekly flow').length === 0);
      expect(remoteByTitle('Night drive')).toHaveLength(1);
      expect((await save(true)).status).toBe(200);
      await waitFor('flow published again', () => remoteByTitle('Weekly flow').length === 1);

      const gone = ref!;
      ref = undefined;
      registry.deleted(gone);
      await waitFor('flow deleted there', () => remoteByTitle('Weekly flow').length === 0);
      await waitFor('publication removed', () => !rows().some((r) => r.playlist_id === flowId));
    } finally {
      if (previous) registry.register(previous);
    }
  });

  it('finds a playlist it created but did not record (by title) instead of making a second one', async () => {
    const listId = staticPlaylists(server).create(adminId, 'Lost and found', [id(7)]);
    const row = await settled(listId);
    // Forget the stored ratingKey and the marker there, as after a crash between creating and recording it.
    server.ctx.db.prepare(`UPDATE playback_publications SET remote_id = NULL WHERE destination = 'plex' AND playlist_id = ?`).run(String(listId));
    f.pms.playlists.get(row.remote_id!)!.summary = '';
    staticPlaylists(server).update(adminId, listId, { trackIds: [id(7), id(5)] });
    await waitFor('published again', () => {
      const r = rows().find((x) => x.playlist_id === String(listId));
      return r && r.done_seq >= r.want_seq && r.remote_id === row.remote_id;
    });
    expect(remoteByTitle('Lost and found')).toHaveLength(1);
    expect(itemsOf('Lost and found')).toEqual([rkOf(7), rkOf(5)]);
    expect(remoteByTitle('Lost and found')[0]!.summary).toContain(`Tonearm static:${listId}`);
  });
});
