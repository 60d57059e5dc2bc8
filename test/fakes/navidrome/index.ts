export { startNavidromeFake } from './server.js';
export type { FakePlaylist, FakeSong, NavidromeFake, NavidromeFakeOptions, NavidromeFakeState } from './server.js';
