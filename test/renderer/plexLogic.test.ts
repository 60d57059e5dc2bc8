import { describe, expect, it } from 'vitest';
import { bestConnection, connectionLabel, linkDescription, syncDescription, waitForPin, type PinCheck, type PlexConnection } from '../../renderer/src/plex/logic.js';

/** A clock the waits move forward instead of sleeping. */
function fakeTime(start = 1_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (sleeps.push(ms), (t += ms)), sleeps };
}

describe('waitForPin', () => {
  it('polls every 2 seconds until the PIN is approved and names the account', async () => {
    const time = fakeTime();
    const answers: PinCheck[] = [
      { pending: true, linked: false, expired: false },
      { pending: true, linked: false, expired: false },
      { pending: false, linked: true, expired: false, plexUsername: 'owner' },
    ];
    let calls = 0;
    const outcome = await waitForPin({ check: async () => answers[calls++]!, expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep });
    expect(outcome).toEqual({ kind: 'linked', name: 'owner' });
    expect(calls).toBe(3);
    expect(time.sleeps).toEqual([2000, 2000]);
  });

  it('stops when the server says the PIN expired, or when its time is up without asking again', async () => {
    const time = fakeTime();
    expect(await waitForPin({ check: async () => ({ pending: false, linked: false, expired: true, message: 'gone' }), expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep })).toEqual({ kind: 'expired', message: 'gone' });
    let calls = 0;
    const outcome = await waitForPin({
      check: async () => (calls++, { pending: true, linked: false, expired: false }),
      expiresAt: time.now() + 5000,
      now: time.now,
      sleep: time.sleep,
    });
    expect(outcome.kind).toBe('expired');
    expect(calls).toBe(3);
  });

  it('rides out a failed poll, ends on a 404 and when cancelled; the user name of a user link counts too', async () => {
    const time = fakeTime();
    let calls = 0;
    const flaky = async (): Promise<PinCheck> => {
      calls++;
      if (calls === 1) throw Object.assign(new Error('502'), { status: 502 });
      return { pending: false, linked: true, expired: false, username: 'ann' };
    };
    expect(await waitForPin({ check: flaky, expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep })).toEqual({ kind: 'linked', name: 'ann' });
    const gone = async (): Promise<PinCheck> => {
      throw Object.assign(new Error('404'), { status: 404 });
    };
    expect((await waitForPin({ check: gone, expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep })).kind).toBe('expired');
    const controller = new AbortController();
    controller.abort();
    expect(await waitForPin({ check: flaky, expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep, signal: controller.signal })).toEqual({ kind: 'cancelled' });
  });

  it('never polls faster than once a second', async () => {
    const time = fakeTime();
    let calls = 0;
    await waitForPin({ check: async () => ({ pending: calls++ < 1, linked: calls > 1, expired: false }), expiresAt: time.now() + 60_000, now: time.now, sleep: time.sleep, intervalMs: 10 });
    expect(time.sleeps).toEqual([1000]);
  });
});

describe('connections and descriptions', () => {
  const c = (uri: string, local: boolean, relay: boolean): PlexConnection => ({ uri, protocol: 'https', address: null, port: 32400, local, relay });

  it('prefers a local direct connection, then a remote direct one, then the relay', () => {
    expect(bestConnection({ connections: [c('relay', false, true), c('remote', false, false), c('lan', true, false)] })!.uri).toBe('lan');
    expect(bestConnection({ connections: [c('relay', false, true), c('remote', false, false)] })!.uri).toBe('remote');
    expect(bestConnection({ connections: [] })).toBeNull();
    expect(connectionLabel(c('https://10.0.0.2:32400', true, false))).toBe('https://10.0.0.2:32400 (local network)');
  });

  it('describes links and syncs in words', () => {
    expect(linkDescription({ linked: false, kind: null, username: null, title: null, linkedAt: null, lastError: null })).toBe('Not linked');
    expect(linkDescription({ linked: true, kind: 'oauth', username: 'ann_plays', title: 'Ann', linkedAt: 1, lastError: null })).toBe('Linked to the Plex account Ann (ann_plays)');
    expect(linkDescription({ linked: true, kind: 'managed', username: 'Kid', title: 'Kid', linkedAt: 1, lastError: null })).toBe('Linked to the Plex Home user Kid, set up by an administrator');
    expect(syncDescription(null)).toBe('Not synced yet.');
    expect(syncDescription({ tracks: 4, matched: 3, syncedAt: null })).toBe('3 of 4 Plex tracks match files in this library (1 not found here).');
  });
});
