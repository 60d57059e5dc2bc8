import type { Db } from './connection.js';

export interface RadioStationRow {
  id: number;
  name: string;
  stream_url: string;
  home_page_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface RadioStationFields {
  name: string;
  streamUrl: string;
  homePageUrl: string | null;
}

/** Internet radio stations (one list for the whole server). */
export function radioStationsRepository(db: Db) {
  const s = {
    all: db.prepare('SELECT * FROM internet_radio_stations ORDER BY name COLLATE NOCASE, id'),
    byId: db.prepare('SELECT * FROM internet_radio_stations WHERE id = ?'),
    insert: db.prepare(
      'INSERT INTO internet_radio_stations (name, stream_url, home_page_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    update: db.prepare('UPDATE internet_radio_stations SET name = ?, stream_url = ?, home_page_url = ?, updated_at = ? WHERE id = ?'),
    remove: db.prepare('DELETE FROM internet_radio_stations WHERE id = ?'),
  };
  return {
    all: () => s.all.all() as RadioStationRow[],
    byId: (id: number) => s.byId.get(id) as RadioStationRow | undefined,
    create: (f: RadioStationFields, now: number) => Number(s.insert.run(f.name, f.streamUrl, f.homePageUrl, now, now).lastInsertRowid),
    update: (id: number, f: RadioStationFields, now: number) => s.update.run(f.name, f.streamUrl, f.homePageUrl, now, id).changes > 0,
    remove: (id: number) => s.remove.run(id).changes > 0,
  };
}

export type RadioStationsRepository = ReturnType<typeof radioStationsRepository>;
