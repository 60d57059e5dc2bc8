import type { Db } from './connection.js';

export type ChannelStatus = 'new' | 'downloading' | 'completed' | 'error';
export type EpisodeStatus = 'new' | 'downloading' | 'completed' | 'error' | 'deleted' | 'skipped';

export interface ChannelRow {
  id: number;
  url: string;
  title: string | null;
  description: string | null;
  image_url: string | null;
  status: ChannelStatus;
  error_message: string | null;
  created_at: number;
  refreshed_at: number | null;
}

export interface EpisodeRow {
  id: number;
  channel_id: number;
  channel_title: string | null;
  guid: string;
  title: string;
  description: string | null;
  published_at: number | null;
  enclosure_url: string;
  enclosure_type: string | null;
  enclosure_length: number | null;
  duration_seconds: number | null;
  status: EpisodeStatus;
  error_message: string | null;
  file_path: string | null;
  file_size: number | null;
  content_type: string | null;
  bitrate: number | null;
  created_at: number;
}

export interface EpisodeFields {
  guid: string;
  title: string;
  description: string | null;
  publishedAt: number | null;
  enclosureUrl: string;
  enclosureType: string | null;
  enclosureLength: number | null;
  durationSeconds: number | null;
}

export interface ChannelFields {
  title: string;
  description: string | null;
  imageUrl: string | null;
}

const EPISODE = 'SELECT e.*, c.title AS channel_title FROM podcast_episodes e JOIN podcast_channels c ON c.id = e.channel_id';

/** Podcast channels and episodes. */
export function podcastsRepository(db: Db) {
  const s = {
    channels: db.prepare('SELECT * FROM podcast_channels ORDER BY title COLLATE NOCASE, id'),
    channel: db.prepare('SELECT * FROM podcast_channels WHERE id = ?'),
    channelByUrl: db.prepare('SELECT * FROM podcast_channels WHERE url = ?'),
    insertChannel: db.prepare(
      `INSERT INTO podcast_channels (url, title, description, image_url, status, created_at, refreshed_at)
       VALUES (?, ?, ?, ?, 'completed', ?, ?)`,
    ),
    updateChannel: db.prepare(
      `UPDATE podcast_channels SET title = ?, description = ?, image_url = ?, status = 'completed', error_message = NULL,
       refreshed_at = ? WHERE id = ?`,
    ),
    channelStatus: db.prepare('UPDATE podcast_channels SET status = ?, error_message = ? WHERE id = ?'),
    deleteChannel: db.prepare('DELETE FROM podcast_channels WHERE id = ?'),
    episodesOf: db.prepare(`${EPISODE} WHERE e.channel_id = ? ORDER BY e.published_at DESC, e.id DESC`),
    newest: db.prepare(`${EPISODE} WHERE e.status != 'deleted' ORDER BY e.published_at DESC, e.id DESC LIMIT ?`),
    episode: db.prepare(`${EPISODE} WHERE e.id = ?`),
    // A known guid keeps its status and file; the feed's text and enclosure are taken over.
    upsertEpisode: db.prepare(
      `INSERT INTO podcast_episodes (channel_id, guid, title, description, published_at, enclosure_url, enclosure_type,
         enclosure_length, duration_seconds, status, created_at)
       VALUES (@channel, @guid, @title, @description, @publishedAt, @enclosureUrl, @enclosureType, @enclosureLength,
         @durationSeconds, 'new', @now)
       ON CONFLICT (channel_id, guid) DO UPDATE SET title = excluded.title, description = excluded.description,
         published_at = excluded.published_at, enclosure_url = excluded.enclosure_url,
         enclosure_type = excluded.enclosure_type, enclosure_length = excluded.enclosure_length,
         duration_seconds = COALESCE(podcast_episodes.duration_seconds, excluded.duration_seconds)`,
    ),
    startDownload: db.prepare(
      `UPDATE podcast_episodes SET status = 'downloading', error_message = NULL WHERE id = ? AND status != 'downloading'`,
    ),
    completeDownload: db.prepare(
      `UPDATE podcast_episodes SET status = 'completed', error_message = NULL, file_path = ?, file_size = ?, content_type = ?,
         bitrate = ?, duration_seconds = COALESCE(?, duration_seconds) WHERE id = ?`,
    ),
    failDownload: db.prepare(`UPDATE podcast_episodes SET status = 'error', error_message = ?, file_path = NULL WHERE id = ?`),
    markDeleted: db.prepare(
      `UPDATE podcast_episodes SET status = 'deleted', error_message = NULL, file_path = NULL, file_size = NULL WHERE id = ?`,
    ),
    interrupted: db.prepare(
      `UPDATE podcast_episodes SET status = 'error', error_message = 'The download was interrupted' WHERE status = 'downloading'`,
    ),
    interruptedChannels: db.prepare(
      `UPDATE podcast_channels SET status = 'error', error_message = 'The refresh was interrupted' WHERE status = 'downloading'`,
    ),
  };
  return {
    channels: () => s.channels.all() as ChannelRow[],
    channel: (id: number) => s.channel.get(id) as ChannelRow | undefined,
    channelByUrl: (url: string) => s.channelByUrl.get(url) as ChannelRow | undefined,
    /** Creates a channel with its first episodes in one transaction. */
    createChannel(url: string, fields: ChannelFields, episodes: EpisodeFields[], now: number): number {
      return db.transaction(() => {
        const id = Number(s.insertChannel.run(url, fields.title, fields.description, fields.imageUrl, now, now).lastInsertRowid);
        for (const e of episodes) s.upsertEpisode.run({ channel: id, now, ...e });
        return id;
      })();
    },
    refreshChannel(id: number, fields: ChannelFields, episodes: EpisodeFields[], now: number): void {
      db.transaction(() => {
        s.updateChannel.run(fields.title, fields.description, fields.imageUrl, now, id);
        for (const e of episodes) s.upsertEpisode.run({ channel: id, now, ...e });
      })();
    },
    setChannelStatus: (id: number, status: ChannelStatus, error: string | null) => void s.channelStatus.run(status, error, id),
    deleteChannel: (id: number) => s.deleteChannel.run(id).changes > 0,
    episodesOf: (channelId: number) => s.episodesOf.all(channelId) as EpisodeRow[],
    newest: (count: number) => s.newest.all(count) as EpisodeRow[],
    episode: (id: number) => s.episode.get(id) as EpisodeRow | undefined,
    /** False when a download of this episode is already running. */
    startDownload: (id: number) => s.startDownload.run(id).changes > 0,
    completeDownload: (id: number, file: { path: string; size: number; contentType: string; bitrate: number | null; durationSeconds: number | null }) =>
      void s.completeDownload.run(file.path, file.size, file.contentType, file.bitrate, file.durationSeconds, id),
    failDownload: (id: number, message: string) => void s.failDownload.run(message, id),
    markDeleted: (id: number) => void s.markDeleted.run(id),
    /** After a restart nothing is downloading or refreshing any more. */
    resetInterrupted: () => {
      s.interrupted.run();
      s.interruptedChannels.run();
    },
  };
}

export type PodcastsRepository = ReturnType<typeof podcastsRepository>;
