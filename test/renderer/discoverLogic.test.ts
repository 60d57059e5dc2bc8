import { describe, expect, it } from 'vitest';
import { addToList, artistHref, pageRange, progressText, progressValue, removeFromList, showDate, sourceLabel, without } from '../../renderer/src/discover/logic.js';
import { newestFirst, refreshLine, withoutPublishers } from '../../renderer/src/news/logic.js';

describe('discover helpers', () => {
  it('links an artist to its MusicBrainz page, or to a search for its name', () => {
    expect(artistHref({ name: 'Aurora Lane', id: '00000000-0000-4000-8000-000000000001' })).toBe('/artist/00000000-0000-4000-8000-000000000001');
    expect(artistHref({ name: ' Sigur Rós & Friends ', id: null })).toBe('/search?q=Sigur+R%C3%B3s+%26+Friends');
  });

  it('says where a seed came from in words', () => {
    expect(['lastfm', 'listenbrainz', 'koito', 'local', 'library', 'other', null].map(sourceLabel)).toEqual(['Last.fm', 'ListenBrainz', 'Koito', 'your plays', 'your library', 'other', '']);
  });

  it('reads progress in percent, clamped, and words without it', () => {
    expect(progressText({ updatePhase: 'similar', updateProgress: 42.4, updateProgressMessage: 'Asking Last.fm' })).toBe('Asking Last.fm (42%)');
    expect(progressText({ updatePhase: 'queued', updateProgress: null, updateProgressMessage: null })).toBe('queued');
    expect([progressValue(null), progressValue(-3), progressValue(0), progressValue(1), progressValue(140), progressValue(Number.NaN)]).toEqual([null, 0, 0, 1, 100, null]);
  });

  it('names the page shown, and nothing for an empty one', () => {
    expect(pageRange(0, 24, 31)).toBe('1–24 of 31');
    expect(pageRange(24, 7, 31)).toBe('25–31 of 31');
    expect(pageRange(0, 0, 0)).toBe('');
  });

  it('drops artists by name without case, and edits lists without duplicates', () => {
    expect(without([{ name: 'Low' }, { name: 'Muse' }, { name: 'LOW ' }], ['low'])).toEqual([{ name: 'Muse' }]);
    const list = addToList(['Noise'], '  shoegaze ');
    expect(list).toEqual(['Noise', 'shoegaze']);
    expect(addToList(list, 'NOISE')).toBe(list);
    expect(addToList(list, '   ')).toBe(list);
    expect(removeFromList(list, 'Shoegaze')).toEqual(['Noise']);
  });

  it("gives a show's date in words, with its time when known", () => {
    expect(showDate('2026-12-12', '20:00:00', 'en-GB')).toBe('Sat, 12 Dec 2026, 20:00');
    expect(showDate('2026-12-12', '20:00:00', 'en-US')).toBe('Sat, Dec 12, 2026, 8:00 PM');
    expect(showDate('2026-12-12', null, 'en-GB')).toBe('Sat, 12 Dec 2026');
    expect(showDate(null, null)).toBe('Date to be announced');
    expect(showDate('soon', null)).toBe('soon');
  });
});

describe('news helpers', () => {
  const a = (id: number, source: string, publishedAt: string) => ({ id, source, publishedAt });

  it('hides blocked publishers without case and keeps the rest in order', () => {
    expect(withoutPublishers([a(1, 'Pitchfork', ''), a(2, 'NME', ''), a(3, ' pitchfork', '')], ['PITCHFORK']).map((x) => x.id)).toEqual([2]);
  });

  it('puts the newest first and keeps the order of equal times', () => {
    const list = [a(1, 'x', '2026-11-20T10:00:00Z'), a(2, 'x', '2026-11-24T10:00:00Z'), a(3, 'x', '2026-11-20T10:00:00Z'), a(4, 'x', 'not a date')];
    expect(newestFirst(list).map((x) => x.id)).toEqual([2, 1, 3, 4]);
  });

  it('says what the last refresh did', () => {
    expect(refreshLine({ checkedArtistCount: 1, queuedArtistCount: 0, callsRemaining: 1, newsApiConfigured: true, isRefreshing: true })).toBe(
      "Checked 1 artist · 1 NewsAPI call left in the last 24 hours' budget · reading the feeds now",
    );
    expect(refreshLine({ checkedArtistCount: 120, queuedArtistCount: 30, callsRemaining: 87, newsApiConfigured: true, checkedAt: null })).toBe(
      "Checked 120 artists · 30 artists waiting for a NewsAPI search · 87 NewsAPI calls left in the last 24 hours' budget",
    );
    // Without a NewsAPI key the feeds are all there is: no budget, no NewsAPI queue (issue 24 §6).
    expect(refreshLine({ checkedArtistCount: 120, queuedArtistCount: 30, callsRemaining: 100, newsApiConfigured: false, checkedAt: null })).toBe('Checked 120 artists');
  });
});
