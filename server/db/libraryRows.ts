import type { MediaSource } from './libraryModel.js';

/** Rows of the canonical library tables as libraryReads.ts and libraryPages.ts read them. */

export interface ArtistRow {
  id: number; identity_key: string; mbid: string | null; name: string; sort_name: string; metadata_json: string | null;
  created_at: number; updated_at: number; album_count: number; track_count: number; available_track_count: number;
  size_on_disk: number; sources: number; available: number; latest_media_at: number; image_key: string | null;
  appears_on_count: number;
}
export interface AlbumRow {
  id: number; identity_key: string; mbid: string | null; release_mbid: string | null; artist_id: number; title: string;
  sort_name: string; album_artist: string; release_date: string | null; year: number; album_type: string | null;
  secondary_types: string; metadata_json: string | null; monitored: number; created_at: number; updated_at: number;
  track_count: number; available_track_count: number; size_on_disk: number; duration_ms: number; sources: number;
  available: number; latest_media_at: number; image_key: string | null;
}
export interface TrackRow {
  id: number; identity_key: string; mbid: string | null; title: string; artist_name: string; artist_id: number | null;
  album_id: number | null; album_title: string | null; album_mbid: string | null; disc_number: number;
  track_number: number; year: number; duration_ms: number; lyrics: string | null; monitored: number;
  created_at: number; size_on_disk: number; sources: number; available: number; latest_media_at: number;
  image_key: string | null;
}
export interface MediaFileRow {
  id: number; track_id: number; album_id: number | null; source: MediaSource; path: string; root: string | null;
  format: string | null; mime: string | null; codec: string | null; size: number; mtime_ms: number;
  duration_ms: number; bitrate: number | null; sample_rate: number | null; bit_depth: number | null;
  channels: number | null; lossless: number; fingerprint: string | null; image_key: string | null;
  tag_error: string | null; available: number; created_at: number; updated_at: number;
  rg_track_gain: number | null; rg_track_peak: number | null; rg_album_gain: number | null; rg_album_peak: number | null;
  rg_source: string | null; rg_album_source: string | null; rg_error: string | null;
}
export interface GenreRow {
  id: number; name: string; artist_count: number; album_count: number; track_count: number;
  available_artist_count: number; available_album_count: number; available_track_count: number;
}

export type CanonicalRows =
  | { kind: 'artists'; rows: ArtistRow[]; total: number }
  | { kind: 'albums'; rows: AlbumRow[]; total: number }
  | { kind: 'tracks'; rows: TrackRow[]; total: number }
  | { kind: 'genres'; rows: GenreRow[]; total: number };
