import { describe, expect, it } from 'vitest';
import { createLogger, redact } from './log.js';

describe('logging', () => {
  it('writes one JSON line per entry with the bound fields', () => {
    const lines: string[] = [];
    const log = createLogger('info', { service: 'tonearm' }, (l) => lines.push(l)).child({ requestId: 'r1' });
    log.debug('hidden');
    log.info('hello', { status: 200 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'hello', service: 'tonearm', requestId: 'r1', status: 200 });
  });

  it('never writes passwords, tokens or keys, in fields or in URLs', () => {
    const lines: string[] = [];
    const log = createLogger('debug', {}, (l) => lines.push(l));
    log.info('login', {
      password: 'hunter22',
      body: { apiKey: 'k1', nested: { authorization: 'Bearer abc' } },
      url: '/api/library/stream/1?st=streamtok&api_key=key123&x=1',
      rest: '/rest/ping?u=a&p=plainpw&t=tok&s=salt',
    });
    const line = lines[0]!;
    for (const secret of ['hunter22', 'k1', 'Bearer abc', 'streamtok', 'key123', 'plainpw', '=tok', 'salt'])
      expect(line).not.toContain(secret);
    expect(line).toContain('x=1');
  });

  it('keeps error names and messages', () => {
    expect(redact(new Error('boom'))).toMatchObject({ name: 'Error', message: 'boom' });
  });
});
