import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';
import { buildNzb, type NzbTrack } from '../usenet/nzb.js';

/**
 * A fake Prowlarr (v1 API, external-services.md (k)): X-Api-Key checked on every call (401
 * otherwise), paths case-insensitive, indexers, a search over a small release catalogue with
 * indexer names, sizes and Newznab categories, and download URLs proxied through the fake that
 * serve a real NZB (checked against `apikey` in the query, as Prowlarr's proxy does).
 */
export interface FakeIndexer {
  id: number;
  name: string;
  protocol: 'usenet' | 'torrent';
  enable: boolean;
  priority: number;
}

export interface FakeRelease extends NzbTrack {
  guid: string;
  indexerId: number;
  /** Release title as indexers show it. */
  releaseTitle: string;
  size: number;
  categories: number[];
  protocol?: 'usenet' | 'torrent';
}

const categoryNames: Record<number, string> = { 3000: 'Audio', 3010: 'Audio/MP3', 3040: 'Audio/Lossless', 3030: 'Audio/Audiobook', 2000: 'Movies' };

export interface FakeProwlarr extends JsonFake {
  apiKey: string;
  indexers: FakeIndexer[];
  releases: FakeRelease[];
  /** The download URL a release is offered with. */
  downloadUrlOf(release: FakeRelease): string;
}

export const defaultIndexers = (): FakeIndexer[] => [
  { id: 1, name: 'NZBgeek', protocol: 'usenet', enable: true, priority: 25 },
  { id: 2, name: 'DrunkenSlug', protocol: 'usenet', enable: true, priority: 10 },
  { id: 3, name: 'SomeTracker', protocol: 'torrent', enable: true, priority: 25 },
];

export const defaultReleases = (): FakeRelease[] => [
  { guid: 'nzb-1', indexerId: 1, releaseTitle: 'Radiohead - OK Computer (1997) [MP3 320]', artist: 'Radiohead', album: 'OK Computer', title: 'Paranoid Android', track: 2, size: 110_000_000, categories: [3010] },
  { guid: 'nzb-2', indexerId: 2, releaseTitle: 'Radiohead - OK Computer (1997) [FLAC]', artist: 'Radiohead', album: 'OK Computer', title: 'Paranoid Android', track: 2, size: 420_000_000, categories: [3040] },
  { guid: 'nzb-3', indexerId: 1, releaseTitle: 'Radiohead - OK Computer Live (DVD)', artist: 'Radiohead', album: 'OK Computer Live', title: 'Airbag', size: 4_000_000_000, categories: [2000] },
  { guid: 'tor-1', indexerId: 3, releaseTitle: 'Radiohead - OK Computer [FLAC]', artist: 'Radiohead', album: 'OK Computer', title: 'Airbag', size: 400_000_000, categories: [3040], protocol: 'torrent' },
];

export async function startFakeProwlarr(options: { apiKey?: string } = {}): Promise<FakeProwlarr> {
  const apiKey = options.apiKey ?? 'prowlarr-key';
  const state = { indexers: defaultIndexers(), releases: defaultReleases() };
  let base = '';

  const authorised = (req: SeenRequest) => req.headers['x-api-key'] === apiKey || req.query.get('apikey') === apiKey;
  const indexerName = (id: number) => state.indexers.find((i) => i.id === id)?.name ?? `Indexer ${id}`;
  const downloadUrlOf = (r: FakeRelease) => `${base}/${r.indexerId}/download?apikey=${encodeURIComponent(apiKey)}&link=${encodeURIComponent(r.guid)}&file=${encodeURIComponent(r.releaseTitle)}`;
  const inCategories = (r: FakeRelease, wanted: number[]) =>
    wanted.length === 0 || r.categories.some((c) => wanted.some((w) => c === w || (w % 1000 === 0 && Math.floor(c / 1000) * 1000 === w)));

  const handler = (req: SeenRequest): FakeReply => {
    const p = req.path.toLowerCase().replace(/\/+$/, '');
    const download = /^\/(\d+)\/download$/.exec(p);
    if (download) {
      if (req.query.get('apikey') !== apiKey) return { status: 401, body: 'Unauthorized' };
      const r = state.releases.find((x) => x.guid === req.query.get('link'));
      if (!r) return { status: 404, body: { message: 'release not found' } };
      return { body: buildNzb(r.releaseTitle, r), headers: { 'content-type': 'application/x-nzb', 'content-disposition': `attachment; filename="${r.guid}.nzb"` } };
    }
    if (!p.startsWith('/api/v1/')) return { status: 200, body: '<!doctype html><html><body>Prowlarr</body></html>', headers: { 'content-type': 'text/html' } };
    if (!authorised(req)) return { status: 401, body: undefined };
    if (p === '/api/v1/system/status') return { body: { appName: 'Prowlarr', instanceName: 'Prowlarr', version: '1.24.3.4754', isDocker: true, urlBase: '' } };
    if (p === '/api/v1/indexer') {
      return {
        body: state.indexers.map((i) => ({
          id: i.id,
          name: i.name,
          definitionName: i.name.toLowerCase(),
          enable: i.enable,
          protocol: i.protocol,
          priority: i.priority,
          supportsSearch: true,
          supportsRss: true,
          capabilities: {
            categories: [{ id: 3000, name: 'Audio', subCategories: [{ id: 3010, name: 'Audio/MP3' }, { id: 3040, name: 'Audio/Lossless' }] }],
            musicSearchParams: ['q', 'album', 'artist', 'label', 'year'],
            searchParams: ['q'],
          },
        })),
      };
    }
    if (p === '/api/v1/search') {
      const query = req.query.get('query');
      if (!query) return { status: 400, body: [{ propertyName: 'Query', errorMessage: 'Query is required' }] };
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const categories = req.query.getAll('categories').map(Number).filter(Number.isFinite);
      const indexerIds = req.query.getAll('indexerIds').map(Number);
      const enabled = new Set(state.indexers.filter((i) => i.enable).map((i) => i.id));
      const matches = state.releases.filter(
        (r) =>
          enabled.has(r.indexerId) &&
          (indexerIds.length === 0 || indexerIds.includes(r.indexerId)) &&
          inCategories(r, categories) &&
          words.every((w) => `${r.releaseTitle} ${r.title}`.toLowerCase().includes(w)),
      );
      const offset = Math.max(0, Number(req.query.get('offset') ?? 0) || 0);
      const limit = Math.max(1, Number(req.query.get('limit') ?? 100) || 100);
      return {
        body: matches.slice(offset, offset + limit).map((r) => ({
          guid: r.guid,
          indexerId: r.indexerId,
          indexer: indexerName(r.indexerId),
          title: r.releaseTitle,
          sortTitle: r.releaseTitle.toLowerCase(),
          size: r.size,
          files: 1,
          grabs: 12,
          publishDate: '2024-01-01T00:00:00Z',
          age: 300,
          downloadUrl: downloadUrlOf(r),
          infoUrl: `https://indexer.invalid/details/${r.guid}`,
          protocol: r.protocol ?? 'usenet',
          categories: r.categories.map((id) => ({ id, name: categoryNames[id] ?? 'Other' })),
        })),
      };
    }
    return { status: 404, body: { message: 'NotFound' } };
  };

  const fake = await startJsonFake(handler);
  base = fake.url;
  return Object.assign(fake, { apiKey, indexers: state.indexers, releases: state.releases, downloadUrlOf });
}
