import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startNavidromeFake, type NavidromeFake } from './server.js';

let fake: NavidromeFake;
beforeEach(async () => {
  fake = await startNavidromeFake({ username: 'admin', password: 'secret' });
});
afterEach(() => fake.close());

const token = (salt: string) => createHash('md5').update(`secret${salt}`).digest('hex');

describe('Navidrome fake', () => {
  it("answers ping with Navidrome's envelope when the token is md5(password + salt)", async () => {
    const res = await fetch(`${fake.url}/rest/ping.view?u=admin&t=${token('abc123')}&s=abc123&v=1.16.1&c=test&f=json`);
    expect(await res.json()).toEqual({
      'subsonic-response': { status: 'ok', version: '1.16.1', type: 'navidrome', serverVersion: '0.53.3', openSubsonic: true },
    });
  });

  it('answers error 40 for a wrong token, and accepts plain and enc: passwords', async () => {
    const bad = await (await fetch(`${fake.url}/rest/ping?u=admin&t=${token('x')}&s=y&f=json`)).json();
    expect(bad['subsonic-response']).toMatchObject({ status: 'failed', error: { code: 40, message: 'Wrong username or password' } });
    const plain = await (await fetch(`${fake.url}/rest/getLicense?u=admin&p=secret&f=json`)).json();
    expect(plain['subsonic-response']).toMatchObject({ status: 'ok', license: { valid: true } });
    const enc = await (await fetch(`${fake.url}/rest/ping?u=admin&p=enc:${Buffer.from('secret').toString('hex')}&f=json`)).json();
    expect(enc['subsonic-response'].status).toBe('ok');
  });

  it('answers XML when no format is asked for', async () => {
    const text = await (await fetch(`${fake.url}/rest/ping?u=admin&p=secret`)).text();
    expect(text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><subsonic-response xmlns="http://subsonic.org/restapi" version="1.16.1" type="navidrome" serverVersion="0.53.3" openSubsonic="true" status="ok"></subsonic-response>',
    );
  });
});
