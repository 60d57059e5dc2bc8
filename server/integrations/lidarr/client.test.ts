import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLidarrFake, type LidarrFake } from '../../../test/fakes/lidarr/index.js';
import { IntegrationError } from '../errors.js';
import { LidarrClient } from './client.js';

const apiKey = 'test-key';
let fake: LidarrFake;
let client: LidarrClient;

beforeEach(async () => {
  fake = await startLidarrFake({ apiKey, commandStartMs: 5, commandRunMs: 5 });
  client = new LidarrClient({ baseUrl: fake.url, apiKey, retryDelayMs: 10 });
});
afterEach(() => fake.close());

async function failure(call: Promise<unknown>): Promise<IntegrationError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

function catalogueArtist(name: string) {
  const entry = fake.state.catalogue.searchArtists(name)[0];
  if (!entry) throw new Error(`no ${name} in the catalogue`);
  return entry;
}

async function addVelvetHarbors() {
  const entry = catalogueArtist('Velvet Harbors');
  return client.addArtist({
    artistName: entry.artistName,
    foreignArtistId: entry.foreignArtistId,
    rootFolderPath: '/music',
    qualityProfileId: 1,
    metadataProfileId: 1,
    monitored: true,
    addOptions: { monitor: 'all', searchForMissingAlbums: false },
  });
}

describe('LidarrClient against the fake', () => {
  it('tests the connection and reports version and instance name', async () => {
    expect(await client.testConnection()).toEqual({ ok: true, version: '2.14.5.4836', instanceName: 'Lidarr' });
    expect((await client.systemStatus()).appName).toBe('Lidarr');
  });

  it('reads root folders, quality and metadata profiles, and creates and lists tags', async () => {
    expect((await client.rootFolders()).map((f) => f.path)).toEqual(['/music']);
    expect((await client.qualityProfiles()).map((p) => p.name)).toEqual(['Any', 'Lossless', 'Standard']);
    expect((await client.metadataProfiles()).map((p) => p.name)).toEqual(['Standard', 'None']);
    const tag = await client.createTag('tonearm');
    expect(tag).toEqual({ id: 1, label: 'tonearm' });
    expect(await client.tags()).toEqual([{ id: 1, label: 'tonearm' }]);
  });

  it('looks up an artist by MBID, adds it (201) and reads it back by id and by MBID', async () => {
    const entry = catalogueArtist('Velvet Harbors');
    const lookup = await client.lookupArtistByMbId(entry.foreignArtistId);
    expect(lookup).toMatchObject({ artistName: 'The Velvet Harbors', foreignArtistId: entry.foreignArtistId });
    expect(lookup?.id).toBeUndefined();

    const added = await addVelvetHarbors();
    expect(added).toMatchObject({ id: 1, artistName: 'The Velvet Harbors', path: '/music/The Velvet Harbors', monitored: true });
    expect(added.statistics).toMatchObject({ albumCount: 3, trackCount: 13, trackFileCount: 0 });

    expect((await client.artist(added.id))?.foreignArtistId).toBe(entry.foreignArtistId);
    expect((await client.artistByMbId(entry.foreignArtistId))?.id).toBe(added.id);
    expect(await client.artistByMbId('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await client.artist(999)).toBeNull();
    expect((await client.artists()).map((a) => a.id)).toEqual([added.id]);
    expect(fake.state.countOf('GET /artist')).toBe(3); // twice filtered by MBID, once the whole list
  });

  it('searches artists and albums by text', async () => {
    expect((await client.lookupArtists('кино')).map((a) => a.artistName)).toEqual(['Кино']);
    const albums = await client.lookupAlbums('教育');
    expect(albums.map((a) => [a.title, a.artist?.artistName])).toEqual([['教育', '東京事変']]);
  });

  it('updates an artist with the full resource and deletes it with its files', async () => {
    const added = await addVelvetHarbors();
    const updated = await client.updateArtist({ ...added, monitored: false, tags: [] });
    expect(updated.monitored).toBe(false);
    await client.deleteArtist(added.id, { deleteFiles: true, addImportListExclusion: false });
    expect(await client.artist(added.id)).toBeNull();
    expect(await client.albums()).toEqual([]);
  });

  it('lists albums by artist and by foreignAlbumId, updates monitoring, and deletes one', async () => {
    const artist = await addVelvetHarbors();
    const albums = await client.albumsByArtist(artist.id);
    expect(albums.map((a) => a.title)).toEqual(['Lanterns', 'Glass Rivers', 'Night Ferry']);
    const [first] = albums;
    const byMbid = await client.albumByForeignId(first!.foreignAlbumId);
    expect(byMbid).toMatchObject({ id: first!.id, artist: { artistName: 'The Velvet Harbors' } });
    expect(await client.albumByForeignId('00000000-0000-4000-8000-000000000000')).toBeNull();

    expect((await client.updateAlbum({ ...first!, monitored: false })).monitored).toBe(false);
    await client.setAlbumsMonitored([first!.id], true);
    expect((await client.album(first!.id))?.monitored).toBe(true);

    await client.deleteAlbum(first!.id, { deleteFiles: true });
    expect(await client.album(first!.id)).toBeNull();
    expect((await client.albums({ artistId: artist.id })).length).toBe(2);
  });

  it('adds a single album of an artist not yet in the library', async () => {
    const entry = catalogueArtist('Ólafur');
    const target = entry.albums[1]!;
    const lookup = await client.lookupAlbumByMbId(target.foreignAlbumId);
    expect(lookup).toMatchObject({ title: 'Re:member', artist: { artistName: 'Ólafur Arnalds' } });
    const album = await client.addAlbum({
      title: target.title,
      foreignAlbumId: target.foreignAlbumId,
      monitored: true,
      anyReleaseOk: true,
      artist: { ...lookup!.artist!, foreignArtistId: entry.foreignArtistId, qualityProfileId: 1, metadataProfileId: 1, rootFolderPath: '/music' },
      addOptions: { searchForNewAlbum: false },
    });
    expect(album).toMatchObject({ title: 'Re:member', monitored: true });
    const all = await client.albumsByArtist(album.artistId!);
    expect(all.map((a) => [a.title, a.monitored])).toEqual([
      ['Ljósið', false],
      ['Re:member', true],
    ]);
  });

  it('reads tracks and track files by album and by artist', async () => {
    const artist = await addVelvetHarbors();
    const [lanterns] = await client.albumsByArtist(artist.id);
    const tracks = await client.tracks({ albumId: lanterns!.id });
    expect(tracks.map((t) => [t.trackNumber, t.title, t.hasFile])).toEqual([
      ['1', 'Harbor Lights', false],
      ['2', 'Paper Boats', false],
      ['3', 'Lanterns', false],
      ['4', 'Low Tide', false],
    ]);
    expect((await client.tracks({ artistId: artist.id })).length).toBe(13);
    expect(await client.trackFiles({ albumId: lanterns!.id })).toEqual([]);

    fake.state.activity.grab(fake.state.library.albums.get(lanterns!.id)!);
    await fake.waitForIdle();
    const files = await client.trackFiles({ albumId: lanterns!.id });
    expect(files.map((f) => f.path)).toEqual([
      '/music/The Velvet Harbors/Lanterns (2014)/01 - Harbor Lights.flac',
      '/music/The Velvet Harbors/Lanterns (2014)/02 - Paper Boats.flac',
      '/music/The Velvet Harbors/Lanterns (2014)/03 - Lanterns.flac',
      '/music/The Velvet Harbors/Lanterns (2014)/04 - Low Tide.flac',
    ]);
    expect((await client.trackFiles({ artistId: artist.id })).length).toBe(4);
    expect((await client.tracks({ trackIds: [tracks[0]!.id] }))[0]?.hasFile).toBe(true);
  });

  it('posts commands (201) and sees them progress to completed', async () => {
    const artist = await addVelvetHarbors();
    const albums = await client.albumsByArtist(artist.id);
    const search = await client.runCommand({ name: 'AlbumSearch', albumIds: [albums[0]!.id] });
    expect(search).toMatchObject({ name: 'AlbumSearch', status: 'queued' });
    const refresh = await client.runCommand({ name: 'RefreshArtist', artistId: artist.id });
    await client.runCommand({ name: 'ArtistSearch', artistId: artist.id });
    await fake.waitForIdle();
    expect((await client.command(search.id)).status).toBe('completed');
    expect((await client.command(refresh.id)).result).toBe('successful');
    expect((await client.commands()).map((c) => c.name)).toEqual(['AlbumSearch', 'RefreshArtist', 'ArtistSearch']);
  });

  it('walks every page of queue, history and wanted/missing', async () => {
    const artist = await addVelvetHarbors();
    const [album] = await client.albumsByArtist(artist.id);
    const record = fake.state.library.albums.get(album!.id)!;
    fake.state.activity.seedQueue(23, record);
    fake.state.activity.seedHistory(45, record);

    const first = await client.queuePage({ pageSize: 10 });
    expect([first.page, first.pageSize, first.totalRecords, first.records.length]).toEqual([1, 10, 23, 10]);
    expect((await client.allQueue({ pageSize: 10 })).length).toBe(23);
    expect(fake.state.countOf('GET /queue')).toBe(4);

    const history = await client.allHistory({ pageSize: 20 });
    expect(history.length).toBe(45);
    expect(history[0]!.date > history[44]!.date).toBe(true); // newest first
    expect((await client.allHistory({ pageSize: 20 }, { maxRecords: 30 })).length).toBe(30);

    const missing = [];
    for await (const a of client.wantedMissing({ pageSize: 2 })) missing.push(a.title);
    expect(missing.sort()).toEqual(['Glass Rivers', 'Lanterns', 'Night Ferry']);
  });
});

describe('LidarrClient errors from the fake', () => {
  it('maps a wrong API key to unauthorized with the cause in words', async () => {
    const wrong = new LidarrClient({ baseUrl: fake.url, apiKey: 'nope' });
    const err = await failure(wrong.testConnection());
    expect([err.kind, err.status, err.message]).toEqual(['unauthorized', 401, 'Lidarr rejected the API key (401)']);
  });

  it('maps an unfiltered /track to bad_request with Lidarr message', async () => {
    // The client's types forbid it; a caller bypassing them still gets a typed error.
    const err = await failure(client.tracks({} as { albumId: number }));
    expect(err.kind).toBe('bad_request');
    expect(err.message).toContain('One of artistId, albumId, albumReleaseId or trackIds must be provided');
    const files = await failure(client.trackFiles({} as { albumId: number }));
    expect(files.kind).toBe('bad_request');
  });

  it('maps a duplicate artist to bad_request with the validation array in details', async () => {
    const added = await addVelvetHarbors();
    const err = await failure(addVelvetHarbors());
    expect([err.kind, err.status]).toEqual(['bad_request', 400]);
    expect(err.message).toBe('Lidarr refused POST /artist: This artist has already been added');
    expect(err.details).toEqual([
      expect.objectContaining({
        propertyName: 'ForeignArtistId',
        errorMessage: 'This artist has already been added',
        attemptedValue: added.foreignArtistId,
        severity: 'error',
        errorCode: 'ArtistExistsValidator',
      }),
    ]);
  });

  it('maps an unknown command id to not_found', async () => {
    expect((await failure(client.command(42))).kind).toBe('not_found');
  });
});
