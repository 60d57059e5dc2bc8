import { z } from 'zod';
import { JsonApi } from '../jsonApi.js';

/**
 * Last.fm's web player stations (external-services (d), unofficial): `GET <web>/player/station/
 * user/<name>/<library|mix|recommended>` with `Accept: application/json`, no API key. Each call
 * answers one batch of tracks; no official API offers a user's stations.
 */
export const LASTFM_STATIONS = ['library', 'mix', 'recommended'] as const;
export type LastFmStation = (typeof LASTFM_STATIONS)[number];

export interface LastFmStationsOptions {
  /** e.g. `https://www.last.fm`. */
  webUrl: string;
  userAgent: string;
  spacingMs?: number;
  timeoutMs?: number;
}

const stationSchema = z
  .object({
    playlist: z
      .array(
        z
          .object({
            name: z.string().nullish(),
            url: z.string().nullish(),
            duration: z.coerce.number().nullish(),
            artists: z.array(z.object({ name: z.string() }).loose()).nullish(),
            album: z.union([z.string(), z.object({ name: z.string().nullish() }).loose()]).nullish(),
            mbid: z.string().nullish(),
          })
          .loose(),
      )
      .default([]),
  })
  .loose();

export interface LastFmStationTrack {
  title: string;
  artist: string;
  album: string | null;
  durationMs: number | null;
  recordingMbid: string | null;
}

export class LastFmStations {
  private readonly api: JsonApi;

  constructor(options: LastFmStationsOptions) {
    this.api = new JsonApi({
      service: 'lastfm',
      label: 'Last.fm',
      baseUrl: options.webUrl,
      userAgent: options.userAgent,
      spacingMs: options.spacingMs ?? 200,
      timeoutMs: options.timeoutMs ?? 15_000,
      retries: 2,
      retryBaseMs: 300,
    });
  }

  async tracks(username: string, station: LastFmStation, signal?: AbortSignal): Promise<LastFmStationTrack[]> {
    const answer = await this.api.get({ path: `/player/station/user/${encodeURIComponent(username)}/${station}`, schema: stationSchema, ...(signal && { signal }) });
    const out: LastFmStationTrack[] = [];
    for (const t of answer.playlist) {
      const artist = t.artists?.[0]?.name;
      if (!t.name || !artist) continue;
      const album = typeof t.album === 'string' ? t.album : (t.album?.name ?? null);
      out.push({
        title: t.name,
        artist,
        album: album || null,
        durationMs: t.duration && t.duration > 0 ? Math.round(t.duration * 1000) : null,
        recordingMbid: t.mbid && /^[0-9a-f-]{36}$/i.test(t.mbid) ? t.mbid.toLowerCase() : null,
      });
    }
    return out;
  }
}
