export { startJellyfinFake } from './server.js';
export type { FakeAudio, FakeJellyfinPlaylist, FakeJellyfinUser, JellyfinFake, JellyfinFakeOptions } from './server.js';
