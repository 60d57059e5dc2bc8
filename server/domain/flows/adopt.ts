import type { FlowRow, Mix } from '../../db/flows.js';
import { requests } from '../../db/requests.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { presetOf } from '../discovery/presets.js';
import { ValidationError } from '../errors.js';
import { staticPlaylistsOf, type Deps as PlaylistsStaticPlaylistsDeps } from '../playlists/staticPlaylists.js';
import { sourceAvailability, type Deps as FlowsAvailabilityDeps } from './availability.js';
import { FlowPlanner, type Deps as FlowsPlannerDeps } from './planner.js';
import { TEMPLATE_DEFAULTS } from './templates.js';
import type { Kernel } from '../../kernel.js';
import type { DownloadService } from '../downloads/service.js';
import type { FlowService } from './service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db'>
  & {
    downloads: DownloadService;
    flows: FlowService;
  }
  & FlowsAvailabilityDeps
  & FlowsPlannerDeps
  & PlaylistsStaticPlaylistsDeps;

/**
 * Editorial presets (Discover screen) adopted as a flow or as a static playlist (api.md 4.8). A
 * preset with tags draws from those tags (focus); the others keep their own mix; Deep Cuts dives deep.
 */

export interface AdoptInput {
  presetId: string;
  name?: string;
  size?: number;
  scheduleDays?: number[];
  scheduleTime?: string;
  enabled?: boolean;
}

function presetFlow(presetId: string) {
  const preset = presetOf(presetId);
  const mix: Mix = { discover: 0, mix: 0, trending: 0, focus: 0 };
  if (preset.tags.length > 0) mix.focus = 100;
  else Object.assign(mix, preset.mix);
  return { preset, mix, tags: [...preset.tags], deepDive: preset.id === 'deep-cuts' };
}

export function adoptPreset(ctx: Deps, principal: Principal, input: AdoptInput): FlowRow {
  const { preset, mix, tags, deepDive } = presetFlow(input.presetId);
  return ctx.flows.create(principal, {
    name: input.name ?? preset.name,
    description: preset.description,
    size: input.size ?? TEMPLATE_DEFAULTS.size,
    mix,
    tags,
    deepDive,
    scheduleDays: input.scheduleDays ?? TEMPLATE_DEFAULTS.scheduleDays,
    scheduleTime: input.scheduleTime ?? TEMPLATE_DEFAULTS.scheduleTime,
    enabled: input.enabled ?? true,
    discoverPresetId: preset.id,
  });
}

/**
 * Plans the preset once: the tracks already in the library make the static playlist now, the others
 * become download jobs of that playlist (`playlistType` `static`).
 */
export async function adoptPlaylist(
  ctx: Deps,
  principal: Principal,
  input: AdoptInput,
) {
  if (!isUserAccount(principal)) throw new ValidationError('A static playlist needs a real user');
  const { preset, mix, tags, deepDive } = presetFlow(input.presetId);
  const size = input.size ?? TEMPLATE_DEFAULTS.size;
  if (!Number.isInteger(size) || size <= 0 || size > 500) throw new ValidationError('size must be a whole number from 1 to 500');
  const avail = sourceAvailability(ctx);
  for (const [source, weight] of Object.entries(mix)) {
    const reason = avail[source as keyof Mix];
    if (weight > 0 && reason) throw new ValidationError(reason);
  }
  const plan = await new FlowPlanner(ctx).plan(
    { size, mix, tags, relatedArtists: [], deepDive, includeLibraryTracks: true, onePerArtist: false, yearFrom: null, yearTo: null, ownerUserId: principal.userId },
    { reserveSize: 0, seed: ctx.clock.now() % 100_000 },
  );
  const owned: number[] = [];
  const missing = [];
  for (const t of plan.tracks) {
    const id = requests.ownedTrackId(ctx.db, { mbid: t.recordingMbid, title: t.trackName, artistName: t.artistName });
    if (id !== undefined) owned.push(id);
    else missing.push(t);
  }
  const name = input.name?.trim() || preset.name;
  const playlistId = staticPlaylistsOf(ctx).create(principal.userId, name, owned, { comment: preset.description });
  const jobIds = missing.map(
    (t) =>
      ctx.downloads.create({
        userId: principal.userId,
        playlistType: 'static',
        playlistId: String(playlistId),
        artistName: t.artistName,
        trackName: t.trackName,
        albumName: t.albumName,
        artistMbid: t.artistMbid,
        recordingMbid: t.recordingMbid,
        durationMs: t.durationMs,
        year: t.year,
      }).id,
  );
  return {
    success: true,
    playlist: { id: String(playlistId), name, trackCount: owned.length },
    tracksQueued: jobIds.length,
    jobIds: jobIds.map(String),
  };
}
