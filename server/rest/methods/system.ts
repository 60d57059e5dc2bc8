import { scanRuns } from '../../db/libraryScanRuns.js';
import type { RestCall, RestMethod } from '../context.js';
import { isoTime } from '../../domain/timestamps.js';

/** Extensions we honour in full; nothing is advertised that does not work. */
export const EXTENSIONS = [
  { name: 'apiKeyAuthentication', versions: [1] },
  { name: 'formPost', versions: [1] },
  { name: 'transcodeOffset', versions: [1] },
  { name: 'songLyrics', versions: [1] },
  { name: 'indexBasedQueue', versions: [1] },
  { name: 'getPodcastEpisode', versions: [1] },
];

function scanStatus(call: RestCall) {
  const db = call.rc.app.db;
  const running = scanRuns.running(db) ?? scanRuns.queued(db);
  if (running) return { scanStatus: { scanning: true, count: running.filesSeen } };
  const last = scanRuns.latest(db);
  return {
    scanStatus: {
      scanning: false,
      count: call.rc.reader.count('tracks', 'all', true),
      ...(last?.completedAt && { lastScan: isoTime(last.completedAt) }),
    },
  };
}

export const systemMethods: RestMethod[] = [
  { name: 'ping', handler: () => undefined },
  { name: 'getLicense', handler: () => ({ license: { valid: true } }) },
  { name: 'getOpenSubsonicExtensions', public: true, handler: () => ({ openSubsonicExtensions: EXTENSIONS }) },
  { name: 'getScanStatus', handler: (call) => scanStatus(call) },
  {
    name: 'startScan',
    handler: (call) => {
      const full = call.params.bool('fullScan', false);
      call.rc.app.library.requestScan(call.user, full ? 'full' : 'quick', 'subsonic');
      return { scanStatus: { scanning: true, count: 0 } };
    },
  },
];
