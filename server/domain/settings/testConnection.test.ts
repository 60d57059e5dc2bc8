import { describe, expect, it } from 'vitest';
import { NotConfiguredError, ValidationError } from '../errors.js';
import { SECRET_MASK } from './schema.js';
import { testConnection } from './testConnection.js';

const saved = { url: 'http://slskd.lan:5030', apiKey: 'saved-key' };
const run = (body: { url?: string; apiKey?: string } | undefined, extra: { secretRequired?: boolean; saved?: typeof saved } = {}) =>
  testConnection({ setting: 'integrations.slskd', field: 'apiKey', saved: extra.saved ?? saved, body, notConfigured: 'slskd is not configured', secretRequired: extra.secretRequired });

describe('the secret a connection test sends', () => {
  it('uses the saved URL and key for what the form leaves out or masks, and says when that is the saved connection', () => {
    expect(run(undefined)).toEqual({ url: saved.url, secret: 'saved-key', isSaved: true });
    expect(run({ apiKey: SECRET_MASK })).toEqual({ url: saved.url, secret: 'saved-key', isSaved: true });
    expect(run({ url: 'http://slskd.lan:5030/other', apiKey: SECRET_MASK })).toEqual({ url: 'http://slskd.lan:5030/other', secret: 'saved-key', isSaved: false });
    expect(run({ apiKey: 'typed' })).toEqual({ url: saved.url, secret: 'typed', isSaved: false });
  });

  it('never sends the saved key to another origin', () => {
    const err = (() => {
      try {
        run({ url: 'http://elsewhere.example:5030' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('SECRET_REENTRY_REQUIRED');
    expect(run({ url: 'http://elsewhere.example:5030', apiKey: 'typed' })).toMatchObject({ secret: 'typed', isSaved: false });
  });

  it('answers NOT_CONFIGURED without a URL, or without a secret the service needs', () => {
    const empty = { url: '', apiKey: '' };
    expect(() => run(undefined, { saved: empty })).toThrow(NotConfiguredError);
    expect(() => run({ url: 'http://slskd.lan:5030' }, { saved: empty })).toThrow('slskd is not configured');
    expect(run({ url: 'http://slskd.lan:5030' }, { saved: empty, secretRequired: false })).toEqual({ url: 'http://slskd.lan:5030', secret: '', isSaved: false });
  });
});
