import { IntegrationError } from '../../integrations/errors.js';

/** The upstreams of discovery by their client's service id, as a person names them. */
const SERVICE_NAMES: Record<string, string> = {
  lastfm: 'Last.fm',
  listenbrainz: 'ListenBrainz',
  koito: 'Koito',
  deezer: 'Deezer',
  ticketmaster: 'Ticketmaster',
};

/**
 * Why an upstream call failed, in words a person can act on and without the request's address:
 * "ListenBrainz could not be reached (host not found)". Shown on the Discover screen beside
 * "the last update did not finish" (the server log keeps the full message).
 */
export function failureText(err: unknown, fallbackName = 'The service'): string {
  if (!(err instanceof IntegrationError)) return err instanceof Error ? err.message : String(err);
  const name = SERVICE_NAMES[err.service] ?? fallbackName;
  // The clients' messages end with the cause after the address ("ListenBrainz at https://…: host not found").
  const cause = err.message.includes(': ') ? err.message.slice(err.message.lastIndexOf(': ') + 2) : err.message;
  const code = (err.details as { code?: unknown } | undefined)?.code;
  switch (err.kind) {
    case 'unreachable':
      return `${name} could not be reached (${cause}${typeof code === 'string' && !cause.includes(code) ? `, ${code}` : ''})`;
    case 'timeout':
      return `${name} did not answer in time`;
    case 'unauthorized':
      return `${name} refused the API key`;
    case 'rate_limited':
      return `${name} is limiting requests for now`;
    case 'server_error':
      return `${name} had an internal error${err.status ? ` (${err.status})` : ''}`;
    case 'circuit_open':
      return `${name} is paused after repeated failures`;
    case 'refused':
      return `${name}'s address may not be connected to (${cause})`;
    default:
      return `${name}: ${cause}`;
  }
}
