-- Internet radio stations, shared by every user; administrators edit them (/rest).
CREATE TABLE internet_radio_stations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  stream_url TEXT NOT NULL,
  home_page_url TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX internet_radio_stations_by_name ON internet_radio_stations(name COLLATE NOCASE, id);
