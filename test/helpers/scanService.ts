import path from 'node:path';
import { openDatabase, type Db } from '../../server/db/connection.js';
import { jobsRepository } from '../../server/db/jobs.js';
import { JobQueue } from '../../server/jobs/queue.js';
import { createLogger } from '../../server/log.js';
import { LibraryScanService, type LibraryScanServiceOptions } from '../../server/library/scanService.js';

/**
 * A scan service of its own, without a server: a database at `dbPath`, a job queue on it and the
 * service (images beside the database). `close()` stops the queue and the service, then the database.
 */
export function standaloneScanService(
  dbPath: string,
  options: Omit<LibraryScanServiceOptions, 'db' | 'jobs' | 'dbPath' | 'imageDir'>,
): { db: Db; jobs: JobQueue; service: LibraryScanService; close: () => Promise<void> } {
  const db = openDatabase(dbPath);
  const jobs = new JobQueue({ repo: jobsRepository(db), clock: { now: () => Date.now() }, log: createLogger('silent') });
  const service = new LibraryScanService({ db, jobs, dbPath, imageDir: path.join(path.dirname(dbPath), 'images'), ...options });
  const close = async () => {
    await jobs.stop();
    await service.stop();
    db.close();
  };
  return { db, jobs, service, close };
}
