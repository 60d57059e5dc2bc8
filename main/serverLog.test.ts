import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingLogFile } from './serverLog.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'tonearm-log-'));
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

const read = (name: string) => readFileSync(path.join(directory, name), 'utf8');

describe('RotatingLogFile', () => {
  it('moves the live file aside when the next line would pass the size limit', () => {
    const log = new RotatingLogFile({ directory, maxBytes: 30, maxFiles: 3 });
    // "line N\n" is 7 bytes, so four lines fit in 30 bytes.
    for (let index = 1; index <= 9; index++) log.append(`line ${index}`);

    expect(read('server.log')).toBe('line 9\n');
    expect(read('server.1.log')).toBe('line 5\nline 6\nline 7\nline 8\n');
    expect(read('server.2.log')).toBe('line 1\nline 2\nline 3\nline 4\n');
  });

  it('drops the oldest file once the file count is reached', () => {
    const log = new RotatingLogFile({ directory, maxBytes: 30, maxFiles: 3 });
    for (let index = 1; index <= 13; index++) log.append(`line ${index}`);

    expect(log.files().map((file) => path.basename(file))).toEqual(['server.log', 'server.1.log', 'server.2.log']);
    // Two-digit lines are 8 bytes, so line 12 no longer fits beside 9, 10 and 11.
    expect(read('server.log')).toBe('line 12\nline 13\n');
    expect(read('server.1.log')).toBe('line 9\nline 10\nline 11\n');
    expect(read('server.2.log')).toBe('line 5\nline 6\nline 7\nline 8\n');
  });

  it('counts what an earlier run already wrote to the live file', () => {
    writeFileSync(path.join(directory, 'server.log'), 'x'.repeat(25));
    const log = new RotatingLogFile({ directory, maxBytes: 30, maxFiles: 2 });

    log.append('line 1');

    expect(read('server.log')).toBe('line 1\n');
    expect(read('server.1.log')).toBe('x'.repeat(25));
  });

  it('writes a line longer than the limit into a file of its own', () => {
    const log = new RotatingLogFile({ directory, maxBytes: 10, maxFiles: 2 });
    log.append('short');
    log.append('a line much longer than ten bytes');

    expect(read('server.log')).toBe('a line much longer than ten bytes\n');
    expect(read('server.1.log')).toBe('short\n');
  });

  it('keeps 5 MB in each of 3 files by default', () => {
    const log = new RotatingLogFile({ directory });
    log.append('hello');
    expect(log.path).toBe(path.join(directory, 'server.log'));
    expect(log.files()).toEqual([path.join(directory, 'server.log')]);
  });
});
