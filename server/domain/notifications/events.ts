import type { Db } from '../../db/connection.js';
import { downloads, type DownloadJobRow } from '../../db/downloads.js';
import { downloadAlbums } from '../../db/downloadAlbums.js';
import { notificationDeliveries } from '../../db/notifications.js';
import type { DownloadEvent } from '../downloads/service.js';
import type { NotificationEventType } from '../settings/schema.js';
import type { NotificationVars } from './templates.js';

/** One thing worth telling the user, with an identity so it is announced once. */
export interface NotificationEvent {
  /** Stable per occurrence: a job blocked again after a deny is a new event, the same transition seen twice is not. */
  key: string;
  vars: NotificationVars;
}

/**
 * The notification events a download event amounts to: `job_blocked` as is, `job_failed` and
 * `job_done` from a `job_updated` that changed the status, and `album_complete` when that done job
 * was the last missing track of its album.
 */
export function notificationEventsOf(db: Db, e: DownloadEvent, reviewUrl: (jobId: number) => string): NotificationEvent[] {
  const { job, previousStatus } = e;
  if (e.type === 'job_blocked') return [jobEvent('job_blocked', job, job.blockedAt ?? job.updatedAt, reviewUrl(job.id))];
  if (previousStatus === job.status) return [];
  if (job.status === 'failed') return [jobEvent('job_failed', job, job.updatedAt, '')];
  if (job.status !== 'done') return [];
  const events = [jobEvent('job_done', job, job.completedAt ?? job.updatedAt, '')];
  if (job.albumId !== null && job.upgrade === 0) {
    const progress = notificationDeliveries.albumProgress(db, job.albumId);
    if (progress.total > 0 && progress.done === progress.total) {
      const album = downloadAlbums.get(db, job.albumId);
      events.push({
        key: `album_complete:${job.albumId}:${job.completedAt ?? job.updatedAt}`,
        vars: {
          ...varsOf('album_complete', job, ''),
          artistName: album?.artistName ?? job.artistName,
          albumName: album?.albumName ?? job.albumName ?? '',
          trackName: '',
          status: 'complete',
        },
      });
    }
  }
  return events;
}

function jobEvent(type: NotificationEventType, job: DownloadJobRow, at: number, reviewUrl: string): NotificationEvent {
  return { key: `${type}:${job.id}:${at}`, vars: varsOf(type, job, reviewUrl) };
}

function varsOf(event: NotificationEventType, job: DownloadJobRow, reviewUrl: string): NotificationVars {
  return {
    event,
    artistName: job.artistName,
    trackName: job.trackName,
    albumName: job.albumName ?? '',
    status: job.status,
    reason: (job.status === 'blocked' ? job.blockReason : job.error) ?? job.error ?? '',
    jobId: String(job.id),
    reviewUrl,
    // Flows do not exist yet; their downloads will carry the flow's name and folder here.
    flowName: '',
    flowPath: '',
  };
}
