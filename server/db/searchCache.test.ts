import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, type Db } from './connection.js';
import { metadataCacheRepository } from './metadataCache.js';
import { pruneSearchCache } from './searchCache.js';

let db: Db | undefined;
let dir: string | undefined;
afterEach(() => {
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('deletes search documents older than the cut-off and nothing else', () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-search-cache-'));
  db = openDatabase(path.join(dir, 'db.sqlite'));
  const cache = metadataCacheRepository(db);
  cache.put('search', 'artist|old', { count: 0 }, 1000);
  cache.put('search', 'artist|new', { count: 0 }, 5000);
  cache.put('artist', 'old-artist', { id: 'x' }, 1000);
  expect(pruneSearchCache(db, 2000)).toBe(1);
  expect(cache.get('search', 'artist|old')).toBeUndefined();
  expect(cache.get('search', 'artist|new')).toBeDefined();
  expect(cache.get('artist', 'old-artist')).toBeDefined();
});
