/**
 * ReplayGain 2 values (decisions §12): gains in dB relative to the −18 LUFS reference, peaks as
 * linear sample amplitude (1.0 = full scale); library/replayGain.ts reads and computes them.
 */
export interface ReplayGain {
  trackGain: number | null;
  trackPeak: number | null;
  albumGain: number | null;
  albumPeak: number | null;
}

/** Shapes the canonical store's writers take: what a scanner or an indexer knows about an entity. */

/** Entity kinds as stored in library_dirty and library_genre_links. */
export const KIND = { artist: 1, album: 2, track: 3 } as const;
export type MediaSource = 'aurral' | 'lidarr';
export const SOURCE_BIT: Record<MediaSource, number> = { aurral: 1, lidarr: 2 };

export interface ArtistInput {
  identityKey: string;
  mbid?: string | null;
  name: string;
  metadata?: Record<string, unknown> | null;
}

export interface AlbumInput {
  identityKey: string;
  /** Release-group MBID (Lidarr's foreignAlbumId). */
  mbid?: string | null;
  releaseMbid?: string | null;
  artistId: number;
  title: string;
  albumArtist: string;
  releaseDate?: string | null;
  albumType?: string | null;
  secondaryTypes?: string[];
  monitored?: boolean;
  metadata?: Record<string, unknown> | null;
}

export interface TrackInput {
  identityKey: string;
  mbid?: string | null;
  title: string;
  artistName: string;
  artistId: number | null;
  albumId: number | null;
  albumTitle?: string;
  discNumber?: number;
  trackNumber?: number;
  year?: number | null;
  durationMs?: number;
  lyrics?: string | null;
  genres?: string[];
  monitored?: boolean;
  metadata?: Record<string, unknown> | null;
}

export interface MediaFileInput {
  source: MediaSource;
  path: string;
  /** The music folder the file was found under (aurral) or null. */
  root?: string | null;
  trackId: number;
  albumId: number | null;
  format?: string | null;
  mime?: string | null;
  codec?: string | null;
  size: number;
  mtimeMs: number;
  durationMs?: number;
  bitrate?: number | null;
  sampleRate?: number | null;
  bitDepth?: number | null;
  channels?: number | null;
  lossless?: boolean;
  fingerprint?: string | null;
  imageKey?: string | null;
  tagError?: string | null;
  available?: boolean;
  scanId?: number | null;
  /**
   * ReplayGain values read from the file's tags (decisions §12); null when it has none (measured
   * values then stay while the file is unchanged). Left out, the stored values are not touched.
   */
  replayGain?: ReplayGain | null;
}

export interface KnownMediaFile {
  id: number;
  trackId: number;
  albumId: number | null;
  size: number;
  mtimeMs: number;
  available: number;
}
