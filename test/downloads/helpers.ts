import type { DownloadJobRow, NewDownloadJob } from '../../server/db/downloads.js';
import type { TestServer } from '../helpers/server.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value (not undefined/false) or `timeoutMs` passes. */
export async function waitFor<T>(check: () => T | undefined | false | null | Promise<T | undefined | false | null>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export function createJob(server: TestServer, job: Partial<NewDownloadJob> & Pick<NewDownloadJob, 'artistName' | 'trackName'>, userId = 1): DownloadJobRow {
  return server.ctx.downloads.create({ userId, ...job });
}

export const jobOf = (server: TestServer, id: number) => server.ctx.downloads.get(id)!;

/** Waits until the job reaches one of `statuses` and returns it. */
export function settled(server: TestServer, id: number, statuses: string[] = ['done', 'failed', 'blocked', 'cancelled'], timeoutMs = 20_000) {
  return waitFor(() => {
    const j = jobOf(server, id);
    return statuses.includes(j.status) ? j : undefined;
  }, timeoutMs, `job ${id} to reach ${statuses.join('/')} (now ${describeJob(server, id)})`);
}

export async function setSettings(server: TestServer, body: Record<string, unknown>): Promise<void> {
  const res = await server.api('/api/settings', { method: 'POST', token: server.admin.token, json: body });
  if (res.status !== 200) throw new Error(`settings ${res.status}: ${await res.text()}`);
}

export async function makeUser(server: TestServer, username: string, permissions: Record<string, boolean>): Promise<{ id: number; token: string }> {
  const res = await server.api('/api/users', { method: 'POST', token: server.admin.token, json: { username, password: 'long enough pw', role: 'user', permissions } });
  if (res.status !== 201) throw new Error(`user ${res.status}: ${await res.text()}`);
  const user = (await res.json()) as { id: string | number };
  const login = (await (await server.api('/api/auth/login', { method: 'POST', json: { username, password: 'long enough pw' } })).json()) as { token: string };
  return { id: Number(user.id), token: login.token };
}

function describeJob(server: TestServer, id: number): string {
  const j = jobOf(server, id);
  const q = j.queueJobId ? server.ctx.db.prepare('SELECT status, attempts, last_error FROM jobs WHERE id = ?').get(j.queueJobId) : null;
  return `${j.status} ${j.phase} ${j.error ?? ''}; queue job ${JSON.stringify(q)}`;
}

/**
 * Presses Test for each download client, as an administrator does in Settings → Downloads: with no
 * folder set, the folder the client reports is confirmed there, the only one files are taken from.
 * Returns the confirmed folders.
 */
export async function confirmClientFolders(server: TestServer, ...clients: ('slskd' | 'sabnzbd' | 'nzbget')[]): Promise<string[]> {
  const out: string[] = [];
  for (const client of clients) {
    const res = await server.api(`/api/settings/${client}/test`, { method: 'POST', token: server.admin.token, json: {} });
    const body = (await res.json()) as { confirmedFolder?: string | null; message?: string };
    if (res.status !== 200 || !body.confirmedFolder) throw new Error(`${client} test did not confirm a folder (${res.status}): ${body.message ?? JSON.stringify(body)}`);
    out.push(body.confirmedFolder);
  }
  return out;
}
