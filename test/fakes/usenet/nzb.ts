/**
 * The NZBs the fakes exchange: real NZB XML whose `<head>` carries the tags of the one track the
 * "release" holds, so a fake download client can write a matching audio file when it finishes.
 */
export interface NzbTrack {
  artist: string;
  album: string;
  title: string;
  track?: number;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export function buildNzb(name: string, track: NzbTrack): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<!DOCTYPE nzb PUBLIC "-//newzBin//DTD NZB 1.1//EN" "http://www.newzbin.com/DTD/nzb/nzb-1.1.dtd">',
    '<nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">',
    '<head>',
    `<meta type="name">${escape(name)}</meta>`,
    `<meta type="x-artist">${escape(track.artist)}</meta>`,
    `<meta type="x-album">${escape(track.album)}</meta>`,
    `<meta type="x-title">${escape(track.title)}</meta>`,
    `<meta type="x-track">${track.track ?? 1}</meta>`,
    '</head>',
    `<file poster="fake@example.invalid" date="1700000000" subject="${escape(name)} &quot;01.mp3&quot; yEnc (1/1)">`,
    '<groups><group>alt.binaries.sounds.mp3</group></groups>',
    `<segments><segment bytes="1000" number="1">${escape(name).replace(/\s+/g, '.')}@fake</segment></segments>`,
    '</file>',
    '</nzb>',
    '',
  ].join('\n');
}

/** The track an NZB built by `buildNzb` describes; null for anything that is not such an NZB. */
export function parseNzb(xml: string): NzbTrack | null {
  if (!/<nzb[\s>]/.test(xml)) return null;
  const meta = (type: string) => {
    const m = new RegExp(`<meta type="${type}">([^<]*)</meta>`).exec(xml);
    return m ? unescape(m[1]!) : null;
  };
  const artist = meta('x-artist');
  const album = meta('x-album');
  const title = meta('x-title');
  if (!artist || !album || !title) return null;
  return { artist, album, title, track: Number(meta('x-track')) || 1 };
}
