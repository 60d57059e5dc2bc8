import fs from 'node:fs';
import path from 'node:path';
import { parseFile } from 'music-metadata';
import type { ChannelRow, EpisodeRow, PodcastsRepository } from '../../db/podcasts.js';
import { FetchFailedError, FetchRefusedError, guardedGet, guardedGetText } from '../../integrations/guardedFetch.js';
import type { Logger } from '../../log.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { httpUrl } from '../radio/stations.js';
import { FeedError, parseFeed, type Feed } from './feed.js';

export interface PodcastLimits {
  /** Idle time allowed while fetching (connection, headers, between bytes). */
  timeoutMs: number;
  maxFeedBytes: number;
  maxEpisodeBytes: number;
  /** Episode downloads running at once; more wait their turn (status downloading). */
  concurrentDownloads: number;
}

export const DEFAULT_LIMITS: PodcastLimits = {
  timeoutMs: 30_000,
  maxFeedBytes: 10 * 1024 * 1024,
  maxEpisodeBytes: 2 * 1024 ** 3,
  concurrentDownloads: 2,
};

export interface PodcastDeps {
  repo: PodcastsRepository;
  /** Where episode files go (`<data dir>/podcasts`). */
  dir: string;
  /** The allow-list of private hosts, read at each fetch (it is also a setting). */
  allowPrivateTargets: () => string[];
  clock: { now(): number };
  log: Logger;
  limits?: Partial<PodcastLimits>;
}

const EXTENSION_OF_TYPE: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'aac',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/flac': 'flac',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'video/mp4': 'mp4',
};
const TYPE_OF_EXTENSION: Record<string, string> = {
  mp3: 'audio/mpeg', m4a: 'audio/mp4', aac: 'audio/aac', ogg: 'audio/ogg', opus: 'audio/ogg',
  flac: 'audio/flac', wav: 'audio/wav', mp4: 'video/mp4',
};

/** Fetch problems in words for the client; anything else is a bug and keeps its own message. */
function describe(err: unknown): string {
  if (err instanceof FetchRefusedError || err instanceof FetchFailedError || err instanceof FeedError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Podcasts: subscribing fetches and parses the feed (guarded against private addresses), refreshes
 * add new episodes, downloads store an episode's enclosure under the podcasts folder.
 */
export class Podcasts {
  private readonly limits: PodcastLimits;
  private refreshing: Promise<void> | null = null;
  private readonly queue: number[] = [];
  private readonly running = new Map<number, AbortController>();
  private closed = false;

  constructor(private readonly deps: PodcastDeps) {
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
    deps.repo.resetInterrupted();
  }

  channels(): ChannelRow[] {
    return this.deps.repo.channels();
  }

  channel(id: number): ChannelRow {
    const row = this.deps.repo.channel(id);
    if (!row) throw new NotFoundError('Podcast channel not found');
    return row;
  }

  episodesOf(channelId: number): EpisodeRow[] {
    return this.deps.repo.episodesOf(channelId);
  }

  newest(count: number): EpisodeRow[] {
    return this.deps.repo.newest(count);
  }

  episode(id: number): EpisodeRow {
    const row = this.deps.repo.episode(id);
    if (!row) throw new NotFoundError('Podcast episode not found');
    return row;
  }

  /** Subscribes to a feed; the feed must be fetchable and parse. An existing subscription is kept. */
  async subscribe(rawUrl: string): Promise<number> {
    const url = httpUrl('url', rawUrl);
    const existing = this.deps.repo.channelByUrl(url);
    if (existing) return existing.id;
    let feed: Feed;
    try {
      feed = await this.fetchFeed(url);
    } catch (err) {
      throw new ValidationError(`Cannot subscribe to ${url}: ${describe(err)}`);
    }
    const now = this.deps.clock.now();
    return this.deps.repo.createChannel(url, channelFields(feed), feed.episodes, now);
  }

  /** Refreshes every channel, one at a time; a call while one runs joins it. */
  refreshAll(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        for (const c of this.deps.repo.channels()) {
          if (this.closed) return;
          await this.refresh(c.id);
        }
      } catch (err) {
        if (!this.closed) this.deps.log.warn('podcast refresh failed', { err });
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** Re-reads one channel's feed; failures are recorded on the channel (status error). */
  async refresh(channelId: number): Promise<void> {
    const channel = this.channel(channelId);
    const repo = this.deps.repo;
    repo.setChannelStatus(channel.id, 'downloading', null);
    try {
      const feed = await this.fetchFeed(channel.url);
      if (this.closed || !repo.channel(channel.id)) return; // shutting down, or deleted meanwhile
      repo.refreshChannel(channel.id, channelFields(feed), feed.episodes, this.deps.clock.now());
    } catch (err) {
      if (!this.closed && repo.channel(channel.id)) repo.setChannelStatus(channel.id, 'error', describe(err));
    }
  }

  /** Queues an episode's download (status downloading at once); a running one is left alone. */
  download(episodeId: number): void {
    const episode = this.episode(episodeId);
    if (this.running.has(episode.id) || this.queue.includes(episode.id)) return;
    if (!this.deps.repo.startDownload(episode.id)) return;
    this.queue.push(episode.id);
    this.pump();
  }

  /** Removes the episode's file; the episode stays listed as deleted so a refresh does not bring it back. */
  deleteEpisode(episodeId: number): void {
    const episode = this.episode(episodeId);
    this.cancel(episode.id);
    this.removeFile(episode.file_path);
    this.deps.repo.markDeleted(episode.id);
  }

  deleteChannel(channelId: number): void {
    const channel = this.channel(channelId);
    for (const e of this.deps.repo.episodesOf(channel.id)) this.cancel(e.id);
    this.deps.repo.deleteChannel(channel.id);
    fs.rmSync(path.join(this.deps.dir, String(channel.id)), { recursive: true, force: true });
  }

  /** The downloaded file of an episode, or null when it has none. */
  fileOf(episodeId: number): { episode: EpisodeRow; file: string; mime: string } | null {
    const episode = this.episode(episodeId);
    if (episode.status !== 'completed' || !episode.file_path) return null;
    const file = path.join(this.deps.dir, episode.file_path);
    return { episode, file, mime: episode.content_type ?? 'application/octet-stream' };
  }

  /** Stops downloads and refreshes (shutdown); partial files are removed. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    for (const controller of this.running.values()) controller.abort();
  }

  private async fetchFeed(url: string): Promise<Feed> {
    const answer = await guardedGetText({
      url,
      allowPrivateTargets: this.deps.allowPrivateTargets(),
      redirects: 'any', // feeds and enclosures move between hosts (CDNs, trackers); each hop is guarded
      timeoutMs: this.limits.timeoutMs,
      maxBytes: this.limits.maxFeedBytes,
      headers: { Accept: 'application/rss+xml, application/atom+xml, application/xml, text/xml;q=0.9, */*;q=0.5' },
    });
    return parseFeed(answer.text, answer.url);
  }

  private cancel(episodeId: number): void {
    const i = this.queue.indexOf(episodeId);
    if (i >= 0) this.queue.splice(i, 1);
    this.running.get(episodeId)?.abort();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.limits.concurrentDownloads && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const controller = new AbortController();
      this.running.set(id, controller);
      this.fetchEpisode(id, controller.signal)
        .catch((err: unknown) => {
          if (!this.closed) this.deps.log.error('podcast episode download crashed', { err, episodeId: id });
        })
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
    }
  }

  private async fetchEpisode(episodeId: number, signal: AbortSignal): Promise<void> {
    const repo = this.deps.repo;
    const episode = repo.episode(episodeId);
    if (!episode) return;
    const folder = path.join(this.deps.dir, String(episode.channel_id));
    let partial: string | null = null;
    try {
      const res = await guardedGet({
        url: episode.enclosure_url,
        allowPrivateTargets: this.deps.allowPrivateTargets(),
        redirects: 'any',
        timeoutMs: this.limits.timeoutMs,
        maxBytes: this.limits.maxEpisodeBytes,
        signal,
      });
      const served = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const ext = extensionOf(res.url, episode.enclosure_type, served);
      const mime = [episode.enclosure_type, served].find((t) => t && /^(audio|video)\//.test(t)) ?? TYPE_OF_EXTENSION[ext] ?? 'application/octet-stream';
      fs.mkdirSync(folder, { recursive: true });
      const name = `${episode.id}.${ext}`;
      partial = path.join(folder, `${name}.part`);
      const out = fs.createWriteStream(partial);
      try {
        for await (const chunk of res.body) {
          if (!out.write(chunk)) await new Promise<void>((resolve, reject) => out.once('drain', resolve).once('error', reject));
        }
      } finally {
        await new Promise<void>((resolve) => out.end(resolve));
      }
      const file = path.join(folder, name);
      fs.renameSync(partial, file);
      partial = null;
      const size = fs.statSync(file).size;
      const probe = await parseFile(file, { duration: true, skipCovers: true }).catch(() => null);
      const seconds = probe?.format.duration;
      if (this.closed) return; // the database may be closed; the next start marks it interrupted
      if (!repo.episode(episode.id)) {
        this.removeFile(path.join(String(episode.channel_id), name));
        return;
      }
      repo.completeDownload(episode.id, {
        path: path.join(String(episode.channel_id), name),
        size,
        contentType: mime,
        bitrate: probe?.format.bitrate ? Math.round(probe.format.bitrate) : null,
        durationSeconds: seconds && Number.isFinite(seconds) ? Math.round(seconds) : null,
      });
    } catch (err) {
      if (partial) fs.rmSync(partial, { force: true });
      if (this.closed) return;
      const current = repo.episode(episodeId);
      if (!current || current.status === 'deleted') return;
      const message = signal.aborted ? 'The download was stopped' : describe(err);
      repo.failDownload(episodeId, message);
      if (!signal.aborted) this.deps.log.warn('podcast episode download failed', { episodeId, message });
    }
  }

  private removeFile(relative: string | null): void {
    if (relative) fs.rmSync(path.join(this.deps.dir, relative), { force: true });
  }
}

function channelFields(feed: Feed) {
  return { title: feed.title, description: feed.description, imageUrl: feed.imageUrl };
}

/** The file extension for a download: from the URL path, else from the declared or served type. */
function extensionOf(url: string, declared: string | null, served: string): string {
  const fromPath = path.extname(new URL(url).pathname).slice(1).toLowerCase();
  if (/^[a-z0-9]{1,5}$/.test(fromPath) && fromPath in TYPE_OF_EXTENSION) return fromPath;
  return EXTENSION_OF_TYPE[declared?.toLowerCase() ?? ''] ?? EXTENSION_OF_TYPE[served] ?? 'mp3';
}
