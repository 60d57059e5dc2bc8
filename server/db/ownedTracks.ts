import type { Db } from './db.js';

/**
 * Available tracks of the canonical library looked up the way a request or an import names them: by
 * recording MBID, or by the sort forms (libraryText.sortName) of title and artist name. Prepared once
 * per lookup object, for callers that ask many times in a row (an imported playlist's tracks).
 */
export class OwnedTrackLookup {
  private readonly mbid;
  private readonly names;

  constructor(db: Db) {
    this.mbid = db.prepare('SELECT id FROM library_tracks WHERE mbid = ? AND available = 1 LIMIT 1').pluck();
    this.names = db.prepare('SELECT id FROM library_tracks WHERE sort_name = ? AND artist_sort_name = ? AND available = 1 LIMIT 1').pluck();
  }

  byMbid(recordingMbid: string): number | undefined {
    return this.mbid.get(recordingMbid) as number | undefined;
  }

  /** Both arguments already in their sort form. */
  byNames(sortTitle: string, sortArtist: string): number | undefined {
    return this.names.get(sortTitle, sortArtist) as number | undefined;
  }
}
