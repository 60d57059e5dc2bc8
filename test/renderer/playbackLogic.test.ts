import { describe, expect, it } from 'vitest';
import {
  SECRET_MASK,
  ago,
  draftFrom,
  draftProblem,
  playbackTestBody,
  plexDraftFrom,
  plexProblem,
  plexSettingsPatch,
  settingsPatch,
  statusLine,
  testText,
  type PlaybackDestination,
} from '../../renderer/src/settings/playbackLogic.js';

const dest = (patch: Partial<PlaybackDestination> = {}): PlaybackDestination => ({
  key: 'navidrome',
  name: 'Navidrome',
  enabled: true,
  configured: true,
  publishFlows: true,
  publishPlaylists: true,
  published: 3,
  pending: 0,
  lastPublishedAt: null,
  lastError: null,
  lastErrorAt: null,
  ...patch,
});

describe('playback destinations card', () => {
  const settings = {
    integrations: { navidrome: { url: 'http://nas:4533', username: 'tonearm', password: SECRET_MASK, enabled: true } },
    playback: { navidrome: { enabled: true, publishFlows: false, publishPlaylists: true, ownerPrefix: 'always', scanTimeoutSeconds: 120 } },
  };

  it('reads the draft from the settings and writes both blocks back, the masked password kept as the mask', () => {
    const draft = draftFrom(settings);
    expect(draft).toEqual({ enabled: true, url: 'http://nas:4533', username: 'tonearm', password: SECRET_MASK, publishFlows: false, publishPlaylists: true, ownerPrefix: 'always' });
    expect(settingsPatch({ ...draft, url: ' http://nas:4533 ' })).toEqual({
      integrations: { navidrome: { url: 'http://nas:4533', username: 'tonearm', password: SECRET_MASK } },
      playback: { navidrome: { enabled: true, publishFlows: false, publishPlaylists: true, ownerPrefix: 'always' } },
    });
    expect(draftFrom({})).toMatchObject({ enabled: false, url: '', password: '', publishFlows: true, ownerPrefix: 'auto' });
  });

  it('never sends the mask as a password to test, and names what is missing before saving', () => {
    const draft = draftFrom(settings);
    expect(playbackTestBody(draft)).toEqual({ url: 'http://nas:4533', username: 'tonearm' });
    expect(playbackTestBody({ ...draft, password: 'typed' })).toEqual({ url: 'http://nas:4533', username: 'tonearm', password: 'typed' });
    expect(draftProblem(draft)).toBeNull();
    expect(draftProblem({ ...draft, url: 'nas:4533' })).toMatch(/http/);
    expect(draftProblem({ ...draft, url: 'not a url' })).toMatch(/Address/);
    expect(draftProblem({ ...draft, password: '' })).toBe('To publish, enter the address, user name and password');
    expect(draftProblem({ ...draft, enabled: false, password: '' })).toBeNull();
  });

  it('says how publishing stands', () => {
    const now = Date.parse('2026-11-24T05:00:00Z');
    expect(statusLine(undefined).text).toBe('Status unknown');
    expect(statusLine(dest({ configured: false })).text).toBe('Not configured');
    expect(statusLine(dest({ enabled: false })).text).toBe('Publishing is off');
    expect(statusLine(dest({ lastPublishedAt: '2026-11-24T04:50:00Z' }), now)).toEqual({ tone: 'success', text: '3 playlists published, last 10 min ago' });
    expect(statusLine(dest({ pending: 2 }))).toEqual({ tone: 'info', text: '3 playlists published; 2 being published' });
    expect(statusLine(dest({ pending: 1, lastError: 'Navidrome at http://nas:4533/rest/createPlaylist: connection refused' }))).toEqual({
      tone: 'warn',
      text: '1 waiting to be published: Navidrome at http://nas:4533/rest/createPlaylist: connection refused',
    });
    expect(statusLine(dest({ published: 1 }), now).text).toBe('1 playlist published');
    expect(ago(now - 3 * 3600_000, now)).toBe('3 h ago');
  });

  it('reads a test answer', () => {
    expect(testText({ success: true, message: 'Connected to navidrome 0.53.3', authentication: 'token', canScan: true, playlists: 2 })).toEqual({
      tone: 'success',
      text: 'Connected to navidrome 0.53.3.',
    });
    const supy = testText({ success: true, message: 'Connected to a Subsonic server 1.10.2', authentication: 'password', canScan: false, playlists: 0 });
    expect(supy.tone).toBe('warn');
    expect(supy.text).toContain('does not take tokens');
  });
});

describe('the Plex destination card', () => {
  it('reads what to publish and which server and library are chosen, and saves only playback.plex', () => {
    const read = plexDraftFrom({
      integrations: { plex: { url: 'http://den:32400', serverName: 'Den', librarySectionId: '3' } },
      playback: { plex: { enabled: true, publishFlows: false, ownerPrefix: 'never' } },
    });
    expect(read).toEqual({ draft: { enabled: true, publishFlows: false, publishPlaylists: true, ownerPrefix: 'never' }, server: 'Den', library: '3' });
    expect(plexSettingsPatch(read.draft)).toEqual({ playback: { plex: { enabled: true, publishFlows: false, publishPlaylists: true, ownerPrefix: 'never' } } });
    expect(plexDraftFrom({}).draft).toEqual({ enabled: false, publishFlows: true, publishPlaylists: true, ownerPrefix: 'auto' });
  });

  it('asks for a server and a music library before publishing is switched on', () => {
    const on = { enabled: true, publishFlows: true, publishPlaylists: true, ownerPrefix: 'auto' as const };
    expect(plexProblem(on, { server: '', library: '' })).toMatch(/choose a server/);
    expect(plexProblem(on, { server: 'Den', library: '' })).toMatch(/music library/);
    expect(plexProblem(on, { server: 'Den', library: '3' })).toBeNull();
    expect(plexProblem({ ...on, enabled: false }, { server: '', library: '' })).toBeNull();
  });
});

describe('the Jellyfin card', () => {
  it('reads playback.jellyfin, checks it and writes it back in one block', async () => {
    const { jellyfinDraftFrom, jellyfinProblem, jellyfinSettingsPatch, jellyfinTestBody } = await import('../../renderer/src/settings/playbackLogic.js');
    const draft = jellyfinDraftFrom({ playback: { jellyfin: { url: 'http://nas:8096', apiKey: SECRET_MASK, enabled: true, userId: 'abc', ownerPrefix: 'never', publishFlows: false } } });
    expect(draft).toEqual({ enabled: true, url: 'http://nas:8096', apiKey: SECRET_MASK, userId: 'abc', publishFlows: false, publishPlaylists: true, ownerPrefix: 'never' });
    expect(jellyfinDraftFrom({})).toMatchObject({ enabled: false, url: '', apiKey: '', userId: '', ownerPrefix: 'auto' });
    expect(jellyfinProblem(draft)).toBeNull();
    expect(jellyfinProblem({ ...draft, url: 'nas:8096' })).toMatch(/Address/);
    expect(jellyfinProblem({ ...draft, apiKey: '' })).toMatch(/API key/);
    expect(jellyfinProblem({ ...draft, apiKey: 'a b' })).toMatch(/no spaces/);
    expect(jellyfinProblem({ ...draft, enabled: false, apiKey: '' })).toBeNull();
    expect(jellyfinSettingsPatch({ ...draft, url: ' http://nas:8096 ' })).toEqual({
      playback: { jellyfin: { enabled: true, url: 'http://nas:8096', apiKey: SECRET_MASK, userId: 'abc', publishFlows: false, publishPlaylists: true, ownerPrefix: 'never' } },
    });
    // The mask means "the saved key": not sent with a test.
    expect(jellyfinTestBody(draft)).toEqual({ url: 'http://nas:8096' });
    expect(jellyfinTestBody({ ...draft, apiKey: 'new-key' })).toEqual({ url: 'http://nas:8096', apiKey: 'new-key' });
  });
});
