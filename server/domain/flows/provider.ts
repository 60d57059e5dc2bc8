import { flows } from '../../db/flows.js';
import type { Kernel } from '../../kernel.js';
import type { PlaylistProvider, PlaylistRef, PlaylistViewer } from '../playlists/registry.js';
import type { FlowService } from './service.js';

/** What the flows' registry entry uses of the server's context. */
export type Deps = Pick<Kernel, 'db'> & { flows: FlowService };

/** The flow kind of playlist for the registry: the owner's own flows, readable by administrators. */
export function flowProvider(ctx: Deps): PlaylistProvider {
  const svc = ctx.flows;
  return {
    kind: 'flow' as const,
    visibleTo: (viewer: PlaylistViewer) => flows.list(ctx.db, viewer.id).map((f) => svc.ref(f)),
    find: (id: string) => {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
      const f = flows.get(ctx.db, id);
      return f && svc.ref(f);
    },
    findByRestNumber: (n: number) => {
      const base = 2 ** 48;
      if (!Number.isSafeInteger(n) || n < base || (n - base) % 2 !== 0) return undefined;
      const f = flows.bySeq(ctx.db, (n - base) / 2);
      return f && svc.ref(f);
    },
    canSee: (ref: PlaylistRef, viewer: PlaylistViewer) => ref.ownerUserId === viewer.id || viewer.role === 'admin',
    canEdit: (ref: PlaylistRef, viewer: PlaylistViewer) => ref.ownerUserId === viewer.id,
    trackIds: (id: string) => {
      const f = flows.get(ctx.db, id);
      return f ? svc.trackIds(f) : [];
    },
  };
}
