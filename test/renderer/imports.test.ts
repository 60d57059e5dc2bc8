import { h, type VNode } from 'preact';
import { describe, expect, it } from 'vitest';
import { callbackCompletion, hiddenCount, importOutcome, playlistLine, previewSummary, type ImportPreview } from '../../renderer/src/imports/logic.js';

// A .tsx module: loaded by vitest (with the renderer's JSX settings), typed here by hand because
// the server's tsconfig has no JSX.
const previewModule = '../../renderer/src/imports/PreviewView.tsx';
const { PreviewView } = (await import(previewModule)) as { PreviewView: (props: { preview: ImportPreview }) => VNode };

/** Renders a tree of hook-free components to its elements (no DOM needed): function components are called. */
function expand(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expand);
  if (node === null || node === undefined || typeof node === 'boolean') return null;
  if (typeof node !== 'object') return node;
  const v = node as VNode<any>;
  if (typeof v.type === 'function') return expand((v.type as (p: unknown) => unknown)(v.props));
  return { type: v.type, props: { ...v.props, children: expand(v.props.children) } };
}
function text(node: unknown): string {
  if (Array.isArray(node)) return node.map(text).join('');
  if (node === null || node === undefined) return '';
  if (typeof node !== 'object') return String(node);
  return text((node as { props: { children: unknown } }).props.children);
}
function findAll(node: unknown, pred: (n: { type: unknown; props: any }) => boolean, out: { type: unknown; props: any }[] = []) {
  if (Array.isArray(node)) node.forEach((n) => findAll(n, pred, out));
  else if (node && typeof node === 'object') {
    const n = node as { type: unknown; props: any };
    if (pred(n)) out.push(n);
    findAll(n.props.children, pred, out);
  }
  return out;
}

const track = (position: number, title: string) => ({ position, title, artist: 'Velvet Harbor', album: 'Salt and Iron' });
const preview: ImportPreview = {
  source: 'spotify',
  playlist: { id: 'p1', name: 'Salt Favourites' },
  total: 1205,
  counts: { owned: 2, download: 1101, unmatched: 1, unchecked: 101 },
  owned: [track(0, 'Anchor'), track(3, 'Old Pier')],
  download: Array.from({ length: 100 }, (_, i) => ({ ...track(10 + i, `Song ${i}`), recordingMbid: `mbid-${i}` })),
  unmatched: [track(2, 'Not On MusicBrainz')],
  unchecked: [track(1200, 'Late Song')],
  listLimit: 100,
  matching: { available: true, budgetExhausted: true, lookups: 14 },
  canDownload: false,
};

describe('import preview component', () => {
  it('shows the counts of each group, with the download source caveat and the not-checked group', () => {
    const tree = expand(h(PreviewView, { preview }));
    const counts = findAll(tree, (n) => n.type === 'li' && n.props['data-group'] !== undefined).map((n) => [n.props['data-group'], text(n)]);
    expect(counts).toEqual([
      ['owned', '2 tracks already in your library'],
      ['download', '1,101 tracks to download (once a download source is set up)'],
      ['unmatched', '1 track not found on MusicBrainz (left out)'],
      ['unchecked', '101 tracks not checked yet (matched during the import)'],
    ]);
    expect(text(findAll(tree, (n) => n.type === 'h3')[0])).toBe('Salt Favourites (1,205 tracks)');
  });

  it('lists the tracks of each group in source order, numbered by position, and says how many more there are', () => {
    const tree = expand(h(PreviewView, { preview }));
    const groups = findAll(tree, (n) => n.type === 'details');
    expect(groups.map((g) => text(findAll(g, (n) => n.type === 'summary')[0]))).toEqual(['In your library (2)', 'To download (1,101)', 'Not found (1)', 'Not checked yet (101)']);
    const owned = findAll(groups[0], (n) => n.type === 'li');
    expect(owned.map((li) => [li.props.value, text(li)])).toEqual([
      [1, 'Anchor — Velvet Harbor'],
      [4, 'Old Pier — Velvet Harbor'],
    ]);
    const download = findAll(groups[1], (n) => n.type === 'li');
    expect(download).toHaveLength(101);
    expect(text(download.at(-1))).toBe('and 1,001 more');
    // Only the download group starts open.
    expect(groups.map((g) => g.props.open)).toEqual([false, true, false, false]);
  });

  it('warns when MusicBrainz is switched off and leaves out empty groups', () => {
    const off = { ...preview, counts: { owned: 2, download: 0, unmatched: 3, unchecked: 0 }, download: [], unchecked: [], matching: { available: false, budgetExhausted: false, lookups: 0 } };
    const tree = expand(h(PreviewView, { preview: off }));
    expect(text(tree)).toContain('MusicBrainz lookups are switched off');
    expect(findAll(tree, (n) => n.type === 'details')).toHaveLength(2);
    expect(findAll(tree, (n) => n.props['data-group'] === 'unchecked')).toHaveLength(0);
  });
});

describe('import logic', () => {
  it('completes the broker flow from the tokens in the query (or the fragment) and PKCE from the code', () => {
    expect(callbackCompletion('?state=s1&access_token=a&refresh_token=r&expires_in=3600')).toEqual({ body: { state: 's1', accessToken: 'a', refreshToken: 'r', expiresIn: 3600 } });
    expect(callbackCompletion('?state=s1', '#access_token=a&expires_in=10')).toEqual({ body: { state: 's1', accessToken: 'a', expiresIn: 10 } });
    expect(callbackCompletion('?code=c&state=s2')).toEqual({ body: { state: 's2', code: 'c' } });
    expect(callbackCompletion('?error=access_denied&state=s')).toEqual({ error: 'Spotify did not grant access (access_denied).' });
    expect(callbackCompletion('?code=c')).toMatchObject({ error: expect.stringMatching(/no state/) });
    expect(callbackCompletion('?state=s')).toMatchObject({ error: expect.stringMatching(/neither a code nor a token/) });
  });

  it('summarises, counts hidden tracks and describes playlists and outcomes', () => {
    expect(previewSummary({ ...preview, canDownload: true, counts: { ...preview.counts, unchecked: 0 } }).map((l) => l.key)).toEqual(['owned', 'download', 'unmatched']);
    expect(hiddenCount(preview, 'download')).toBe(1001);
    expect(hiddenCount(preview, 'owned')).toBe(0);
    expect(playlistLine({ id: 'x', name: 'Mix', owner: 'rj', trackCount: null, kind: 'station', description: 'Your scrobbles' })).toBe('by rj · Your scrobbles');
    expect(playlistLine({ id: 'x', name: 'A', owner: null, trackCount: 1, kind: 'playlist', description: null })).toBe('1 track');
    expect(importOutcome({ name: 'Salt', counts: { owned: 2, pending: 3 } })).toBe(
      '“Salt” was created with 2 tracks. 3 tracks are being matched; missing ones will download and join the playlist.',
    );
  });
});
