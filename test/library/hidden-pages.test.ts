import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/connection.js';
import { openDatabase } from '../../server/db/connection.js';
import { LibraryReader } from '../../server/db/libraryReads.js';

/**
 * Canonical pages when a flow keeps some tracks out of the library (flow_hidden): every page, from
 * either end, in both directions, with filters, is exactly the page of the visible rows, and the
 * totals leave the hidden rows out. Deep pages are found without probing every skipped row.
 */

let dir: string;
let db: Db;
let reader: LibraryReader;
const N = 3000;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tonearm-hidden-pages-'));
  db = openDatabase(path.join(dir, 'db.sqlite'));
  const ins = db.prepare(
    `INSERT INTO library_tracks (identity_key, title, sort_name, artist_name, artist_sort_name, created_at, updated_at, available, sources, latest_media_at)
     VALUES (?, ?, ?, 'a', 'a', 0, 0, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      // Many equal names: the id breaks ties.
      const name = (((i * 2654435761) >>> 0) % 400).toString(36);
      ins.run(`k${i}`, name, name, i % 7 === 0 ? 0 : 1, i % 5 === 0 ? 2 : 1, (i * 7919) % 1000);
    }
  })();
  // Scattered hidden rows and a run of them.
  db.prepare('UPDATE library_tracks SET flow_hidden = 1 WHERE id % 37 = 0 OR id BETWEEN 1200 AND 1260').run();
  reader = new LibraryReader(db);
});

afterAll(() => {
  db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('canonical pages with hidden tracks', () => {
  const cases = [
    { sort: 'name', order: 'sort_name ASC, id ASC', filter: '', q: {} },
    { sort: 'name', order: 'sort_name DESC, id DESC', filter: '', q: { direction: 'desc' as const } },
    { sort: 'newest', order: 'latest_media_at DESC, id DESC', filter: '', q: {} },
    { sort: 'name', order: 'sort_name ASC, id ASC', filter: 'AND available = 1', q: { availableOnly: true } },
    { sort: 'newest', order: 'latest_media_at DESC, id DESC', filter: 'AND (sources & 2) != 0', q: { source: 'lidarr' as const } },
  ];
  for (const c of cases) {
    it(`pages by ${c.sort} ${c.order.includes('DESC') ? 'descending' : 'ascending'} ${c.filter || 'unfiltered'}`, () => {
      const visible = db.prepare(`SELECT id FROM library_tracks WHERE flow_hidden = 0 ${c.filter} ORDER BY ${c.order}`).pluck().all() as number[];
      const hidden = db.prepare(`SELECT COUNT(*) FROM library_tracks WHERE flow_hidden = 1 ${c.filter}`).pluck().get() as number;
      expect(hidden).toBeGreaterThan(20);
      const pageSize = 40;
      const pages = Math.ceil(visible.length / pageSize);
      for (const page of [1, 2, 3, 17, Math.floor(pages / 2), Math.floor(pages / 2) + 1, pages - 2, pages - 1, pages]) {
        const got = reader.canonicalPage({ kind: 'tracks', page, pageSize, sort: c.sort, ...c.q });
        expect(got.total).toBe(visible.length);
        expect((got.rows as { id: number }[]).map((r) => r.id)).toEqual(visible.slice((page - 1) * pageSize, page * pageSize));
      }
    });
  }
});
