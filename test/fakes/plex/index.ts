export { startPlexTvFake, type FakeHomeUser, type FakePlexAccount, type FakePlexServerResource, type PlexTvFake } from './plexTv.js';
export { OWNER, startPlexServerFake, type FakePlexPlaylist, type FakePlexSection, type FakePlexTrack, type PlexServerFake } from './mediaServer.js';
