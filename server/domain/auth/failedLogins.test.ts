import { describe, expect, it } from 'vitest';
import { FailedLogins, LoginThrottledError } from './failedLogins.js';

const clock = () => {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
};
const slowFail = () => new Promise<null>((resolve) => setTimeout(() => resolve(null), 20));

describe('FailedLogins', () => {
  it('counts checks still running, so parallel guesses cannot pass the per-client limit together', async () => {
    const limiter = new FailedLogins({ clock: clock(), maxPerClient: 10, windowMs: 900_000 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => limiter.attempt({ client: '10.0.0.1', account: `n${i}` }, slowFail)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof LoginThrottledError)).toHaveLength(20);
  });

  it('lets only one check at a time through for an account past its free failures', async () => {
    const c = clock();
    const limiter = new FailedLogins({ clock: c, maxPerClient: 1000, windowMs: 900_000 });
    for (let i = 0; i < 5; i++) await limiter.attempt({ client: `10.0.1.${i}`, account: 'admin' }, () => null);
    c.t += 1000;
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => limiter.attempt({ client: `10.0.2.${i}`, account: 'Admin ' }, slowFail)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('neither counts nor clears when the check throws, and treats ::ffff: addresses as IPv4', async () => {
    const limiter = new FailedLogins({ clock: clock(), maxPerClient: 2, windowMs: 900_000 });
    for (let i = 0; i < 5; i++)
      await expect(limiter.attempt({ client: '10.0.0.9' }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await limiter.attempt({ client: '::ffff:10.0.0.9' }, () => null);
    await limiter.attempt({ client: '10.0.0.9' }, () => null);
    await expect(limiter.attempt({ client: '::ffff:10.0.0.9' }, () => 'ok')).rejects.toBeInstanceOf(LoginThrottledError);
  });
});
