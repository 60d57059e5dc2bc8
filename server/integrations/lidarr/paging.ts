import type { Page } from './schemas.js';

export interface PageWalkOptions {
  /** Stop after this many records even if Lidarr has more; default 10,000. */
  maxRecords?: number;
  pageSize?: number;
}

/**
 * Walks Lidarr's `{page, pageSize, totalRecords, records}` pages from page 1 until the records run
 * out, `totalRecords` is reached, or the cap is hit. Pages are fetched one at a time, on demand.
 */
export async function* walkPages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  options: PageWalkOptions = {},
): AsyncGenerator<T> {
  const maxRecords = options.maxRecords ?? 10_000;
  let seen = 0;
  for (let page = 1; seen < maxRecords; page++) {
    const answer = await fetchPage(page);
    for (const record of answer.records) {
      if (seen >= maxRecords) return;
      seen++;
      yield record;
    }
    const pageSize = answer.pageSize || options.pageSize || answer.records.length;
    const reachedEnd = answer.records.length === 0 || answer.records.length < pageSize;
    if (reachedEnd || page * pageSize >= answer.totalRecords) return;
  }
}

export async function collectPages<T>(records: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const record of records) all.push(record);
  return all;
}
