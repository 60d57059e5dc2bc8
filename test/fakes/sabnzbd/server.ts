import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import { FakeDownloads, type FakeDownload } from '../usenet/downloads.js';

/**
 * A fake SABnzbd (`/api?mode=…&apikey=…&output=json`, external-services.md (k)): a wrong or missing
 * key answers HTTP 200 `{status:false, error:"API Key Incorrect" | "API Key Required"}` like the
 * real one (except `mode=version`, which needs no key); `addurl` fetches the NZB, the job shows in
 * `queue` with a growing percentage, then in `history` as Completed with `storage` the folder
 * holding a real MP3.
 */
export interface FakeSabnzbd extends JsonFake {
  apiKey: string;
  downloads: FakeDownloads;
}

const nzoId = (id: number) => `SABnzbd_nzo_${id.toString(36).padStart(6, '0')}`;
const idOf = (nzo: string) => parseInt(nzo.replace(/^SABnzbd_nzo_/, ''), 36);

export async function startFakeSabnzbd(options: { completedDir: string; apiKey?: string }): Promise<FakeSabnzbd> {
  const apiKey = options.apiKey ?? 'sabnzbd-key';
  const downloads = new FakeDownloads(options.completedDir);

  const selected = (req: SeenRequest, jobs: FakeDownload[]) => {
    const ids = (req.query.get('nzo_ids') ?? '').split(',').filter(Boolean);
    return ids.length ? jobs.filter((j) => ids.includes(nzoId(j.id))) : jobs;
  };
  const queueSlot = (j: FakeDownload, index: number) => {
    const progress = downloads.progress(j);
    const mb = j.sizeBytes / 1_000_000;
    return {
      index,
      nzo_id: nzoId(j.id),
      filename: j.name,
      cat: j.category || '*',
      status: progress > 0 ? 'Downloading' : 'Queued',
      percentage: String(Math.floor(progress * 100)),
      mb: mb.toFixed(2),
      mbleft: (mb * (1 - progress)).toFixed(2),
      size: `${mb.toFixed(1)} MB`,
      sizeleft: `${(mb * (1 - progress)).toFixed(1)} MB`,
      timeleft: '0:00:01',
      priority: 'Normal',
    };
  };
  const historySlot = (j: FakeDownload) => ({
    nzo_id: nzoId(j.id),
    name: j.name,
    nzb_name: `${j.name}.nzb`,
    category: j.category || '*',
    status: j.finished!.ok ? 'Completed' : 'Failed',
    fail_message: j.finished!.failMessage,
    storage: j.finished!.folder,
    path: j.finished!.folder,
    bytes: j.sizeBytes,
    completed: Math.floor(j.finished!.at / 1000),
    download_time: Math.max(1, Math.round((j.finished!.at - j.addedAt) / 1000)),
  });

  const handler = async (req: SeenRequest, body: Buffer): Promise<FakeReply> => {
    if (req.path.replace(/\/+$/, '').toLowerCase() !== '/api') return { body: '<!doctype html><html><body>SABnzbd</body></html>', headers: { 'content-type': 'text/html' } };
    const mode = req.query.get('mode');
    if (mode === 'version') return { body: { version: '4.3.2' } };
    const key = req.query.get('apikey');
    if (!key) return { body: { status: false, error: 'API Key Required' } };
    if (key !== apiKey) return { body: { status: false, error: 'API Key Incorrect' } };
    downloads.settle();
    switch (mode) {
      case 'addurl': {
        const url = req.query.get('name');
        if (!url) return { body: { status: false, error: 'expects one parameter' } };
        const job = await downloads.add(url, req.query.get('nzbname') ?? url, req.query.get('cat') ?? '', Number(req.query.get('priority') ?? -100));
        return { body: { status: true, nzo_ids: [nzoId(job.id)] } };
      }
      case 'addfile': {
        const nzb = nzbFromMultipart(req.headers['content-type'] ?? '', body);
        if (req.method !== 'POST' || nzb === null) return { body: { status: false, error: 'expects one parameter' } };
        const job = downloads.addContent(nzb, req.query.get('nzbname') ?? 'upload.nzb', req.query.get('cat') ?? '', Number(req.query.get('priority') ?? -100));
        return { body: { status: true, nzo_ids: [nzoId(job.id)] } };
      }
      case 'queue': {
        if (req.query.get('name') === 'delete') {
          const id = req.query.get('value') ?? '';
          const job = downloads.queued().find((j) => nzoId(j.id) === id);
          if (job) downloads.remove(idOf(id), req.query.get('del_files') === '1');
          return { body: { status: true, nzo_ids: job ? [id] : [] } };
        }
        const slots = selected(req, downloads.queued()).map(queueSlot);
        return { body: { queue: { status: slots.length ? 'Downloading' : 'Idle', paused: false, kbpersec: slots.length ? '2048.00' : '0.00', speed: '2.0 M', mb: '0', mbleft: '0', noofslots: slots.length, slots } } };
      }
      case 'history': {
        if (req.query.get('name') === 'delete') {
          const id = req.query.get('value') ?? '';
          const job = downloads.history().find((j) => nzoId(j.id) === id);
          if (job) downloads.remove(idOf(id), req.query.get('del_files') === '1');
          return { body: { status: true, nzo_ids: job ? [id] : [] } };
        }
        const slots = selected(req, downloads.history()).reverse().map(historySlot);
        return { body: { history: { noofslots: slots.length, slots } } };
      }
      case 'get_config':
        return { body: { config: { misc: { complete_dir: options.completedDir, download_dir: `${options.completedDir}/../incomplete` } } } };
      default:
        return { body: { status: false, error: 'not implemented' } };
    }
  };

  const fake = await startJsonFake(handler);
  return Object.assign(fake, { apiKey, downloads });
}

/** The file of a `multipart/form-data` upload in field `name` or `nzbfile`; null when there is none. */
function nzbFromMultipart(contentType: string, body: Buffer): string | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!contentType.startsWith('multipart/form-data') || !boundary) return null;
  const parts = body.toString('utf8').split(`--${boundary[1] ?? boundary[2]}`);
  for (const part of parts) {
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const head = part.slice(0, split);
    if (/name="(name|nzbfile)"/.test(head)) return part.slice(split + 4).replace(/\r\n$/, '');
  }
  return null;
}
