import crypto from 'node:crypto';
import { userScope } from '../../db/discovery.js';
import { downloads, downloadStatuses, type DownloadJobRow, type DownloadStatus } from '../../db/downloads.js';
import { flows, MIX_SOURCES, type FlowFields, type FlowRow, type FlowRunRow, type Mix, type PlannedTrack } from '../../db/flows.js';
import {
  deleteRunsOfFlow, firstJobOfRun, openTracksOfRun, pendingJobsByDedupe, rotationStatements, runTrackIds, tracksDurationMs } from '../../db/flowQueries.js';
import type { Job } from '../../jobs/queue.js';
import { isUserAccount, type Principal } from '../auth/principal.js';
import { cancelJob, type Deps as DownloadsCancelDeps } from '../downloads/cancel.js';
import { researchJob, type Deps as DownloadsControlDeps } from '../downloads/control.js';
import { removeSafely } from '../downloads/filing.js';
import { downloadsRoot, type Deps as DownloadsLayoutDeps } from '../downloads/layout.js';
import { presentJob } from '../downloads/present.js';
import { canSeeAllJobs, type DownloadService } from '../downloads/service.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { staticPlaylistsOf, type Deps as PlaylistsStaticPlaylistsDeps } from '../playlists/staticPlaylists.js';
import { restNumberOf, type PlaylistRef, type PlaylistRegistry } from '../playlists/registry.js';
import { historyArtists, sourceAvailability, templateUnavailable, type Deps as FlowsAvailabilityDeps } from './availability.js';
import { FlowPlanner, type Deps as FlowsPlannerDeps } from './planner.js';
import { feedOf, importListOf, type Deps as FlowsFeedDeps } from './feed.js';
import {
  FLOW_OP_QUEUE,
  FLOW_RUN_QUEUE,
  REFRESH_WAIT_MS,
  scheduleNext,
  waitKey,
  type RunPayload,
  type Deps as FlowsScheduleDeps,
} from './schedule.js';
import { FlowTrackSummaries, type Deps as FlowsSummariesDeps } from './summaries.js';
import { FLOW_TEMPLATES, TEMPLATE_DEFAULTS } from './templates.js';
import { refreshFlowVisibility, type Deps as FlowsVisibilityDeps } from './visibility.js';
import type { Kernel } from '../../kernel.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { LibraryService } from '../library/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'db' | 'jobs' | 'log'>
  & {
    discovery: DiscoveryService;
    downloads: DownloadService;
    flows: FlowService;
    library: LibraryService;
    playlists: PlaylistRegistry;
  }
  & DownloadsCancelDeps
  & DownloadsControlDeps
  & DownloadsLayoutDeps
  & FlowsAvailabilityDeps
  & FlowsFeedDeps
  & FlowsPlannerDeps
  & FlowsScheduleDeps
  & FlowsSummariesDeps
  & FlowsVisibilityDeps
  & PlaylistsStaticPlaylistsDeps;

const OPEN_STATUSES = ['pending', 'downloading', 'blocked'] as const;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The body of POST /flows and PUT /flows/:id (every field optional: templates and partial updates). */
export interface FlowInput {
  name?: string;
  description?: string;
  size?: number;
  mix?: Partial<Mix>;
  tags?: string[];
  relatedArtists?: string[];
  deepDive?: boolean;
  recordHistory?: boolean;
  showInLibrary?: boolean;
  includeLibraryTracks?: boolean;
  /** At most one track per artist (release radar: else several tracks of a new album). */
  onePerArtist?: boolean;
  yearFrom?: number | null;
  yearTo?: number | null;
  scheduleDays?: number[];
  scheduleTime?: string;
  enabled?: boolean;
  templateId?: string;
  discoverPresetId?: string | null;
}

export type OpPayload = { op: 'disable' | 'delete'; flowId: string };

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export class FlowService {
  /** Track counts and durations of the current runs (summaries.ts). */
  private readonly summaries: FlowTrackSummaries;

  constructor(private readonly ctx: Deps) {
    this.summaries = new FlowTrackSummaries(ctx);
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  // ---- reading -------------------------------------------------------------------------------

  ref(f: FlowRow): PlaylistRef {
    const ids = this.trackIds(f);
    const duration = tracksDurationMs(this.ctx.db, ids);
    return {
      kind: 'flow',
      id: f.id,
      restNumber: restNumberOf('flow', f.seq),
      name: f.name,
      comment: f.description,
      ownerUserId: f.ownerUserId,
      owner: f.owner,
      public: false,
      createdAt: f.createdAt,
      updatedAt: f.updatedAt,
      songCount: ids.length,
      durationMs: duration,
      firstTrackId: ids[0] ?? null,
    };
  }

  /** Library track ids of the current run's downloaded tracks, in playlist order. */
  trackIds(f: FlowRow): number[] {
    if (f.currentRunId === null) return [];
    return runTrackIds(this.ctx.db, f.currentRunId).filter((id): id is number => id !== null);
  }

  /** A flow the principal may see (its owner, or an administrator), else 404. */
  visible(principal: Principal, id: string): FlowRow {
    const f = flows.get(this.ctx.db, id);
    if (!f || !(f.ownerUserId === principal.userId || canSeeAllJobs(principal))) throw new NotFoundError('Flow not found', `No flow ${id}`);
    return f;
  }

  /** A flow the principal may change (its owner, or an administrator). */
  private editable(principal: Principal, id: string): FlowRow {
    return this.visible(principal, id);
  }

  list(principal: Principal): FlowRow[] {
    return flows.list(this.ctx.db, canSeeAllJobs(principal) ? undefined : principal.userId);
  }

  /**
   * Many flows at once (the playlist status): the job counts come from the caller's one grouped
   * query, the track counts, durations and current runs from one query each, so presenting 100
   * flows costs a few statements instead of several per flow. The JSON is `present`'s.
   */
  presentMany(fs: FlowRow[], counts: Map<string, Record<DownloadStatus, number>>, ownerUserId?: number) {
    const runs = flows.currentRuns(this.ctx.db, ownerUserId);
    const tracks = this.summaries.get(ownerUserId);
    const none = Object.fromEntries(downloadStatuses.map((k) => [k, 0])) as Record<DownloadStatus, number>;
    return fs.map((f) => {
      const t = f.currentRunId === null ? undefined : tracks.get(f.currentRunId);
      return this.present(f, {
        counts: counts.get(f.id) ?? none,
        run: f.currentRunId === null ? undefined : (runs.get(f.currentRunId) ?? flows.run(this.ctx.db, f.currentRunId)),
        songCount: t?.songCount ?? 0,
        durationMs: t?.durationMs ?? 0,
      });
    });
  }

  /** Keeps the track summaries per audience until something changes (see FlowTrackSummaries). */
  watchTrackSummaries(): void {
    this.summaries.watch();
  }

  present(f: FlowRow, pre?: { counts: Record<DownloadStatus, number>; run: FlowRunRow | undefined; songCount: number; durationMs: number }) {
    const counts = pre?.counts ?? downloads.countsByStatus(this.ctx.db, { playlistType: 'flow', playlistId: f.id });
    const run = pre ? pre.run : f.currentRunId === null ? undefined : flows.run(this.ctx.db, f.currentRunId);
    const ref = pre ? { songCount: pre.songCount, durationMs: pre.durationMs } : this.ref(f);
    return {
      id: f.id,
      name: f.name,
      description: f.description,
      size: f.size,
      ownerUserId: f.ownerUserId,
      owner: f.owner,
      enabled: f.enabled,
      mix: f.mix,
      tags: f.tags,
      relatedArtists: f.relatedArtists,
      deepDive: f.deepDive,
      recordHistory: f.recordHistory,
      showInLibrary: f.showInLibrary,
      includeLibraryTracks: f.includeLibraryTracks,
      onePerArtist: f.onePerArtist,
      yearFrom: f.yearFrom,
      yearTo: f.yearTo,
      scheduleDays: f.scheduleDays,
      scheduleTime: f.scheduleTime,
      templateId: f.templateId,
      discoverPresetId: f.discoverPresetId,
      playlistType: 'flow' as const,
      trackCount: ref.songCount,
      durationMs: ref.durationMs,
      nextRunAt: f.enabled ? iso(f.nextRunAt) : null,
      lastRunAt: iso(f.lastRunAt),
      lastError: f.lastError,
      stats: { total: Object.values(counts).reduce((a, b) => a + b, 0), ...counts },
      currentRun: run
        ? { id: run.id, status: run.status, trigger: run.trigger, planned: run.planned, reserve: run.reserve, error: run.error, createdAt: iso(run.createdAt), finishedAt: iso(run.finishedAt) }
        : null,
      createdAt: iso(f.createdAt),
      updatedAt: iso(f.updatedAt),
    };
  }

  // ---- validation ------------------------------------------------------------------------------

  private fields(input: FlowInput, base: FlowFields | null, ownerUserId: number, exceptId?: string): FlowFields {
    let start: FlowFields | null = base;
    if (input.templateId !== undefined) {
      const t = FLOW_TEMPLATES.find((x) => x.id === input.templateId);
      if (!t) throw new ValidationError('Unknown flow template');
      const unavailable = templateUnavailable(this.ctx, t, ownerUserId);
      if (unavailable) throw new ValidationError(unavailable);
      start = {
        name: t.name,
        description: t.description,
        size: TEMPLATE_DEFAULTS.size,
        mix: t.mix,
        tags: [],
        relatedArtists: t.fromHistory ? historyArtists(this.ctx, ownerUserId) : [],
        deepDive: TEMPLATE_DEFAULTS.deepDive,
        recordHistory: false,
        showInLibrary: false,
        includeLibraryTracks: false,
        onePerArtist: t.onePerArtist ?? false,
        yearFrom: null,
        yearTo: null,
        scheduleDays: TEMPLATE_DEFAULTS.scheduleDays,
        scheduleTime: TEMPLATE_DEFAULTS.scheduleTime,
        enabled: true,
        templateId: t.id,
        discoverPresetId: null,
      };
    }
    const name = (input.name ?? start?.name ?? '').trim();
    if (!name) throw new ValidationError('Flow name is required');
    if (name.length > 200) throw new ValidationError('Flow name must be at most 200 characters');
    const size = input.size ?? start?.size;
    if (size === undefined) throw new ValidationError('size is required');
    if (!Number.isInteger(size) || size <= 0) throw new ValidationError('size must be a whole number greater than 0');
    if (size > 500) throw new ValidationError('size must be at most 500');
    const mixIn = input.mix ?? start?.mix;
    if (!mixIn) throw new ValidationError('mix is required');
    const mix: Mix = { discover: 0, mix: 0, trending: 0, focus: 0 };
    for (const s of MIX_SOURCES) {
      const v = mixIn[s] ?? 0;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ValidationError(`mix.${s} must be a number of 0 or more`);
      mix[s] = v;
    }
    const clean = (list: string[]) => [...new Map(list.map((x) => x.trim()).filter(Boolean).map((x) => [x.toLowerCase(), x])).values()];
    const tags = clean(input.tags ?? start?.tags ?? []).map((t) => t.toLowerCase());
    const relatedArtists = clean(input.relatedArtists ?? start?.relatedArtists ?? []);
    if (MIX_SOURCES.reduce((a, s) => a + mix[s], 0) <= 0) throw new ValidationError('At least one source must be enabled');
    if (mix.focus > 0 && tags.length === 0 && relatedArtists.length === 0) throw new ValidationError('Focus needs at least one tag or related artist');
    const avail = sourceAvailability(this.ctx);
    for (const s of MIX_SOURCES) if (mix[s] > 0 && avail[s]) throw new ValidationError(avail[s]!);
    const scheduleDays = input.scheduleDays ?? start?.scheduleDays;
    if (!scheduleDays || scheduleDays.length === 0) throw new ValidationError('scheduleDays must list at least one day');
    if (scheduleDays.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) throw new ValidationError('scheduleDays are weekday numbers from 0 (Sunday) to 6 (Saturday)');
    const scheduleTime = input.scheduleTime ?? start?.scheduleTime;
    if (!scheduleTime) throw new ValidationError('scheduleTime is required');
    if (!TIME.test(scheduleTime)) throw new ValidationError('scheduleTime must be HH:MM (24 hours)');
    const year = (v: number | null | undefined, field: string) => {
      if (v === null || v === undefined) return null;
      if (!Number.isInteger(v) || v < 1000 || v > 9999) throw new ValidationError(`${field} must be a 4-digit year`);
      return v;
    };
    const yearFrom = year(input.yearFrom !== undefined ? input.yearFrom : start?.yearFrom, 'yearFrom');
    const yearTo = year(input.yearTo !== undefined ? input.yearTo : start?.yearTo, 'yearTo');
    if (yearFrom !== null && yearTo !== null && yearFrom > yearTo) throw new ValidationError('yearFrom must not be after yearTo');
    if (flows.nameTaken(this.ctx.db, ownerUserId, name, exceptId)) throw new ValidationError('A flow with this name already exists');
    return {
      name,
      description: (input.description ?? start?.description ?? '').trim(),
      size,
      mix,
      tags,
      relatedArtists,
      deepDive: input.deepDive ?? start?.deepDive ?? false,
      recordHistory: input.recordHistory ?? start?.recordHistory ?? false,
      showInLibrary: input.showInLibrary ?? start?.showInLibrary ?? false,
      includeLibraryTracks: input.includeLibraryTracks ?? start?.includeLibraryTracks ?? false,
      onePerArtist: input.onePerArtist ?? start?.onePerArtist ?? false,
      yearFrom,
      yearTo,
      scheduleDays: [...new Set(scheduleDays)].sort(),
      scheduleTime,
      enabled: input.enabled ?? start?.enabled ?? true,
      templateId: start?.templateId ?? null,
      discoverPresetId: input.discoverPresetId !== undefined ? input.discoverPresetId : (start?.discoverPresetId ?? null),
    };
  }

  // ---- changes -------------------------------------------------------------------------------

  create(principal: Principal, input: FlowInput): FlowRow {
    if (!isUserAccount(principal)) throw new ValidationError('Flow ownership requires a real user');
    const fields = this.fields(input, null, principal.userId);
    const f = flows.insert(this.ctx.db, crypto.randomUUID(), principal.userId, fields, this.now());
    scheduleNext(this.ctx, f);
    this.ctx.playlists.changed(this.ref(flows.get(this.ctx.db, f.id)!));
    return flows.get(this.ctx.db, f.id)!;
  }

  update(principal: Principal, id: string, input: FlowInput): FlowRow {
    const f = this.editable(principal, id);
    if (f.ownerUserId === null) throw new ConflictError('This flow has no owner and cannot be changed', 'FLOW_RETIRED');
    const { templateId: _ignored, ...rest } = input;
    const fields = this.fields(rest, f, f.ownerUserId, f.id);
    flows.update(this.ctx.db, id, fields, this.now());
    const after = flows.get(this.ctx.db, id)!;
    if (after.showInLibrary !== f.showInLibrary) refreshFlowVisibility(this.ctx, { flowId: id });
    scheduleNext(this.ctx, after);
    this.ctx.playlists.changed(this.ref(after));
    return flows.get(this.ctx.db, id)!;
  }

  setEnabled(principal: Principal, id: string, enabled: boolean) {
    const f = this.editable(principal, id);
    flows.setState(this.ctx.db, id, { enabled }, this.now());
    const after = flows.get(this.ctx.db, id)!;
    scheduleNext(this.ctx, after);
    this.ctx.playlists.changed(this.ref(after));
    if (enabled) return { success: true, flowId: f.id, enabled: true, tracksQueued: 0, message: `${f.name} is on: it runs on its schedule` };
    const op = this.ctx.jobs.enqueue<OpPayload>(FLOW_OP_QUEUE, { op: 'disable', flowId: id }, { name: `flow disable ${id}` });
    return { success: true, flowId: f.id, enabled: false, queued: true, operationId: String(op.id) };
  }

  remove(principal: Principal, id: string) {
    const f = this.editable(principal, id);
    const ref = this.ref(f);
    if (f.nextQueueJobId !== null) this.ctx.jobs.cancel(f.nextQueueJobId);
    flows.delete(this.ctx.db, id);
    this.ctx.playlists.deleted(ref);
    const op = this.ctx.jobs.enqueue<OpPayload>(FLOW_OP_QUEUE, { op: 'delete', flowId: id }, { name: `flow delete ${id}` });
    return { success: true, flowId: id, queued: true, operationId: String(op.id) };
  }

  /** POST /start/:flowId: a run now, through the queue. */
  start(principal: Principal, id: string) {
    const f = this.editable(principal, id);
    if (f.ownerUserId === null) throw new ConflictError('This flow has no owner and cannot run', 'FLOW_RETIRED');
    const q = this.ctx.jobs.enqueue<RunPayload>(FLOW_RUN_QUEUE, { flowId: f.id, trigger: 'manual' }, { name: `flow run ${f.id}`, dedupeKey: `flow-manual:${f.id}`, maxAttempts: 3 });
    return { success: true, flowId: f.id, queued: true, operationId: String(q.id), tracksQueued: 0, jobIds: [] as string[], reserveTracks: 0 };
  }

  // ---- runs ----------------------------------------------------------------------------------

  /** The queue handler of a run: plan, then rotate the previous run out and queue the new tracks. */
  async runJob(job: Job<RunPayload>): Promise<void> {
    const { flowId, trigger } = job.payload;
    let f = flows.get(this.ctx.db, flowId);
    if (!f || f.ownerUserId === null) return;
    if (trigger === 'schedule' && (!f.enabled || f.nextQueueJobId !== job.id)) return;
    let run = flows.runOfQueueJob(this.ctx.db, job.id);
    // A run planned before a crash is not planned again; a rotation the crash cut short is finished.
    if (run && run.status !== 'planning') {
      const first = firstJobOfRun(this.ctx.db, run.id);
      if (first !== null && f.currentRunId === run.id)
        this.rotateOut(downloads.list(this.ctx.db, { playlistType: 'flow', playlistId: flowId, limit: 100_000, offset: 0 }).filter((j) => j.id < first));
      return;
    }
    // Discover and Trending draw on what the owner's discovery refresh saves: while one is under way
    // (or none ever ran with the current provider) the run waits for it instead of planning nothing.
    if (!run && !job.payload.afterRefresh && this.waitForDiscovery(f, f.ownerUserId, trigger)) return;
    run ??= flows.insertRun(this.ctx.db, { flowId, queueJobId: job.id, trigger }, this.now());
    const rescheduleIfScheduled = () => {
      const now = flows.get(this.ctx.db, flowId);
      if (trigger === 'schedule' && now) scheduleNext(this.ctx, now);
    };
    let plan;
    try {
      plan = await new FlowPlanner(this.ctx).plan({ ...f, ownerUserId: f.ownerUserId }, { seed: run.id * 7919 + f.seq, exclude: flows.recentKeys(this.ctx.db, flowId, 1, run.id) });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      flows.finishRun(this.ctx.db, run.id, 'failed', { error: message }, this.now());
      flows.setState(this.ctx.db, flowId, { lastError: message, lastRunAt: this.now() }, this.now());
      this.ctx.log.warn('flow run failed', { flowId, error: message });
      rescheduleIfScheduled();
      return;
    }
    f = flows.get(this.ctx.db, flowId);
    if (!f || f.ownerUserId === null) return;
    if (plan.tracks.length === 0) {
      const discoveryError = this.ctx.discovery.repo.state(userScope(f.ownerUserId))?.last_error ?? null;
      const message = discoveryError
        ? `No tracks found for this flow: discovery could not update: ${discoveryError}`
        : 'No tracks found for this flow: discovery has nothing new for its sources yet';
      flows.finishRun(this.ctx.db, run.id, 'failed', { error: message, planned: 0 }, this.now());
      flows.setState(this.ctx.db, flowId, { lastError: message, lastRunAt: this.now() }, this.now());
      rescheduleIfScheduled();
      return;
    }
    const owner = f.ownerUserId;
    const previous = downloads.list(this.ctx.db, { playlistType: 'flow', playlistId: flowId, limit: 100_000, offset: 0 });
    const runId = run.id;
    this.ctx.db.transaction(() => {
      const main = flows.insertTracks(this.ctx.db, runId, flowId, plan.tracks, false, 0);
      flows.insertTracks(this.ctx.db, runId, flowId, plan.reserve, true, main.length);
      for (const t of main) flows.assign(this.ctx.db, t.id, this.createJob(owner, flowId, t).id);
      flows.finishRun(this.ctx.db, runId, 'downloading', { planned: plan.tracks.length, reserve: plan.reserve.length }, this.now());
      flows.setState(this.ctx.db, flowId, { currentRunId: runId, lastRunAt: this.now(), lastError: null }, this.now());
    })();
    this.rotateOut(previous);
    this.ctx.log.info('flow run planned', { flowId, tracks: plan.tracks.length, reserve: plan.reserve.length, counts: plan.counts });
    this.ctx.playlists.changed(this.ref(flows.get(this.ctx.db, flowId)!));
    rescheduleIfScheduled();
  }

  /**
   * Parks a run of a flow using Discover or Trending while the owner's discovery refresh is queued
   * or running (one is queued first when none ever ran with the current provider): a durable run
   * job `afterRefresh` waits in the queue, made due when the refresh ends (discoveryRefreshed) and
   * due on its own after REFRESH_WAIT_MS. True when the run was parked.
   */
  private waitForDiscovery(f: FlowRow, owner: number, trigger: RunPayload['trigger']): boolean {
    if (f.mix.discover <= 0 && f.mix.trending <= 0) return false;
    const discovery = this.ctx.discovery;
    if (!discovery.refreshOpen(owner)) {
      if (!discovery.needsFirstRefresh(owner)) return false;
      discovery.enqueue(owner);
    }
    this.enqueueAfterRefresh(f, trigger, this.now() + REFRESH_WAIT_MS);
    this.ctx.log.info('flow run waits for the discovery refresh', { flowId: f.id, userId: owner });
    return true;
  }

  private enqueueAfterRefresh(f: FlowRow, trigger: RunPayload['trigger'], runAt: number): void {
    const q = this.ctx.jobs.enqueue<RunPayload>(FLOW_RUN_QUEUE, { flowId: f.id, trigger, afterRefresh: true }, { name: `flow run ${f.id}`, dedupeKey: waitKey(f.id), runAt, maxAttempts: 3 });
    // A scheduled run's job is the flow's next run: the waiting job takes its place.
    if (trigger === 'schedule') flows.setState(this.ctx.db, f.id, { nextQueueJobId: q.id }, this.now());
  }

  /** The owner's discovery refresh ended: runs of their flows waiting for it are due now. */
  discoveryRefreshed(userId: number): void {
    for (const f of flows.list(this.ctx.db, userId)) {
      for (const waiting of pendingJobsByDedupe(this.ctx.db, FLOW_RUN_QUEUE, waitKey(f.id))) {
        if (!this.ctx.jobs.cancel(waiting.id)) continue;
        this.enqueueAfterRefresh(f, f.nextQueueJobId === waiting.id ? 'schedule' : 'manual', this.now());
      }
    }
  }

  private createJob(owner: number, flowId: string, t: PlannedTrack): DownloadJobRow {
    return this.ctx.downloads.create({
      userId: owner,
      playlistType: 'flow',
      playlistId: flowId,
      artistName: t.artistName,
      trackName: t.trackName,
      albumName: t.albumName,
      artistMbid: t.artistMbid,
      recordingMbid: t.recordingMbid,
      durationMs: t.durationMs,
      year: t.year,
    });
  }

  /**
   * The previous run's jobs leave the flow: open ones are cancelled, the rows deleted, and their
   * files removed only when nothing else uses them (a file of the library linked by reuse, a file
   * another job points at, a track in a static playlist stays).
   */
  rotateOut(jobs: DownloadJobRow[]): number {
    const root = downloadsRoot(this.ctx);
    const rotation = rotationStatements(this.ctx.db);
    const removed: string[] = [];
    // Files that stay (something else uses them) and reused tracks: whether the library shows them may change.
    const kept: string[] = [];
    const reused: number[] = [];
    for (const job of jobs) {
      if ((OPEN_STATUSES as readonly string[]).includes(job.status)) cancelJob(this.ctx, job, [...OPEN_STATUSES], 'Rotated out of the flow');
      rotation.deleteJob(job.id);
      const file = job.finalPath;
      if (job.reusedTrackId !== null) reused.push(job.reusedTrackId);
      if (!file || job.reusedTrackId !== null || job.status !== 'done') continue;
      if (!rotation.inStaticPlaylist(file) && removeSafely(this.ctx.db, root, file, job.id)) removed.push(file);
      else kept.push(file);
    }
    if (kept.length > 0 || reused.length > 0) refreshFlowVisibility(this.ctx, { paths: kept, trackIds: reused });
    if (removed.length > 0) {
      try {
        this.ctx.library.scans.requestScan('quick', 'flow tracks rotated out', removed);
      } catch (err) {
        this.ctx.log.warn('library scan request failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    return removed.length;
  }

  /**
   * POST /api/playlists/reset: the selected flows go back to empty. Their jobs stop and go, their
   * runs and planned tracks go, and their files go by the rotation's rule (only files nothing else
   * uses). The flows themselves, their settings and their schedules stay. Every id must be a flow
   * the caller may change, else 404 and nothing is reset.
   */
  reset(principal: Principal, ids: string[]) {
    const targets = [...new Set(ids)].map((id) => this.editable(principal, id));
    let removedFiles = 0;
    let removedJobs = 0;
    for (const f of targets) {
      if (f.ownerUserId !== null) {
        // A manual run waiting in the queue would fill the flow right back.
        const waiting = [...pendingJobsByDedupe(this.ctx.db, FLOW_RUN_QUEUE, `flow-manual:${f.id}`), ...pendingJobsByDedupe(this.ctx.db, FLOW_RUN_QUEUE, waitKey(f.id))];
        for (const w of waiting) this.ctx.jobs.cancel(w.id);
      }
      const jobs = downloads.list(this.ctx.db, { playlistType: 'flow', playlistId: f.id, limit: 100_000, offset: 0 });
      removedJobs += jobs.length;
      removedFiles += this.rotateOut(jobs);
      this.ctx.db.transaction(() => {
        deleteRunsOfFlow(this.ctx.db, f.id);
        flows.setState(this.ctx.db, f.id, { currentRunId: null, lastError: null }, this.now());
      })();
      this.ctx.playlists.changed(this.ref(flows.get(this.ctx.db, f.id)!));
    }
    return { success: true, reset: targets.map((f) => f.id), removedJobs, removedFiles };
  }

  /** Disable: open jobs stop. Delete: every job of the flow goes, files as in a rotation. */
  opJob(job: Job<OpPayload>): void {
    const { op, flowId } = job.payload;
    const jobs = downloads.list(this.ctx.db, { playlistType: 'flow', playlistId: flowId, limit: 100_000, offset: 0 });
    if (op === 'delete') {
      if (flows.get(this.ctx.db, flowId)) return;
      this.rotateOut(jobs);
      return;
    }
    const f = flows.get(this.ctx.db, flowId);
    if (!f || f.enabled) return;
    for (const j of jobs) if (j.status === 'pending' || j.status === 'downloading') cancelJob(this.ctx, j, ['pending', 'downloading'], 'Flow disabled');
  }

  /** A job of a flow changed: a failure pulls the next reserve track; a finished run is marked done. */
  onJobChanged(job: DownloadJobRow, previousStatus: string | null): void {
    if (job.playlistType !== 'flow' || job.playlistId === null || job.status === previousStatus) return;
    const track = flows.trackOfJob(this.ctx.db, job.id);
    if (!track || track.state !== 'queued') return;
    const f = flows.get(this.ctx.db, job.playlistId);
    if (!f || f.currentRunId !== track.runId || f.ownerUserId === null) return;
    const owner = f.ownerUserId;
    if (job.status === 'failed') {
      const reserve = flows.nextReserve(this.ctx.db, track.runId);
      if (reserve) {
        this.ctx.db.transaction(() => {
          flows.markReplaced(this.ctx.db, track.id);
          flows.assign(this.ctx.db, reserve.id, this.createJob(owner, f.id, reserve).id, track.position);
        })();
      }
    }
    if (job.status === 'done' || job.status === 'failed' || job.status === 'cancelled') {
      if (openTracksOfRun(this.ctx.db, track.runId) === 0) flows.finishRun(this.ctx.db, track.runId, 'done', {}, this.now());
      this.ctx.playlists.changed(this.ref(flows.get(this.ctx.db, f.id)!));
    }
  }

  // ---- routes around the run ------------------------------------------------------------------

  /** Jobs of a flow (the current run's first, in playlist order) or of a static playlist. */
  jobsOf(principal: Principal, id: string) {
    const f = flows.get(this.ctx.db, id);
    if (f) {
      this.visible(principal, id);
      const order = new Map<number, number>();
      if (f.currentRunId !== null) for (const t of flows.tracks(this.ctx.db, f.currentRunId)) if (t.jobId !== null) order.set(t.jobId, t.reserve ? 1e9 + t.position : t.position);
      const jobs = downloads.list(this.ctx.db, { playlistType: 'flow', playlistId: id, limit: 100_000, offset: 0 });
      return jobs.sort((a, b) => (order.get(a.id) ?? 2e9 + a.id) - (order.get(b.id) ?? 2e9 + b.id)).map(presentJob);
    }
    const ref = this.ctx.playlists.find(id);
    if (!ref || ref.kind === 'flow' || !this.ctx.playlists.canSee(ref, { id: principal.userId, role: principal.role })) throw new NotFoundError('Playlist not found', `No flow or playlist ${id}`);
    return downloads
      .list(this.ctx.db, { playlistType: ref.kind, playlistId: id, limit: 100_000, offset: 0, ...(canSeeAllJobs(principal) ? {} : { userId: principal.userId }) })
      .map(presentJob);
  }

  research(principal: Principal, flowId: string, jobId: number) {
    this.visible(principal, flowId);
    const job = downloads.get(this.ctx.db, jobId);
    if (!job || job.playlistType !== 'flow' || job.playlistId !== flowId) throw new NotFoundError('Job not found', `Download job ${jobId} is not in this flow`);
    return researchJob(this.ctx, principal, jobId);
  }

  /** The current run's downloaded tracks kept as a static playlist of the caller. */
  keepAsStatic(principal: Principal, flowId: string, name: string | undefined) {
    if (!isUserAccount(principal)) throw new ValidationError('A static playlist needs a real user');
    const f = this.visible(principal, flowId);
    const ids = this.trackIds(f);
    if (ids.length === 0) throw new ConflictError('This flow has no completed tracks to keep yet', 'NO_COMPLETED_TRACKS');
    const d = new Date(this.now());
    const label = name?.trim() || `${f.name} ${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const id = staticPlaylistsOf(this.ctx).create(principal.userId, label, ids);
    return { success: true, playlistId: String(id), name: label, trackCount: ids.length };
  }

  // ---- Lidarr import list (feed.ts) ------------------------------------------------------------

  importList(principal: Principal, flowId: string) {
    return importListOf(this.ctx, this.visible(principal, flowId));
  }

  feed(flowId: string, token: string | undefined) {
    return feedOf(this.ctx, flowId, token);
  }
}
