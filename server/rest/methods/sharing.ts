import type { ShareRow, ShareTarget } from '../../db/shares.js';
import { type ShareChanges } from '../../domain/shares/service.js';
import type { RestCall, RestMethod } from '../context.js';
import { invalidParameter, missingParameter, notFound } from '../errors.js';
import { parseId } from '../ids.js';
import { iso } from '../serialize.js';
import { songs } from '../views.js';
import type { Payload } from '../wire.js';

/** Where visitors open a share: this server as the client reached it (proxy headers only when trusted). */
export function shareUrl(call: RestCall, id: string): string {
  return `${call.req.protocol}://${call.req.get('host')}${call.rc.app.config.basePath}/share/${id}`;
}

function shareElement(call: RestCall, row: ShareRow): Payload {
  return {
    id: row.id,
    url: shareUrl(call, row.id),
    description: row.description,
    username: row.owner,
    created: iso(row.created_at),
    expires: row.expires_at !== null ? iso(row.expires_at) : undefined,
    lastVisited: row.last_visited_at !== null ? iso(row.last_visited_at) : undefined,
    visitCount: row.visit_count,
    entry: songs(call, call.rc.app.shares.trackIds(row)),
  };
}

/** `description` and `expires` (ms since 1970; 0 or absent on create: never). */
function changesOf(call: RestCall): ShareChanges {
  const expires = call.params.optionalInt('expires');
  if (expires !== undefined && expires < 0) throw invalidParameter('expires', 'must be milliseconds since 1970, or 0 for no expiry');
  return {
    description: call.params.string('description'),
    expiresAt: expires === undefined ? undefined : expires === 0 ? null : expires,
  };
}

/** A library entry is kept by its key, so the share never points at another row after a prune. */
function shareTarget(call: RestCall, raw: string): ShareTarget {
  const parsed = parseId(raw);
  if (!parsed) throw notFound(`Nothing to share with id ${raw}`);
  if (parsed.kind === 'playlist') return parsed;
  if (call.rc.ids.resolve(parsed.kind, parsed.key) === undefined) throw notFound(`Nothing to share with id ${raw}`);
  return { kind: parsed.kind, key: parsed.key };
}

function createShare(call: RestCall): Payload {
  const shares = call.rc.app.shares;
  shares.requireEnabled();
  const ids = call.params.list('id');
  if (ids.length === 0) throw missingParameter('id');
  const targets = ids.map((raw) => shareTarget(call, raw));
  const row = shares.create(call.user, targets, changesOf(call));
  return { shares: { share: [shareElement(call, row)] } };
}

export const sharingMethods: RestMethod[] = [
  {
    name: 'getShares',
    handler: (call) => ({ shares: { share: call.rc.app.shares.list(call.user).map((row) => shareElement(call, row)) } }),
  },
  { name: 'createShare', handler: createShare },
  {
    name: 'updateShare',
    handler: (call) => {
      call.rc.app.shares.update(call.user, call.params.required('id'), changesOf(call));
      return undefined;
    },
  },
  {
    name: 'deleteShare',
    handler: (call) => {
      call.rc.app.shares.delete(call.user, call.params.required('id'));
      return undefined;
    },
  },
];
