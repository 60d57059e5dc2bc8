import type { RadioStationFields, RadioStationRow, RadioStationsRepository } from '../../db/radioStations.js';
import { NotFoundError, ValidationError } from '../errors.js';

/** An http(s) URL, normalised; anything else is a ValidationError naming the field. */
export function httpUrl(field: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ValidationError(`${field} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`${field} must be an http or https URL`);
  if (url.href.length > 2000) throw new ValidationError(`${field} is too long`);
  return url.href;
}

export interface StationInput {
  name: string;
  streamUrl: string;
  homePageUrl?: string | undefined;
}

/**
 * Internet radio stations: one list everyone sees. The server never connects to a station (clients
 * play the stream themselves), so stations on the LAN are fine; URLs only have to be http(s).
 */
export class RadioStations {
  constructor(
    private readonly repo: RadioStationsRepository,
    private readonly clock: { now(): number },
  ) {}

  list(): RadioStationRow[] {
    return this.repo.all();
  }

  create(input: StationInput): number {
    return this.repo.create(this.validate(input), this.clock.now());
  }

  update(id: number, input: StationInput): void {
    if (!this.repo.update(id, this.validate(input), this.clock.now())) throw new NotFoundError('Internet radio station not found');
  }

  delete(id: number): void {
    if (!this.repo.remove(id)) throw new NotFoundError('Internet radio station not found');
  }

  private validate(input: StationInput): RadioStationFields {
    const name = input.name.trim();
    if (name === '' || name.length > 200) throw new ValidationError('name must be 1-200 characters');
    const home = input.homePageUrl?.trim();
    return {
      name,
      streamUrl: httpUrl('streamUrl', input.streamUrl),
      homePageUrl: home ? httpUrl('homepageUrl', home) : null,
    };
  }
}
