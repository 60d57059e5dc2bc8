import { describe, expect, it } from 'vitest';
import { groupReleases, isHttpLink, linkTarget, searchHref, typeLine, type ReleaseGroupEntry, type ResolvedLink } from '../../renderer/src/metadata/logic.js';

const entry = (id: string, primary: string, secondary: string[] = []): ReleaseGroupEntry => ({
  id,
  title: id,
  'primary-type': primary,
  'secondary-types': secondary,
  'first-release-date': null,
  artistName: 'A',
  inLibrary: false,
});

describe('groupReleases', () => {
  it('puts studio releases by primary type first (Albums, EPs, Singles…), then each secondary type, keeping the server order inside', () => {
    const sections = groupReleases([
      entry('single-new', 'Single'),
      entry('live', 'Album', ['Live']),
      entry('album-new', 'Album'),
      entry('comp', 'Album', ['Compilation', 'Live']),
      entry('ep', 'EP'),
      entry('album-old', 'Album'),
      entry('odd', ''),
      entry('single-old', 'Single'),
    ]);
    expect(sections.map((s) => [s.title, s.entries.map((e) => e.id)])).toEqual([
      ['Albums', ['album-new', 'album-old']],
      ['EPs', ['ep']],
      ['Singles', ['single-new', 'single-old']],
      ['Other releases', ['odd']],
      ['Live', ['live']],
      ['Compilations', ['comp']],
    ]);
  });

  it('names a type it has no plural for by the type itself, and gives nothing for no releases', () => {
    expect(groupReleases([entry('x', 'Album', ['Field recording']), entry('y', 'Album', ['Newtype'])]).map((s) => s.title)).toEqual(['Field recordings', 'Newtype']);
    expect(groupReleases([])).toEqual([]);
  });
});

describe('search addresses and links', () => {
  const link = (over: Partial<ResolvedLink>): ResolvedLink => ({ kind: 'artist', source: 'spotify', artist: { name: 'Aurora Lane', mbid: null }, album: null, track: null, ...over });
  const mbid = '00000000-0000-4000-8000-000000000001';
  const rg = '00000000-0000-4000-8000-000000000101';

  it('keeps the words and the scope in the address (artist is the default scope)', () => {
    expect(searchHref('  dream pop ', 'tag')).toBe('/search?q=dream+pop&scope=tag');
    expect(searchHref('Aurora', 'artist')).toBe('/search?q=Aurora');
    expect(searchHref('', 'artist')).toBe('/search');
  });

  it('opens the release or artist a link names, or searches by name when nothing matched', () => {
    expect(linkTarget(link({ artist: { name: 'Aurora Lane', mbid } }))).toBe(`/artist/${mbid}`);
    expect(linkTarget(link({}))).toBe('/search?q=Aurora+Lane');
    expect(linkTarget(link({ kind: 'album', artist: { name: 'Aurora Lane', mbid }, album: { title: 'Dawn', mbid: rg } }))).toBe(`/release/${rg}`);
    expect(linkTarget(link({ kind: 'album', artist: { name: 'Aurora Lane', mbid }, album: { title: 'Dawn', mbid: null } }))).toBe('/search?q=Dawn&scope=album');
    expect(linkTarget(link({ kind: 'track', album: { title: 'Dawn', mbid: rg }, track: { title: 'First Light', mbid: null } }))).toBe(`/release/${rg}`);
    expect(linkTarget(link({ kind: 'track', artist: { name: 'Aurora Lane', mbid }, track: { title: 'First Light', mbid: null } }))).toBe(`/artist/${mbid}`);
    expect(linkTarget(link({ kind: 'track', track: { title: 'First Light', mbid: null } }))).toBe('/search?q=Aurora+Lane');
  });

  it('treats only a whole http(s) address as a link', () => {
    expect(isHttpLink(' https://open.spotify.com/artist/abc ')).toBe(true);
    expect(isHttpLink('http://x.example/a')).toBe(true);
    expect(isHttpLink('ftp://x.example')).toBe(false);
    expect(isHttpLink('https://x.example and words')).toBe(false);
    expect(isHttpLink('Aurora Lane')).toBe(false);
  });
});

describe('small readers', () => {
  it('joins primary and secondary types', () => {
    expect(typeLine('Album', ['Live', 'Compilation'])).toBe('Album · Live · Compilation');
    expect(typeLine(null, [])).toBe('');
  });
});
