import type { DownloadJobRow } from '../../db/downloads.js';
import { IntegrationError } from '../../integrations/errors.js';
import { MusicBrainzClient, luceneQuote } from '../../integrations/musicbrainz/client.js';
import { releaseTracks } from '../metadata/present.js';
import { type MetadataService } from '../metadata/service.js';
import { NotFoundError } from '../errors.js';
import { coverage, similarity } from './scoring.js';
import type { Kernel } from '../../kernel.js';

/** What this module uses of the server's context (server/wiring.ts assembles it). */
export type Deps = Pick<Kernel, 'clock' | 'config' | 'log'> & { expectedLengths: LengthLookup; metadata: MetadataService };

/**
 * Issue 26 §1: every download gets an expected length, so a truncated or wrong file is caught even
 * when the request carried none. The recording on MusicBrainz is asked, in order: by its recording
 * id, else on the requested release by title (or track number), else by artist and title (and
 * album) through a recording search. Answers go through the metadata cache (kinds `recording` and
 * `recording-length-search`) and MusicBrainz's shared rate limit; where the length came from is
 * stored with it (`durationSource`).
 */

export type DurationSource = 'request' | 'musicbrainz:recording' | 'musicbrainz:release' | 'musicbrainz:search' | 'none';

export interface ExpectedLength {
  durationMs: number | null;
  source: DurationSource;
}

const RECORDING_KIND = 'recording';
const SEARCH_KIND = 'recording-length-search';
/** After MusicBrainz failed (down, refusing), lengths are not asked for this long: downloads go on without one. */
const PAUSE_AFTER_FAILURE_MS = 60_000;

interface SearchHit {
  id: string;
  title: string;
  artist: string;
  lengthMs: number | null;
}

export class LengthLookup {
  private client: { key: string; mb: MusicBrainzClient } | null = null;
  pausedUntil = 0;
  readonly metadata: MetadataService;

  constructor(private readonly ctx: Deps) {
    this.metadata = ctx.metadata;
    const unavailable = () => (this.metadata.enabled ? null : new IntegrationError('musicbrainz', 'unreachable', 'MusicBrainz lookups are switched off'));
    this.metadata.defineKind(RECORDING_KIND, {
      freshMs: 30 * 86_400_000,
      unavailable,
      fetch: async (mbid, signal) => {
        try {
          const r = await this.mb().recording(mbid, signal);
          return { id: r.id, title: r.title, lengthMs: r.length ?? null };
        } catch (err) {
          if (err instanceof IntegrationError && (err.kind === 'not_found' || err.status === 400)) return null;
          throw err;
        }
      },
    });
    this.metadata.defineKind(SEARCH_KIND, {
      freshMs: 30 * 86_400_000,
      unavailable,
      fetch: (key, signal) => this.search(key, signal),
    });
  }

  /**
   * A client of the metadata service's MusicBrainz (same base URL, User-Agent and shared spacing)
   * that does not retry: a download waits on this lookup, and an unreachable MusicBrainz must not
   * hold it for the seconds the retries take.
   */
  private mb(): MusicBrainzClient {
    const ua = this.metadata.userAgent();
    if (!this.client || this.client.key !== ua) {
      const spacing = this.ctx.config.upstreams.spacingMs;
      this.client = {
        key: ua,
        mb: new MusicBrainzClient({ baseUrl: this.ctx.config.upstreams.musicbrainz, userAgent: ua, retries: 0, timeoutMs: 8000, ...(spacing !== null && { spacingMs: spacing }) }),
      };
    }
    return this.client.mb;
  }

  /** Recordings by artist and title (and album when given); the best few, as the search ranked them. */
  private async search(key: string, signal?: AbortSignal): Promise<SearchHit[] | null> {
    const [artist = '', title = '', album = ''] = key.split('\u0000');
    const base = `recording:${luceneQuote(title)} AND artist:${luceneQuote(artist)}`;
    const ask = async (q: string) => (await this.mb().searchRecordings(q, 10, 0, signal)).recordings;
    let found = album ? await ask(`${base} AND release:${luceneQuote(album)}`) : [];
    if (found.length === 0) found = await ask(base);
    const hits = found.map((r) => ({
      id: r.id,
      title: r.title,
      artist: r['artist-credit'].map((c) => c.name + (c.joinphrase ?? '')).join(''),
      lengthMs: r.length ?? null,
    }));
    return hits.length ? hits : null;
  }

  async find(job: Pick<DownloadJobRow, 'recordingMbid' | 'releaseMbid' | 'artistName' | 'trackName' | 'albumName' | 'trackNumber' | 'discNumber'>): Promise<ExpectedLength> {
    if (job.recordingMbid) {
      const rec = (await this.doc(RECORDING_KIND, job.recordingMbid)) as { lengthMs: number | null } | null;
      if (rec?.lengthMs) return { durationMs: rec.lengthMs, source: 'musicbrainz:recording' };
    }
    if (job.releaseMbid) {
      const release = await this.metadata.release(job.releaseMbid).catch((err: unknown) => {
        if (err instanceof NotFoundError) return null;
        throw err;
      });
      if (release) {
        const tracks = releaseTracks(release, new Set());
        const byTitle = tracks
          .map((t) => ({ t, s: Math.max(similarity(job.trackName, t.title), coverage(job.trackName, t.title) * 0.95) }))
          .filter((x) => x.s >= 0.8)
          .sort((a, b) => b.s - a.s)[0]?.t;
        const byNumber =
          job.trackNumber !== null ? tracks.find((t) => t.trackNumber === job.trackNumber && (job.discNumber === null || t.discNumber === job.discNumber)) : undefined;
        const t = (job.recordingMbid && tracks.find((x) => x.mbid === job.recordingMbid)) || byTitle || byNumber;
        if (t?.durationMs) return { durationMs: t.durationMs, source: 'musicbrainz:release' };
      }
    }
    const key = [job.artistName, job.trackName, job.albumName ?? ''].map((s) => s.trim().toLowerCase()).join('\u0000');
    const hits = ((await this.doc(SEARCH_KIND, key)) as SearchHit[] | null) ?? [];
    const hit = hits.find(
      (h) => h.lengthMs && similarity(job.trackName, h.title) >= 0.8 && Math.max(similarity(job.artistName, h.artist), coverage(job.artistName, h.artist)) >= 0.8,
    );
    if (hit?.lengthMs) return { durationMs: hit.lengthMs, source: 'musicbrainz:search' };
    return { durationMs: null, source: 'none' };
  }

  private async doc(kind: string, key: string): Promise<unknown> {
    try {
      return await this.metadata.document(kind, key, 'not found');
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }
}

/**
 * The expected length of a job without one, from MusicBrainz; `null` when it cannot be asked now
 * (switched off, or failing: the job goes on without, and a later run of the job asks again).
 */
export async function findExpectedLength(ctx: Deps, job: DownloadJobRow): Promise<ExpectedLength | null> {
  const l = ctx.expectedLengths;
  if (!l.metadata.enabled || ctx.clock.now() < l.pausedUntil) return null;
  try {
    return await l.find(job);
  } catch (err) {
    l.pausedUntil = ctx.clock.now() + PAUSE_AFTER_FAILURE_MS;
    ctx.log.info('expected length lookup failed; the download goes on without one', { jobId: job.id, error: err instanceof Error ? err.message : String(err) });
    return null;
  }
}
