import { describe, expect, it } from 'vitest';
import { lastFmAuthPageUrl, lastFmSignature } from './scrobbler.js';

describe('Last.fm signatures', () => {
  it('sorts the parameters by name, joins names and values, appends the secret, MD5 of the UTF-8 text', () => {
    // Expected value computed outside this code base: md5("api_keyk123artistSigur Rósmethodtrack.scrobbleskSESSIONtimestamp1700000000trackHoppípollas3cret").
    const params = { method: 'track.scrobble', track: 'Hoppípolla', artist: 'Sigur Rós', timestamp: '1700000000', sk: 'SESSION', api_key: 'k123' };
    expect(lastFmSignature(params, 's3cret')).toBe('9f484ab633e9b8ef3f2fa707dfab8cbd');
  });

  it('leaves format and callback out of the signature', () => {
    const params = { method: 'track.scrobble', track: 'Hoppípolla', artist: 'Sigur Rós', timestamp: '1700000000', sk: 'SESSION', api_key: 'k123' };
    expect(lastFmSignature({ ...params, format: 'json', callback: 'x' }, 's3cret')).toBe(lastFmSignature(params, 's3cret'));
  });

  it('builds the authorization page address with the key and our callback', () => {
    const url = new URL(lastFmAuthPageUrl('https://www.last.fm/api/auth', 'k123', 'https://music.example/api/scrobbling/lastfm/link/callback?state=abc'));
    expect(url.searchParams.get('api_key')).toBe('k123');
    expect(url.searchParams.get('cb')).toBe('https://music.example/api/scrobbling/lastfm/link/callback?state=abc');
  });
});
