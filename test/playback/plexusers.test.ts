import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER } from '../fakes/plex/index.js';
import { body, createUser, shareDen } from '../plex/helpers.js';
import { staticPlaylists, waitFor } from './helpers.js';
import { startPlexPlayback, type PlexWorld } from './setup.js';

/**
 * Each user's playlists published as their own Plex playlists: users with a Plex link (their own
 * account, or a Plex Home user an administrator linked) under their own server token, everyone
 * else's under the administrator's (owner-prefixed); linking and unlinking move the playlist.
 */
describe('publishing to Plex under each user’s own Plex identity', () => {
  let w: PlexWorld;
  let ann: { id: number; token: string };
  let bob: { id: number; token: string };
  let carl: { id: number; token: string };
  let annPlexToken: string;
  let carlPlexToken: string;
  let annServerToken: string;
  let granServerToken: string;
  const lists: Record<string, number> = {};
  const titles = (user: string) => w.f.pms.playlistsOf(user).map((p) => p.title).sort();
  const row = (listId: number) => w.rows().find((r) => r.playlist_id === String(listId)) as ReturnType<PlexWorld['rows']>[number] & { account: string; previous_account: string | null };
  const creates = () => w.f.pms.requests.filter((r) => r.method === 'POST' && r.path === '/playlists').length;
  const call = async (p: string, token: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await w.server.api(p, { ...init, token });
    return { status: res.status, body: await body(res) };
  };
  /** The user links their own Plex account through the PIN flow. */
  const linkOwn = async (user: { token: string }, plexToken: string) => {
    const pin = (await call('/api/users/me/plex-link/oauth/pin', user.token, { method: 'POST', json: {} })).body;
    w.f.tv.approve(pin.pinId, plexToken);
    const done = await call('/api/users/me/plex-link/oauth/complete', user.token, { method: 'POST', json: { pinId: pin.pinId, code: pin.code } });
    expect(done.body.linked).toBe(true);
  };
  const settledOn = (listId: number, account: (a: string) => boolean) =>
    waitFor(`publication of ${listId} moved`, () => {
      const r = row(listId);
      return r && r.done_seq >= r.want_seq && r.remote_id && r.previous_account === null && account(r.account) ? r : null;
    });

  beforeAll(async () => {
    w = await startPlexPlayback({ prefix: 'plexusers', count: 6, perAlbum: 3, inPlex: 6 });
    ann = await createUser(w.server, 'ann');
    bob = await createUser(w.server, 'bob');
    carl = await createUser(w.server, 'carl');
    annPlexToken = w.f.tv.addAccount({ username: 'ann_plays', title: 'Ann' });
    carlPlexToken = w.f.tv.addAccount({ username: 'carl_plex', title: 'Carl' });
    w.f.tv.homeUsers = [{ id: 32, uuid: 'gran-uuid', title: 'Gran', username: 'gran', restricted: true, admin: false, pin: null, token: 'gran-home-token-7c' }];
    // The Den server is shared with Ann's account and with Gran (a managed user of the owner's Plex Home).
    annServerToken = shareDen(w.f, annPlexToken, 'ann');
    granServerToken = shareDen(w.f, 'gran-home-token-7c', 'gran');
    shareDen(w.f, carlPlexToken, 'carl');
    await linkOwn(ann, annPlexToken);
    const managed = await call(`/api/users/${bob.id}/plex-link/managed`, w.server.admin.token, { method: 'POST', json: { homeUserId: '32' } });
    expect(managed.status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await w?.close();
  });

  it('two linked users each get their own Plex playlist under their own token; an unlinked user falls back to the owner', async () => {
    const s = staticPlaylists(w.server);
    lists.ann = s.create(ann.id, 'Ann evening', [w.id(1), w.id(2)]);
    lists.bob = s.create(bob.id, 'Bob morning', [w.id(3), w.id(4)]);
    lists.carl = s.create(carl.id, 'Carl commute', [w.id(5)]);
    for (const id of Object.values(lists)) await w.settled(id);

    // On the server, each token sees only its own playlists.
    expect(titles('ann')).toEqual(['Ann evening']);
    expect(titles('gran')).toEqual(['Bob morning']);
    expect(titles(OWNER)).toEqual(['carl · Carl commute']);
    expect(titles('carl')).toEqual([]);
    const annRemote = w.f.pms.playlistsOf('ann')[0]!;
    expect(annRemote.items.map((i) => i.ratingKey)).toEqual([w.rkOf(1), w.rkOf(2)]);
    expect(row(lists.ann!).remote_id).toBe(annRemote.ratingKey);
    expect(row(lists.ann!).account).toContain(`|user:${ann.id}:oauth:`);
    expect(row(lists.bob!).account).toContain(`|user:${bob.id}:managed:32`);
    expect(row(lists.carl!).account).not.toContain('|user:');

    // Every call on Ann's playlist went with Ann's own server token, Bob's with Gran's.
    const on = (rk: string) => w.f.pms.requests.filter((r) => r.path.startsWith(`/playlists/${rk}`));
    expect(on(annRemote.ratingKey).length).toBeGreaterThan(0);
    for (const r of on(annRemote.ratingKey)) expect(r.headers['x-plex-token']).toBe(annServerToken);
    for (const r of on(row(lists.bob!).remote_id!)) expect(r.headers['x-plex-token']).toBe(granServerToken);
    const created = w.f.pms.requests.filter((r) => r.method === 'POST' && r.path === '/playlists');
    expect(created.map((r) => [r.query.get('title'), r.headers['x-plex-token']])).toEqual([
      ['Ann evening', annServerToken],
      ['Bob morning', granServerToken],
      ['carl · Carl commute', w.f.serverToken],
    ]);

    // Straight to the server: Ann's token lists Ann's playlist only, and another user's is not there for it.
    const asAnn = (p: string) => fetch(`${w.f.pms.url}${p}`, { headers: { 'X-Plex-Token': annServerToken, Accept: 'application/json' } });
    const listed = (await (await asAnn('/playlists?playlistType=audio')).json()) as { MediaContainer: { Metadata: Array<{ title: string }> } };
    expect(listed.MediaContainer.Metadata.map((p) => p.title)).toEqual(['Ann evening']);
    expect((await asAnn(`/playlists/${row(lists.bob!).remote_id}/items`)).status).toBe(404);

    // The users' server tokens are stored encrypted, each with the addresses plex.tv listed.
    const identities = w.server.ctx.db.prepare('SELECT * FROM plex_publish_identities ORDER BY user_id').all() as Array<{ user_id: number; token_enc: string; origins: string }>;
    expect(identities.map((i) => i.user_id)).toEqual([ann.id, bob.id]);
    for (const i of identities) {
      expect(i.token_enc).not.toContain(annServerToken);
      expect(i.token_enc).not.toContain(granServerToken);
      expect(JSON.parse(i.origins)).toContain(new URL(w.f.pms.url).origin);
    }
  });

  it('changes follow the playlist under its owner’s token', async () => {
    staticPlaylists(w.server).update(ann.id, lists.ann!, { trackIds: [w.id(2), w.id(6)] });
    await waitFor('Ann’s change published', () => w.f.pms.playlistsOf('ann')[0]!.items.map((i) => i.ratingKey).join() === [w.rkOf(2), w.rkOf(6)].join());
    expect(titles(OWNER)).toEqual(['carl · Carl commute']);
  });

  it('a user who links Plex gets their playlist moved to their own account (deleted under the owner, created under theirs)', async () => {
    const before = creates();
    const ownerRk = row(lists.carl!).remote_id!;
    await linkOwn(carl, carlPlexToken);
    const moved = await settledOn(lists.carl!, (a) => a.includes(`|user:${carl.id}:`));
    expect(titles('carl')).toEqual(['Carl commute']);
    expect(titles(OWNER)).toEqual([]);
    expect(w.f.pms.playlists.has(ownerRk)).toBe(false);
    expect(moved.remote_id).toBe(w.f.pms.playlistsOf('carl')[0]!.ratingKey);
    expect(creates()).toBe(before + 1);
  });

  it('unlinking moves it back under the owner’s token, once, and forgets that user’s server token', async () => {
    const before = creates();
    const annRk = row(lists.ann!).remote_id!;
    expect((await call('/api/users/me/plex-link', ann.token, { method: 'DELETE' })).body).toEqual({ success: true, linked: false });
    const moved = await settledOn(lists.ann!, (a) => !a.includes('|user:'));
    expect(titles('ann')).toEqual([]);
    expect(w.f.pms.playlists.has(annRk)).toBe(false);
    expect(titles(OWNER)).toEqual(['ann · Ann evening']);
    expect(w.f.pms.playlistsOf(OWNER)[0]!.items.map((i) => i.ratingKey)).toEqual([w.rkOf(2), w.rkOf(6)]);
    expect(moved.remote_id).toBe(w.f.pms.playlistsOf(OWNER)[0]!.ratingKey);
    expect(creates()).toBe(before + 1);
    await waitFor('Ann’s identity pruned', () => !w.server.ctx.db.prepare('SELECT 1 FROM plex_publish_identities WHERE user_id = ?').get(ann.id));
  });

  it('a move while Plex is down is recorded and finished once it is back, never duplicated', async () => {
    const granRk = row(lists.bob!).remote_id!;
    w.f.pms.faults.down = true;
    expect((await call(`/api/users/${bob.id}/plex-link`, w.server.admin.token, { method: 'DELETE' })).status).toBe(200);
    // The move is in the row: the old identity and its playlist still to delete there.
    const pending = await waitFor('a failed attempt of the move', () => {
      const r = row(lists.bob!);
      return r.last_error && r.previous_account !== null ? r : null;
    });
    expect(pending.previous_account).toContain(`|user:${bob.id}:managed:32`);
    expect((pending as unknown as { previous_remote_id: string }).previous_remote_id).toBe(granRk);
    expect(pending.account).not.toContain('|user:');
    // The token stays until that playlist is gone there.
    expect(w.server.ctx.db.prepare('SELECT 1 FROM plex_publish_identities WHERE user_id = ?').get(bob.id)).toBeTruthy();

    w.f.pms.faults.down = false;
    expect((await w.admin('/api/settings/playback/plex/test', { method: 'POST', json: {} })).status).toBe(200);
    await settledOn(lists.bob!, (a) => !a.includes('|user:'));
    expect(titles('gran')).toEqual([]);
    expect(titles(OWNER)).toEqual(['ann · Ann evening', 'bob · Bob morning']);
    await waitFor('Gran’s identity pruned', () => !w.server.ctx.db.prepare('SELECT 1 FROM plex_publish_identities WHERE user_id = ?').get(bob.id));
  });
});
