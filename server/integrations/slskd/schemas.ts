import { z } from 'zod';

/**
 * slskd's answers. Current builds serialise camelCase; older ones PascalCase with Newtonsoft's
 * `{"$values": [...]}` arrays. `normaliseKeys` turns both into the camelCase shape these schemas read.
 */
export function normaliseKeys(value: unknown): unknown {
  // Current builds already answer in this shape: hand the parsed answer on without copying it.
  return isNormal(value) ? value : copyNormalised(value);
}

/** No PascalCase key and no `$` wrapper anywhere (a walk that allocates nothing). */
function isNormal(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(isNormal);
  if (value === null || typeof value !== 'object') return true;
  for (const key in value) {
    const first = key.charCodeAt(0);
    if (first === 36 /* $ */ || (first >= 65 && first <= 90) /* A-Z */) return false;
    if (!isNormal((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function copyNormalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyNormalised);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.$values)) return record.$values.map(copyNormalised);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record)) {
    if (key.startsWith('$')) continue;
    out[key.charAt(0).toLowerCase() + key.slice(1)] = copyNormalised(v);
  }
  return out;
}

const optionalNumber = z.number().nullish().transform((v) => v ?? null);

export const slskdFileSchema = z.looseObject({
  /** The sharer's path, Windows-style with backslashes. */
  filename: z.string(),
  size: z.number(),
  extension: z.string().nullish(),
  bitRate: optionalNumber,
  bitDepth: optionalNumber,
  sampleRate: optionalNumber,
  /** Seconds. */
  length: optionalNumber,
  isLocked: z.boolean().optional(),
});
export type SlskdFile = z.infer<typeof slskdFileSchema>;

export const slskdResponseSchema = z.looseObject({
  username: z.string(),
  fileCount: z.number().optional(),
  lockedFileCount: z.number().optional(),
  hasFreeUploadSlot: z.boolean().optional(),
  uploadSpeed: z.number().optional(),
  queueLength: z.number().optional(),
  files: z.array(slskdFileSchema).default([]),
  lockedFiles: z.array(slskdFileSchema).default([]),
});
export type SlskdResponse = z.infer<typeof slskdResponseSchema>;

export const slskdSearchSchema = z.looseObject({
  id: z.string(),
  searchText: z.string(),
  state: z.string().default(''),
  isComplete: z.boolean().optional(),
  fileCount: z.number().default(0),
  responseCount: z.number().default(0),
  startedAt: z.string().nullish(),
  endedAt: z.string().nullish(),
  responses: z.array(slskdResponseSchema).default([]),
});
export type SlskdSearch = z.infer<typeof slskdSearchSchema>;

export const slskdTransferSchema = z.looseObject({
  id: z.string(),
  username: z.string(),
  direction: z.string().optional(),
  filename: z.string(),
  size: z.number(),
  state: z.string(),
  bytesTransferred: z.number().default(0),
  bytesRemaining: z.number().optional(),
  percentComplete: z.number().default(0),
  averageSpeed: z.number().optional(),
  placeInQueue: optionalNumber,
  requestedAt: z.string().nullish(),
  endedAt: z.string().nullish(),
  exception: z.string().nullish(),
});
export type SlskdTransfer = z.infer<typeof slskdTransferSchema>;

export const slskdTransferUsersSchema = z.array(
  z.looseObject({
    username: z.string(),
    directories: z.array(z.looseObject({ directory: z.string(), files: z.array(slskdTransferSchema).default([]) })).default([]),
  }),
);

/** Enqueue answers differ by version: an array of transfers, `{enqueued, failed}`, or nothing. */
export const slskdEnqueueSchema = z.union([
  z.looseObject({
    enqueued: z.array(z.looseObject({ filename: z.string() })).default([]),
    failed: z.array(z.union([z.string(), z.looseObject({ filename: z.string(), message: z.string().nullish() })])).default([]),
  }),
  z.array(z.looseObject({ filename: z.string() })),
  z.undefined(),
]);

export const slskdApplicationSchema = z.looseObject({
  version: z.union([z.string(), z.looseObject({ current: z.string().nullish(), full: z.string().nullish() })]).optional(),
  server: z
    .looseObject({ state: z.string().nullish(), isConnected: z.boolean().optional(), isLoggedIn: z.boolean().optional() })
    .optional(),
});

export const slskdOptionsSchema = z.looseObject({
  directories: z
    .looseObject({ downloads: z.union([z.string(), z.array(z.string())]).nullish(), incomplete: z.string().nullish() })
    .optional(),
});

/** Search states are comma-joined flags: `InProgress`, `Completed, TimedOut`, ... */
export function searchIsComplete(search: Pick<SlskdSearch, 'state' | 'isComplete'>): boolean {
  return search.isComplete === true || /\bCompleted\b/.test(search.state);
}

/** Transfer states: `Queued, Remotely`, `InProgress`, `Completed, Succeeded`, `Completed, Errored`, ... */
export function transferIsFinished(state: string): boolean {
  return /\bCompleted\b/.test(state);
}

export function transferSucceeded(state: string): boolean {
  return /\bCompleted\b/.test(state) && /\bSucceeded\b/.test(state);
}
