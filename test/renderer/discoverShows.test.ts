import { click, container, find, one, setOrigin, text, type as typeInto, waitFor, type El } from './dom.js';
import { h, render, type FunctionComponent } from 'preact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeoFake, type GeoFake } from '../fakes/geo/index.js';
import { startTicketmasterFake, type TicketmasterFake } from '../fakes/ticketmaster/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The Discover screen's nearby shows against a real server with the Ticketmaster and geocoder fakes: the typed place, library artists first. */

const renderer = (p: string) => import(/* @vite-ignore */ `../../renderer/src/${p}`);

let server: TestServer;
let tm: TicketmasterFake;
let geo: GeoFake;
let root: El;
const day = 86_400_000;

beforeAll(async () => {
  tm = await startTicketmasterFake();
  const leeds = { postcode: 'LS1 1UR', countryCode: 'GB', country: 'United Kingdom', city: 'Leeds', state: 'England', lat: 53.7997, lon: -1.5492 };
  geo = await startGeoFake([{ postcode: '11211', countryCode: 'US', country: 'United States', city: 'Brooklyn', state: 'New York', stateCode: 'NY', lat: 40.7128, lon: -73.9533 }, leeds]);
  // The server's own address places it in Leeds.
  geo.ips.set(geo.selfIp, leeds);
  server = await startTestServer({
    env: { TONEARM_TICKETMASTER_URL: tm.url, TONEARM_GEOCODER_URL: geo.nominatimUrl, TONEARM_ZIPPOPOTAM_URL: geo.zippopotamUrl, TONEARM_IPAPI_URL: geo.ipapiUrl, TONEARM_UPSTREAM_SPACING_MS: '0' },
  });
  server.ctx.settings.update({ integrations: { ticketmaster: { apiKey: tm.apiKey } } });
  const now = Date.now();
  tm.venues.set('v1', { id: 'v1', name: 'Warehouse', city: 'Brooklyn', stateCode: 'NY', countryCode: 'US', postalCode: '11211', lat: 40.714, lon: -73.96 });
  tm.venues.set('v3', { id: 'v3', name: 'Brudenell', city: 'Leeds', countryCode: 'GB', postalCode: 'LS6', lat: 53.81, lon: -1.57 });
  tm.attractions.set('a1', { id: 'a1', name: 'Strangers Nearby' });
  tm.attractions.set('a2', { id: 'a2', name: 'Velvet Static' });
  tm.attractions.set('a4', { id: 'a4', name: 'Leeds Locals' });
  tm.events.push(
    { id: 'e1', name: 'Strangers Nearby live', start: new Date(now + 2 * day), venueId: 'v1', attractionIds: ['a1'] },
    { id: 'e3', name: 'Velvet Static with support', start: new Date(now + 10 * day), venueId: 'v1', attractionIds: ['a1', 'a2'] },
    { id: 'e4', name: 'Leeds Locals', start: new Date(now + 5 * day), venueId: 'v3', attractionIds: ['a4'] },
  );
  server.ctx.db.prepare("INSERT INTO library_artists (identity_key, name, sort_name, created_at, updated_at) VALUES ('name:velvet static', 'Velvet Static', 'velvet static', 0, 0)").run();
  setOrigin(server.url, '/discover/shows');
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username: server.admin.username, password: server.admin.password } })).json()) as { token: string; user: unknown };
  const { session } = (await renderer('session.ts')) as { session: { set(v: unknown): void } };
  session.set({ token: login.token, user: login.user, notice: null });
});

afterAll(async () => {
  if (root) render(null, root as unknown as Element);
  await server?.stop();
  await Promise.all([tm?.close(), geo?.close()]);
});

describe('Discover: nearby shows', () => {
  it('finds shows near the typed place, the library artist’s show first and linked to the library', async () => {
    const { ShowsTab } = (await renderer('discover/ShowsTab.tsx')) as { ShowsTab: FunctionComponent };
    root = container();
    render(h(ShowsTab, {}), root as unknown as Element);
    // First without a place: the server's own (IP) location.
    await waitFor(() => expect(find(root, 'ul', 'Nearby shows')).toHaveLength(1));
    expect(text(root)).toContain('Leeds');
    expect(find(root, 'li.show').map((li) => text(li.querySelector('.track-title')))).toEqual(['Leeds Locals']);

    await typeInto(one(root, 'input#shows-location'), 'Brooklyn');
    click(one(root, 'button', 'Find shows'));
    await waitFor(() => expect(find(root, 'li.show').map((li) => text(li.querySelector('.track-title')))).toEqual(['Velvet Static with support', 'Strangers Nearby live']));
    expect(tm.requests.at(-1)!.query.get('latlong')).toBe('40.7128,-73.9533');
    expect(text(root)).toContain('2 shows, 1 with artists from your library');
    const first = find(root, 'li.show')[0]!;
    expect(text(first)).toContain('In your library');
    expect(text(first)).toContain('Warehouse, Brooklyn');
    expect(one(first, 'a', 'Velvet Static').getAttribute('href')).toMatch(/^\/library\/artists\/\d+$/);
    expect(find(first, 'a', 'Strangers Nearby')).toEqual([]);
  });
});
