import { IntegrationError } from '../../integrations/errors.js';
import { historyOutcome, type NzbgetClient } from '../../integrations/nzbget/index.js';
import type { ProwlarrClient, UsenetRelease } from '../../integrations/prowlarr/index.js';
import type { SabnzbdClient } from '../../integrations/sabnzbd/index.js';
import type { Settings } from '../settings/schema.js';
import { nzbgetClient, prowlarrClient, sabnzbdClient, usenetStatus } from './connection.js';
import { localCompletedPath } from './paths.js';

/**
 * The Usenet source as one thing for whoever acquires music: search Prowlarr, hand a release to
 * the download client (SABnzbd or NZBGet, the enabled one with the lower priority number), follow
 * it from queue to history, and say where its finished folder is on this computer.
 */
export type UsenetClientName = 'sabnzbd' | 'nzbget';
export interface UsenetGrab {
  client: UsenetClientName;
  id: string;
}
export interface UsenetProgress {
  state: 'queued' | 'downloading' | 'completed' | 'failed' | 'missing';
  percent: number;
  /** The finished folder on this computer (completed only; null when it is refused: `message` says why). */
  folder: string | null;
  /** The folder files may be taken from (set or confirmed), which `folder` lies in; null when there is none. */
  root?: string | null;
  message: string | null;
}

const TIMEOUT_MS = 45_000;

/** What NZBGet's history statuses mean, for the job's error. */
const nzbgetFailures: Record<string, string> = {
  'FAILURE/HEALTH': 'articles are missing on the news server',
  'FAILURE/PAR': 'par repair failed',
  'FAILURE/UNPACK': 'unpacking failed',
  'FAILURE/MOVE': 'moving the files failed',
  'FAILURE/FETCH': 'the NZB could not be fetched',
  'FAILURE/BAD': 'the release is marked bad',
  'FAILURE/SCAN': 'the NZB could not be read',
  'DELETED/MANUAL': 'it was deleted in NZBGet',
  'DELETED/DUPE': 'its duplicate check removed it',
  'DELETED/COPY': 'it is a copy of another download',
  'DELETED/GOOD': 'another copy already succeeded',
  'DELETED/HEALTH': 'articles are missing on the news server',
};

/** "NZBGet reports the download failed: par repair failed (FAILURE/PAR)". */
export function nzbgetFailure(status: string): string {
  const why = nzbgetFailures[status.toUpperCase()];
  return `NZBGet reports the download failed${why ? `: ${why}` : ''} (${status})`;
}

export class UsenetSource {
  private constructor(
    private readonly prowlarr: ProwlarrClient,
    private readonly downloader:
      | { name: 'sabnzbd'; client: SabnzbdClient; category: string; completedPath: string; confirmedPath: string }
      | { name: 'nzbget'; client: NzbgetClient; category: string; completedPath: string; confirmedPath: string },
  ) {}

  /** The source the settings describe; null unless Prowlarr and a download client are configured and enabled. */
  static fromSettings(i: Settings['integrations']): UsenetSource | null {
    const status = usenetStatus(i);
    if (!status.enabled) return null;
    const prowlarr = prowlarrClient(i.prowlarr.url, i.prowlarr.apiKey, TIMEOUT_MS);
    const sab = status.sabnzbdConfigured && i.sabnzbd.enabled;
    const nzb = status.nzbgetConfigured && i.nzbget.enabled;
    const useSab = sab && (!nzb || i.sabnzbd.priority <= i.nzbget.priority);
    return useSab
      ? new UsenetSource(prowlarr, {
          name: 'sabnzbd',
          client: sabnzbdClient(i.sabnzbd.url, i.sabnzbd.apiKey, TIMEOUT_MS),
          category: i.sabnzbd.category,
          completedPath: i.sabnzbd.completedPath,
          confirmedPath: i.sabnzbd.confirmedCompletedPath,
        })
      : new UsenetSource(prowlarr, {
          name: 'nzbget',
          client: nzbgetClient(i.nzbget.url, i.nzbget.username, i.nzbget.password, TIMEOUT_MS),
          category: i.nzbget.category,
          completedPath: i.nzbget.completedPath,
          confirmedPath: i.nzbget.confirmedCompletedPath,
        });
  }

  get clientName(): UsenetClientName {
    return this.downloader.name;
  }

  search(query: string, limit = 60): Promise<UsenetRelease[]> {
    return this.prowlarr.searchUsenet({ query, limit });
  }

  async grab(release: Pick<UsenetRelease, 'downloadUrl' | 'title'>): Promise<UsenetGrab> {
    const d = this.downloader;
    if (d.name === 'sabnzbd') {
      return { client: 'sabnzbd', id: await d.client.addUrl({ url: release.downloadUrl, name: release.title, category: d.category }) };
    }
    return { client: 'nzbget', id: String(await d.client.append({ url: release.downloadUrl, name: release.title, category: d.category })) };
  }

  async progress(grab: UsenetGrab): Promise<UsenetProgress> {
    const d = this.downloader;
    if (grab.client !== d.name) throw new IntegrationError(grab.client, 'not_found', `the download was handed to ${grab.client}, which is no longer the Usenet client`);
    if (d.name === 'sabnzbd') {
      const [slot] = (await d.client.queue([grab.id])).slots.filter((s) => s.nzo_id === grab.id);
      if (slot) return { state: slot.status === 'Downloading' ? 'downloading' : 'queued', percent: slot.percentage, folder: null, message: null };
      const [done] = (await d.client.history([grab.id])).filter((s) => s.nzo_id === grab.id);
      if (!done) return { state: 'missing', percent: 0, folder: null, message: 'SABnzbd no longer knows this download' };
      if (done.status === 'Failed') return { state: 'failed', percent: 100, folder: null, message: done.fail_message || 'SABnzbd reports the download failed' };
      if (done.status !== 'Completed') return { state: 'downloading', percent: 100, folder: null, message: null };
      return { state: 'completed', percent: 100, ...(await this.localFolder(done.storage ?? '')) };
    }
    const id = Number(grab.id);
    const group = (await d.client.listGroups()).find((g) => g.NZBID === id);
    if (group) {
      const size = group.FileSizeMB ?? 0;
      const percent = size > 0 ? Math.floor((100 * (size - (group.RemainingSizeMB ?? size))) / size) : 0;
      // Post-processing (PP_QUEUED, UNPACKING, MOVING…) comes after the articles: still under way, not queued.
      return { state: /^(QUEUED|PAUSED)$/.test(group.Status) ? 'queued' : 'downloading', percent, folder: null, message: null };
    }
    const item = (await d.client.history()).find((h) => h.NZBID === id);
    if (!item) return { state: 'missing', percent: 0, folder: null, message: 'NZBGet no longer knows this download' };
    if (historyOutcome(item.Status) === 'failed') return { state: 'failed', percent: 100, folder: null, message: nzbgetFailure(item.Status) };
    return { state: 'completed', percent: 100, ...(await this.localFolder(item.FinalDir || item.DestDir || '')) };
  }

  /** Removes a grab still in the client's queue (with its partial files); one already finished is left alone. */
  async cancel(grab: UsenetGrab): Promise<void> {
    const d = this.downloader;
    if (grab.client !== d.name) return;
    if (d.name === 'sabnzbd') await d.client.deleteFromQueue(grab.id);
    else await d.client.deleteFromQueue(Number(grab.id));
  }

  /**
   * Where this computer takes a finished download from, or why it refuses to. Only the folder an
   * administrator set (`completedPath`, with the client's reported path mapped under it) or confirmed
   * at the last Test (`confirmedCompletedPath`, the client's own completed folder then) is used: a
   * path the client reports outside it is refused, naming both folders.
   */
  private async localFolder(reported: string): Promise<Pick<UsenetProgress, 'folder' | 'root' | 'message'>> {
    const d = this.downloader;
    const name = d.name === 'sabnzbd' ? 'SABnzbd' : 'NZBGet';
    const take = usenetTakeFolder(d);
    if (!reported) return { folder: null, root: take?.path ?? null, message: `${name} finished the download but reports no folder for it` };
    if (!take) {
      return {
        folder: null,
        root: null,
        message: `${name} reports the finished download in ${reported}, but no completed folder is set or confirmed to take downloads from: set integrations.${d.name}.completedPath, or press Test ${name} in Settings → Downloads to confirm the folder ${name} reports`,
      };
    }
    const clientDir = take.origin === 'configured' ? await this.clientCompleteDir() : take.path;
    const folder = localCompletedPath(reported, clientDir, take.path);
    if (folder) return { folder, root: take.path, message: null };
    const where = take.origin === 'configured' ? `its completed folder ${clientDir || '(none)'} (here ${take.path}, integrations.${d.name}.completedPath)` : `the confirmed completed folder ${take.path}`;
    return { folder: null, root: take.path, message: `${name} reports the finished download in ${reported}, outside ${where}; refusing to take files from ${reported}` };
  }

  private clientCompleteDir(): Promise<string> {
    const d = this.downloader;
    return d.name === 'sabnzbd' ? d.client.completeDir() : d.client.destDir();
  }
}

/**
 * The only folder finished Usenet downloads are taken from: the client's `completedPath` when an
 * administrator set it, else the folder confirmed at the last Test; null when neither is set.
 */
export function usenetTakeFolder(c: { completedPath: string; confirmedPath: string }): { path: string; origin: 'configured' | 'confirmed' } | null {
  if (c.completedPath.trim() !== '') return { path: c.completedPath, origin: 'configured' };
  if (c.confirmedPath.trim() !== '') return { path: c.confirmedPath, origin: 'confirmed' };
  return null;
}
