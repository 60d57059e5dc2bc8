export { startNavidromeFake } from './server.js';
export type { NavidromeFake, NavidromeFakeOptions, NavidromeFakeState } from './server.js';
