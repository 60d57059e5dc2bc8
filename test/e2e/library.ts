/** The generated library the browser tests scan: two artists, three albums, three genres. */
export interface FixtureAlbum {
  artist: string;
  album: string;
  genre: string;
  year: string;
  cover?: string;
  tracks: string[];
}

export const LIBRARY: FixtureAlbum[] = [
  { artist: 'Aurora Lane', album: 'Morning Signals', genre: 'Ambient', year: '2019', cover: 'teal', tracks: ['First Light', 'Tidal Hum'] },
  { artist: 'Aurora Lane', album: 'Night Ferry', genre: 'Jazz', year: '2021', tracks: ['Harbor Lights', 'Slow Current'] },
  { artist: 'Basalt Choir', album: 'Granite Hymns', genre: 'Rock', year: '2016', tracks: ['Stone Song', 'Ridge Line'] },
];
