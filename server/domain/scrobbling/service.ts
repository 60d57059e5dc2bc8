import crypto from 'node:crypto';
import { externalBase } from '../../basePath.js';
import { scrobbleDeliveries, scrobbleLinks, SCROBBLE_SERVICES, type ScrobbleDeliveryRow, type ScrobbleKind, type ScrobbleService } from '../../db/scrobbling.js';
import { IntegrationError } from '../../integrations/errors.js';
import { KoitoClient, koitoBaseUrl } from '../../integrations/koito/client.js';
import { LastFmScrobbler, lastFmAuthPageUrl, type LastFmPlay } from '../../integrations/lastfm/scrobbler.js';
import { ListenBrainzClient, type ListenBrainzListen, type ListenType } from '../../integrations/listenbrainz/client.js';
import { PermanentJobError, RetryJobError, type Job } from '../../jobs/queue.js';
import { decrypt, encrypt } from '../../secrets.js';
import { NotConfiguredError, ValidationError } from '../errors.js';
import type { Role } from '../auth/permissions.js';
import { userEnteredTargets, type Deps as NetworkPrivateTargetsDeps } from '../network/privateTargets.js';
import type { Settings } from '../settings/schema.js';
import type { JobLinks } from '../../jobs/links.js';
import type { Kernel } from '../../kernel.js';
import type { MetadataService } from '../metadata/service.js';
import type { SettingsStore } from '../settings/store.js';
import type { UsersService } from '../users/service.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps =
  Pick<Kernel, 'clock' | 'config' | 'db' | 'jobs' | 'log' | 'onClose' | 'scheduler' | 'secrets'>
  & {
    settings: SettingsStore;
    users: UsersService;
    metadata: MetadataService;
    scrobbleOutbox: JobLinks<ScrobbleLinkRow>;
  }
  & NetworkPrivateTargetsDeps;

/** The outbox queue: one queue job per outbox row. */
export const SCROBBLE_QUEUE = 'scrobbles';
/** Scrobbles: 30 s, 1, 2, 4, 8, 16 min … up to 1 h between attempts, 10 attempts (about 8 hours). */
export const SCROBBLE_ATTEMPTS = 10;
export const SCROBBLE_BACKOFF = { baseMs: 30_000, maxMs: 3600_000 };
/** "Now playing" is worth little later: two attempts, and none once the track is surely over. */
const NOW_PLAYING_ATTEMPTS = 2;
const NOW_PLAYING_STALE_MS = 10 * 60_000;
/** Delivered and failed outbox rows are kept this long for diagnosis. */
const KEEP_MS = 30 * 24 * 3600_000;
/** A Last.fm link must be completed within this time of asking for the authorization page. */
const LINK_STATE_TTL_MS = 15 * 60_000;
export const LASTFM_CALLBACK_PATH = '/api/scrobbling/lastfm/link/callback';
/** Where the browser lands after the Last.fm authorization (the web UI's account settings). */
export const LINK_DONE_PATH = '/settings/account';
const SUBMISSION_CLIENT = 'Tonearm';

/** A play as the outbox stores it. */
export interface ScrobblePlay {
  artist: string;
  title: string;
  album: string | null;
  durationMs: number | null;
  trackMbid: string | null;
  albumMbid: string | null;
  artistMbid: string | null;
  /** When the track started, milliseconds since the epoch. */
  playedAt: number;
}

export interface ServiceStatus {
  configured: boolean;
  linked: boolean;
  username: string | null;
}
export type ScrobblingStatus = Record<ScrobbleService, ServiceStatus>;

/** The link secret could not be used and another attempt with it cannot succeed. */
class NotDeliverable extends Error {}
const finalKinds = new Set(['unauthorized', 'bad_request', 'refused', 'wrong_url', 'not_found']);
const describe = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

export function lastfmConfigured(settings: Settings): boolean {
  const s = settings.integrations.lastfm;
  return s.enabled && s.apiKey !== '' && s.apiSecret !== '';
}

function lastfmUnavailable(settings: Settings): NotConfiguredError | null {
  const s = settings.integrations.lastfm;
  if (!s.apiKey) return new NotConfiguredError('integrations.lastfm.apiKey', 'Last.fm scrobbling needs an API key: set integrations.lastfm.apiKey in Settings');
  if (!s.apiSecret) return new NotConfiguredError('integrations.lastfm.apiSecret', 'Last.fm scrobbling needs the shared secret of the API key: set integrations.lastfm.apiSecret in Settings');
  if (!s.enabled) return new NotConfiguredError('integrations.lastfm.enabled', 'Last.fm is switched off in Settings (integrations.lastfm.enabled)');
  return null;
}

function userAgent(ctx: Deps): string {
  return ctx.metadata.userAgent();
}

function lastfmScrobbler(ctx: Deps): LastFmScrobbler {
  const unavailable = lastfmUnavailable(ctx.settings.get());
  if (unavailable) throw unavailable;
  const { apiKey, apiSecret } = ctx.settings.get().integrations.lastfm;
  const spacing = ctx.config.upstreams.spacingMs;
  return new LastFmScrobbler({ baseUrl: ctx.config.upstreams.lastfm, apiKey, apiSecret, userAgent: userAgent(ctx), ...(spacing !== null && { spacingMs: spacing }) });
}

function listenBrainz(ctx: Deps, token: string): ListenBrainzClient {
  const spacing = ctx.config.upstreams.spacingMs;
  return new ListenBrainzClient({ baseUrl: ctx.config.upstreams.listenbrainz, userAgent: userAgent(ctx), token, retries: 0, ...(spacing !== null && { spacingMs: spacing }) });
}

/** The Koito server a user entered: LAN and loopback only for administrators, or hosts an administrator allowed (privateTargets.ts). */
function koito(ctx: Deps, baseUrl: string, token: string, role: Role): KoitoClient {
  const spacing = ctx.config.upstreams.spacingMs;
  return new KoitoClient({ baseUrl, token, userAgent: userAgent(ctx), allowPrivateTargets: userEnteredTargets(ctx, role), retries: 0, ...(spacing !== null && { spacingMs: spacing }) });
}

/**
 * What a person other than an administrator hears when linking Koito fails for any reason but the
 * key: the same words whether the address was refused, nothing listened there, or something that
 * is not Koito answered, so the link cannot be used to learn which ports answer behind the server.
 */
export const KOITO_UNREACHABLE = 'Koito could not be reached at that address';

/** `GET /api/scrobbling/status`: what each service can do for this user; never a secret. */
export function scrobblingStatus(ctx: Deps, userId: number): ScrobblingStatus {
  const links = new Map(scrobbleLinks.list(ctx.db, userId).map((l) => [l.service, l]));
  const configured: Record<ScrobbleService, boolean> = { lastfm: lastfmConfigured(ctx.settings.get()), listenbrainz: true, koito: true };
  return Object.fromEntries(
    SCROBBLE_SERVICES.map((s) => [s, { configured: configured[s], linked: links.has(s), username: links.get(s)?.username ?? null }]),
  ) as ScrobblingStatus;
}

// ---- Last.fm web authorization ----------------------------------------------------------------

const usedStates = new Map<string, number>();

function stateKey(ctx: Deps): Buffer {
  return crypto.createHmac('sha256', ctx.secrets.sessionKey).update('scrobbling:lastfm-link-state').digest();
}

/** A state that ties the callback (a browser redirect without our credentials) to the user who asked. */
export function signLinkState(ctx: Deps, userId: number): string {
  const body = Buffer.from(JSON.stringify({ u: userId, e: ctx.clock.now() + LINK_STATE_TTL_MS, n: crypto.randomBytes(12).toString('base64url') })).toString('base64url');
  const mac = crypto.createHmac('sha256', stateKey(ctx)).update(body).digest('base64url');
  return `${body}.${mac}`;
}

/** The user the state was made for; throws when it is forged, expired or used already. */
export function verifyLinkState(ctx: Deps, state: string): number {
  const [body, mac] = state.split('.');
  if (!body || !mac) throw new ValidationError('The Last.fm link request is not valid: start linking again', 'INVALID_STATE');
  const expected = crypto.createHmac('sha256', stateKey(ctx)).update(body).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new ValidationError('The Last.fm link request is not valid: start linking again', 'INVALID_STATE');
  const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { u: number; e: number; n: string };
  const now = ctx.clock.now();
  if (parsed.e < now) throw new ValidationError('The Last.fm link request expired: start linking again', 'INVALID_STATE');
  for (const [n, e] of usedStates) if (e < now) usedStates.delete(n);
  if (usedStates.has(parsed.n)) throw new ValidationError('This Last.fm link request was used already: start linking again', 'INVALID_STATE');
  usedStates.set(parsed.n, parsed.e);
  return parsed.u;
}

/** `GET /api/scrobbling/lastfm/link`: the linked state, or Last.fm's authorization page with our callback. */
export function lastfmLink(ctx: Deps, userId: number, origin: string): { linked: true; username: string | null } | { linked: false; url: string } {
  const link = scrobbleLinks.get(ctx.db, userId, 'lastfm');
  if (link) return { linked: true, username: link.username };
  const unavailable = lastfmUnavailable(ctx.settings.get());
  if (unavailable) throw unavailable;
  const callback = new URL(`${externalBase(ctx.config, origin)}${LASTFM_CALLBACK_PATH}`);
  callback.searchParams.set('state', signLinkState(ctx, userId));
  return { linked: false, url: lastFmAuthPageUrl(ctx.config.upstreams.lastfmAuth, ctx.settings.get().integrations.lastfm.apiKey, callback.href) };
}

/** The callback: trades Last.fm's token for a session key (signed auth.getSession) and stores it encrypted. */
export async function completeLastfmLink(ctx: Deps, state: string, token: string): Promise<{ userId: number; username: string }> {
  const userId = verifyLinkState(ctx, state);
  if (!token) throw new ValidationError('Last.fm sent no token back: the authorization was not granted', 'LASTFM_NO_TOKEN');
  let session: { name: string; key: string };
  try {
    session = await lastfmScrobbler(ctx).getSession(token);
  } catch (err) {
    if (err instanceof IntegrationError && /error 13/.test(err.message))
      throw new ValidationError('Last.fm refused the signature of the request (error 13): check the API secret (integrations.lastfm.apiSecret)', 'LASTFM_BAD_SIGNATURE');
    if (err instanceof IntegrationError && /error 1[45]/.test(err.message))
      throw new ValidationError('Last.fm did not accept the authorization token (not authorized or expired): start linking again', 'LASTFM_BAD_TOKEN');
    throw err;
  }
  scrobbleLinks.upsert(ctx.db, { userId, service: 'lastfm', username: session.name, secretEnc: encrypt(ctx.secrets.encryptionKey, session.key), baseUrl: null }, ctx.clock.now());
  ctx.log.info('Last.fm account linked', { userId, username: session.name });
  return { userId, username: session.name };
}

// ---- ListenBrainz and Koito -------------------------------------------------------------------

/** `PUT /api/scrobbling/listenbrainz/link`: the token is checked with validate-token before it is stored. */
export async function linkListenBrainz(ctx: Deps, userId: number, token: string): Promise<{ linked: true; username: string | null }> {
  const name = await listenBrainz(ctx, token).validateToken();
  if (name === null) throw new ValidationError('ListenBrainz did not accept this user token', 'INVALID_TOKEN');
  scrobbleLinks.upsert(ctx.db, { userId, service: 'listenbrainz', username: name || null, secretEnc: encrypt(ctx.secrets.encryptionKey, token), baseUrl: null }, ctx.clock.now());
  return { linked: true, username: name || null };
}

/** `PUT /api/scrobbling/koito/link`: the address goes through the private-address guard, the key is checked. */
export async function linkKoito(ctx: Deps, caller: { userId: number; role: Role }, url: string, token: string): Promise<{ linked: true; username: string | null; url: string }> {
  const { userId, role } = caller;
  const base = koitoBaseUrl(url);
  if (!base) throw new ValidationError('The Koito address must be an http(s) URL without credentials', 'INVALID_URL');
  let name: string | null;
  try {
    name = await koito(ctx, base, token, role).validateToken();
  } catch (err) {
    if (role !== 'admin') {
      if (err instanceof IntegrationError) ctx.log.info('Koito link failed', { userId, kind: err.kind, error: describe(err) });
      throw new ValidationError(`${KOITO_UNREACHABLE}. If it runs on your network, an administrator has to allow its host (Settings → security.allowPrivateTargets)`, 'KOITO_UNREACHABLE');
    }
    if (err instanceof IntegrationError && err.kind === 'refused') throw new ValidationError(`This Koito address may not be used: ${err.message}`, 'TARGET_REFUSED');
    if (err instanceof IntegrationError && (err.kind === 'not_found' || err.kind === 'wrong_url' || err.kind === 'bad_response'))
      throw new ValidationError(`No Koito server answers at ${base} (${err.message})`, 'INVALID_URL');
    throw err;
  }
  if (name === null) throw new ValidationError('Koito did not accept this API key', 'INVALID_TOKEN');
  scrobbleLinks.upsert(ctx.db, { userId, service: 'koito', username: name || null, secretEnc: encrypt(ctx.secrets.encryptionKey, token), baseUrl: base }, ctx.clock.now());
  return { linked: true, username: name || null, url: base };
}

export function linkOf(ctx: Deps, userId: number, service: ScrobbleService): { linked: boolean; username: string | null; url?: string | null } {
  const link = scrobbleLinks.get(ctx.db, userId, service);
  return { linked: !!link, username: link?.username ?? null, ...(service === 'koito' && { url: link?.baseUrl ?? null }) };
}

/** Unlinks; plays still owed to that service are dropped (they would be sent with a secret the user withdrew). */
export function unlink(ctx: Deps, userId: number, service: ScrobbleService): { success: true; linked: false } {
  ctx.db.transaction(() => {
    scrobbleLinks.delete(ctx.db, userId, service);
    const jobs = scrobbleDeliveries.dropPending(ctx.db, userId, service, 'The account was unlinked', ctx.clock.now());
    for (const id of jobs) ctx.jobs.cancel(id);
  })();
  return { success: true, linked: false };
}

// ---- Forwarding -------------------------------------------------------------------------------

/**
 * A finished play (`POST /api/play-events`, `/rest/scrobble` with submission=true): one outbox row
 * per linked service, written synchronously (in the caller's transaction, when it has one) in a
 * single statement and without any network call. Their queue jobs are created right after the
 * player's answer has been written (the outbox's `repairSoon`), so the request does only that one write. A play
 * event already forwarded is not forwarded again.
 */
export function forwardPlay(ctx: Deps, userId: number, playEventId: number, play: ScrobblePlay): void {
  enqueue(ctx, userId, playEventId, 'scrobble', play);
}

/** `/rest/scrobble` with submission=false: "now playing" to every linked service, best effort. */
export function forwardNowPlaying(ctx: Deps, userId: number, play: ScrobblePlay): void {
  enqueue(ctx, userId, null, 'now_playing', play);
}

function enqueue(ctx: Deps, userId: number, playEventId: number | null, kind: ScrobbleKind, play: ScrobblePlay): void {
  if (!play.artist || !play.title) return;
  try {
    const lastfm = lastfmConfigured(ctx.settings.get());
    const ids = scrobbleDeliveries.insertForLinks(ctx.db, { userId, playEventId, kind, play: JSON.stringify(play), lastfm }, ctx.clock.now());
    if (ids.length > 0) ctx.scrobbleOutbox.repairSoon();
  } catch (err) {
    // Recording the play matters more than forwarding it: never fail the player's request.
    ctx.log.warn('play not forwarded to the scrobbling services', { userId, error: describe(err) });
  }
}

export type ScrobbleLinkRow = Pick<ScrobbleDeliveryRow, 'id' | 'service' | 'kind'>;

/**
 * The outbox rows and their queue jobs (JobLinks): one job per row, the row keeps its job's id
 * (unlinking cancels it). Rows a request wrote get theirs on the next turn of the event loop
 * (`repairSoon`), when the handler that wrote them has returned and its answer is on the wire;
 * rows whose process stopped before that get theirs at the next start, and a pass that failed
 * (database busy) from the scheduler's repair task.
 */
export function createScrobbleOutbox(ctx: Deps): JobLinks<ScrobbleLinkRow> {
  return ctx.scheduler.link<ScrobbleLinkRow>({
      name: 'scrobble deliveries',
      queue: SCROBBLE_QUEUE,
      orphans: () => scrobbleDeliveries.withoutJob(ctx.db),
      job: (row) => ({
        payload: { deliveryId: row.id },
        options: {
          dedupeKey: `scrobble:${row.id}`,
          name: `${row.kind} → ${row.service}`,
          ...(row.kind === 'now_playing' && { maxAttempts: NOW_PLAYING_ATTEMPTS, priority: -1 }),
        },
      }),
      link: (row, jobId) => scrobbleDeliveries.setQueueJob(ctx.db, row.id, jobId),
  });
}

/** Registers the outbox queue (areas.ts `services`) and queues the rows a stopped process left without a job. */
export function startScrobbling(ctx: Deps): void {
  scrobbleDeliveries.prune(ctx.db, ctx.clock.now() - KEEP_MS);
  ctx.jobs.register<{ deliveryId: number }>(SCROBBLE_QUEUE, {
    concurrency: 2,
    maxAttempts: SCROBBLE_ATTEMPTS,
    backoff: SCROBBLE_BACKOFF,
    visibilityTimeoutMs: 2 * 60_000,
    handler: (job) => deliver(ctx, job),
  });
  const outbox = ctx.scrobbleOutbox;
  ctx.onClose(() => outbox.close());
  const queued = outbox.repair();
  if (queued > 0) ctx.log.info('scrobble deliveries queued after a restart', { count: queued });
}

async function deliver(ctx: Deps, job: Job<{ deliveryId: number }>): Promise<void> {
  const row = scrobbleDeliveries.get(ctx.db, job.payload.deliveryId);
  // Delivered already (a job run again after a crash between sending and settling), dropped or pruned.
  if (!row || row.status !== 'pending') return;
  const now = ctx.clock.now();
  if (row.kind === 'now_playing' && now - row.createdAt > NOW_PLAYING_STALE_MS) {
    scrobbleDeliveries.recordAttempt(ctx.db, row.id, { status: 'failed', error: 'The track is over: now playing not sent' }, now);
    return;
  }
  try {
    await send(ctx, row, job.signal);
    scrobbleDeliveries.recordAttempt(ctx.db, row.id, { status: 'delivered', error: null }, ctx.clock.now());
  } catch (err) {
    if (job.signal.aborted) throw err;
    const final = err instanceof NotDeliverable || err instanceof NotConfiguredError || (err instanceof IntegrationError && finalKinds.has(err.kind));
    const last = final || job.attempt >= job.maxAttempts;
    const message = describe(err);
    scrobbleDeliveries.recordAttempt(ctx.db, row.id, { status: last ? 'failed' : 'pending', error: message }, ctx.clock.now());
    if (last && row.kind === 'scrobble') ctx.log.warn('scrobble not delivered', { service: row.service, userId: row.userId, attempts: job.attempt, error: message });
    if (final) throw new PermanentJobError(message);
    const hinted = err instanceof IntegrationError ? (err.details as { retryAfterMs?: number } | undefined)?.retryAfterMs : undefined;
    if (hinted !== undefined) throw new RetryJobError(message, Math.max(hinted, 1000));
    throw err;
  }
}

function listenOf(play: ScrobblePlay, listenType: ListenType): ListenBrainzListen {
  const info: ListenBrainzListen['track_metadata']['additional_info'] = { submission_client: SUBMISSION_CLIENT };
  if (play.durationMs) info.duration_ms = play.durationMs;
  if (play.trackMbid) info.recording_mbid = play.trackMbid;
  if (play.albumMbid) info.release_mbid = play.albumMbid;
  if (play.artistMbid) info.artist_mbids = [play.artistMbid];
  return {
    ...(listenType === 'single' && { listened_at: Math.floor(play.playedAt / 1000) }),
    track_metadata: { artist_name: play.artist, track_name: play.title, ...(play.album && { release_name: play.album }), additional_info: info },
  };
}

async function send(ctx: Deps, row: ScrobbleDeliveryRow, signal: AbortSignal): Promise<void> {
  const link = scrobbleLinks.get(ctx.db, row.userId, row.service);
  if (!link) throw new NotDeliverable(`The ${row.service} account is no longer linked`);
  const secret = decrypt(ctx.secrets.encryptionKey, link.secretEnc);
  const play = JSON.parse(row.play) as ScrobblePlay;
  const listenType: ListenType = row.kind === 'scrobble' ? 'single' : 'playing_now';
  if (row.service === 'lastfm') {
    const lastfm = lastfmScrobbler(ctx);
    const p: LastFmPlay = { artist: play.artist, track: play.title, album: play.album, mbid: play.trackMbid, durationSeconds: play.durationMs ? play.durationMs / 1000 : null };
    if (row.kind === 'scrobble') await lastfm.scrobble(secret, { ...p, timestamp: Math.floor(play.playedAt / 1000) }, signal);
    else await lastfm.updateNowPlaying(secret, p, signal);
    return;
  }
  if (row.service === 'listenbrainz') {
    await listenBrainz(ctx, secret).submitListen(listenType, listenOf(play, listenType), signal);
    return;
  }
  if (!link.baseUrl) throw new NotDeliverable('The Koito link has no server address');
  await koito(ctx, link.baseUrl, secret, ctx.users.get(row.userId).role).submitListen(listenType, listenOf(play, listenType), signal);
}
