import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playlistsRepository } from '../../server/db/playlists.js';
import { parseRestNumber, restNumberOf, type PlaylistChange } from '../../server/domain/playlists/registry.js';
import { StaticPlaylists } from '../../server/domain/playlists/staticPlaylists.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('playlist registry', () => {
  let server: TestServer;
  let adminId: number;
  let otherId: number;
  beforeAll(async () => {
    server = await startTestServer();
    const res = await server.api('/api/users', {
      method: 'POST',
      token: server.admin.token,
      json: { username: 'listener', password: 'listener password 1', role: 'user' },
    });
    expect(res.status).toBeLessThan(300);
    adminId = server.ctx.users.findByUsername('admin')!.id;
    otherId = server.ctx.users.findByUsername('listener')!.id;
  });
  afterAll(() => server.stop());

  it('keeps static numbers and separates flow and shared numbers', () => {
    expect(restNumberOf('static', 42)).toBe(42);
    for (const kind of ['flow', 'shared'] as const) {
      for (const seq of [1, 2, 977, 123456789]) {
        const n = restNumberOf(kind, seq);
        expect(n).toBeGreaterThanOrEqual(2 ** 48);
        expect(Number.isSafeInteger(n)).toBe(true);
        expect(parseRestNumber(n)).toEqual({ kind, seq });
      }
    }
    expect(restNumberOf('flow', 5)).not.toBe(restNumberOf('shared', 5));
    expect(parseRestNumber(42)).toEqual({ kind: 'static', seq: 42 });
  });

  it('finds static playlists, answers visibility and reports every change', () => {
    const registry = server.ctx.playlists;
    const changes: PlaylistChange[] = [];
    const stop = registry.onChange((c) => changes.push(c));
    const lists = new StaticPlaylists(playlistsRepository(server.ctx.db), server.ctx.clock, registry);

    const privateId = lists.create(adminId, 'Night drive', []);
    const publicId = lists.create(adminId, 'Shared mix', [], { public: true });
    expect(changes.map((c) => [c.type, c.ref.id])).toEqual([
      ['changed', String(privateId)],
      ['changed', String(publicId)],
    ]);

    const admin = { id: adminId, role: 'admin' };
    const other = { id: otherId, role: 'user' };
    const ref = registry.find(String(privateId))!;
    expect(ref).toMatchObject({ kind: 'static', name: 'Night drive', ownerUserId: adminId, public: false, restNumber: privateId });
    expect(registry.findFor(String(privateId), other)).toBeUndefined();
    expect(registry.findFor(String(publicId), other)?.name).toBe('Shared mix');
    expect(registry.canEdit(registry.find(String(publicId))!, other)).toBe(false);
    expect(registry.canEdit(ref, admin)).toBe(true);
    expect(registry.visibleTo(other).map((r) => r.id)).toEqual([String(publicId)]);
    expect(registry.findByRestNumber(publicId)?.id).toBe(String(publicId));
    expect(registry.find('not-a-playlist')).toBeUndefined();
    expect(registry.find('0')).toBeUndefined();

    lists.update(adminId, privateId, { name: 'Night drive II' });
    expect(changes.at(-1)).toMatchObject({ type: 'changed', ref: { name: 'Night drive II' } });
    lists.delete(adminId, privateId);
    expect(changes.at(-1)).toMatchObject({ type: 'deleted', ref: { id: String(privateId) } });
    expect(registry.find(String(privateId))).toBeUndefined();
    stop();
  });
});
