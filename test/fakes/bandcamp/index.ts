import { startJsonFake, type JsonFake } from '../http.js';

/**
 * Bandcamp pages on 127.0.0.1, served at `/<subdomain>/<path>` (the server's TONEARM_BANDCAMP_URL
 * rewrite of `https://<subdomain>.bandcamp.com/<path>`), as HTML with Bandcamp's OpenGraph tags.
 */
export interface BandcampFakePage { type: 'album' | 'song' | 'band'; title: string; artist: string; album?: string }

export interface BandcampFake extends JsonFake {
  /** Keyed by `<subdomain>/<path without leading slash>`, e.g. `auroralane/album/dawn`; `auroralane/` for the artist. */
  pages: Map<string, BandcampFakePage>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export async function startBandcampFake(): Promise<BandcampFake> {
  const fake = (await startJsonFake((req) => {
    const page = fake.pages.get(req.path.slice(1));
    if (!page) return { status: 404, body: '<html><body>Sorry, that something isn’t here.</body></html>', headers: { 'content-type': 'text/html' } };
    const ogTitle = page.type === 'band' ? page.title : `${page.title}, by ${page.artist}`;
    const description = page.type === 'song' && page.album ? `${page.title} by ${page.artist}, from the album ${page.album}. Released 1 March 2019.` : `${page.title} by ${page.artist}`;
    const html = `<!DOCTYPE html><html><head><title>${esc(ogTitle)}</title>
<meta property="og:title" content="${esc(ogTitle)}">
<meta property="og:type" content="${page.type}">
<meta property="og:site_name" content="${esc(page.artist)}">
<meta property="og:description" content="${esc(description)}">
</head><body></body></html>`;
    return { body: html, headers: { 'content-type': 'text/html; charset=utf-8' } };
  })) as BandcampFake;
  fake.pages = new Map();
  return fake;
}
