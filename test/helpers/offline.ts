/**
 * Every public service the server can call, pointed at a port nothing listens on, so no test ever
 * reaches the internet by default: a test that wants a service passes its fake's URL (its `env`
 * wins over these). Port 9 (discard) is below the ephemeral range, so no fake is ever given it;
 * a call fails at once with "connection refused" (or is refused by the private-address guard).
 */
export const CLOSED_URL = 'http://127.0.0.1:9';

export const OFFLINE_UPSTREAMS: Readonly<Record<string, string>> = {
  TONEARM_MUSICBRAINZ_URL: `${CLOSED_URL}/musicbrainz/ws/2`,
  TONEARM_COVERART_URL: `${CLOSED_URL}/coverart`,
  TONEARM_DEEZER_URL: `${CLOSED_URL}/deezer`,
  TONEARM_SPOTIFY_API_URL: `${CLOSED_URL}/spotify/v1`,
  TONEARM_SPOTIFY_ACCOUNTS_URL: `${CLOSED_URL}/spotify-accounts`,
  TONEARM_SPOTIFY_BROKER_URL: `${CLOSED_URL}/spotify-broker`,
  TONEARM_ITUNES_URL: `${CLOSED_URL}/itunes`,
  TONEARM_YOUTUBE_URL: `${CLOSED_URL}/youtube`,
  TONEARM_TIDAL_OEMBED_URL: `${CLOSED_URL}/tidal-oembed`,
  TONEARM_BANDCAMP_URL: `${CLOSED_URL}/bandcamp`,
  TONEARM_LASTFM_URL: `${CLOSED_URL}/lastfm/2.0`,
  TONEARM_LASTFM_AUTH_URL: `${CLOSED_URL}/lastfm-web/api/auth`,
  TONEARM_LASTFM_WEB_URL: `${CLOSED_URL}/lastfm-web`,
  TONEARM_LISTENBRAINZ_URL: `${CLOSED_URL}/listenbrainz`,
  TONEARM_TICKETMASTER_URL: `${CLOSED_URL}/ticketmaster/discovery/v2`,
  TONEARM_GEOCODER_URL: `${CLOSED_URL}/nominatim`,
  TONEARM_ZIPPOPOTAM_URL: `${CLOSED_URL}/zippopotam`,
  TONEARM_IPAPI_URL: `${CLOSED_URL}/ipapi`,
  TONEARM_NEWSAPI_URL: `${CLOSED_URL}/newsapi/v2`,
  TONEARM_NEWS_FEEDS_URL: `${CLOSED_URL}/news-feeds`,
  TONEARM_PLEXTV_URL: `${CLOSED_URL}/plextv`,
  TONEARM_PLEX_APP_URL: `${CLOSED_URL}/plex-app`,
  TONEARM_ACOUSTID_URL: `${CLOSED_URL}/acoustid/v2`,
};
