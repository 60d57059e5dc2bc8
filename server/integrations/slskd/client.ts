import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sleep } from '../../sleep.js';
import { IntegrationError } from '../errors.js';
import {
  searchIsComplete,
  slskdApplicationSchema,
  slskdEnqueueSchema,
  slskdOptionsSchema,
  slskdResponseSchema,
  slskdSearchSchema,
  slskdTransferSchema,
  slskdTransferUsersSchema,
  type SlskdSearch,
  type SlskdTransfer,
} from './schemas.js';
import { SERVICE, SlskdTransport, type SlskdTransportOptions } from './transport.js';

export type SlskdClientOptions = SlskdTransportOptions;

export interface SearchRequest {
  searchText: string;
  /** Caller-chosen id (a UUID); generated when absent. */
  id?: string;
  /** How long slskd listens for peers' answers; default 15 s. */
  searchTimeoutMs?: number;
  responseLimit?: number;
  fileLimit?: number;
}

export interface WaitOptions {
  /** Give up (and return what arrived) after this long; default searchTimeout + 20 s. */
  timeoutMs?: number;
  /** First pause between polls; grows to `maxPollMs`. Default 500 ms. */
  pollMs?: number;
  maxPollMs?: number;
  /** After completion with a response count but no payloads, re-read `/responses` for this long; default 15 s. */
  settleMs?: number;
  signal?: AbortSignal;
}

export interface EnqueueFile {
  filename: string;
  size: number;
}

export interface EnqueueResult {
  enqueued: string[];
  failed: Array<{ filename: string; message: string | null }>;
}

export interface SlskdStatus {
  version: string;
  /** Whether slskd is connected and logged in to the Soulseek network. */
  connected: boolean;
  serverState: string | null;
}

/** A typed client for slskd's `/api/v0` (the Soulseek daemon the user runs). */
export class SlskdClient {
  private readonly transport: SlskdTransport;

  constructor(options: SlskdClientOptions) {
    this.transport = new SlskdTransport(options);
  }

  get circuitOpen(): boolean {
    return this.transport.circuitOpen;
  }

  /** Version and Soulseek connection state; bypasses the breaker because the user may just have fixed slskd. */
  async status(): Promise<SlskdStatus> {
    const app = await this.transport.request({ path: '/application', schema: slskdApplicationSchema, bypassBreaker: true });
    const version = typeof app.version === 'string' ? app.version : (app.version?.full ?? app.version?.current ?? null);
    if (!version || !app.server) {
      throw new IntegrationError(SERVICE, 'wrong_url', 'not slskd at this URL: /api/v0/application did not describe an slskd instance', 200);
    }
    const state = app.server.state ?? null;
    const connected = app.server.isConnected ?? /\bConnected\b/.test(state ?? '');
    return { version, connected, serverState: state };
  }

  /** Where slskd itself saves completed downloads (its `directories.downloads` option); null when not reported. */
  async downloadsDirectory(): Promise<string | null> {
    const options = await this.transport.request({ path: '/options', schema: slskdOptionsSchema });
    const dir = options.directories?.downloads;
    const value = Array.isArray(dir) ? dir[0] : dir;
    return value && value.trim() !== '' ? value : null;
  }

  /** Starts a search; 409 when slskd is offline from Soulseek, 429s are retried with back-off. */
  startSearch(req: SearchRequest): Promise<SlskdSearch> {
    const body = {
      id: req.id ?? randomUUID(),
      searchText: req.searchText,
      fileLimit: req.fileLimit ?? 1000,
      filterResponses: true,
      maximumPeerQueueLength: 150,
      minimumPeerUploadSpeed: 0,
      minimumResponseFileCount: 1,
      responseLimit: req.responseLimit ?? 150,
      searchTimeout: req.searchTimeoutMs ?? 15_000,
    };
    return this.transport.request({ method: 'POST', path: '/searches', body, schema: slskdSearchSchema, retryRateLimit: true });
  }

  search(id: string, includeResponses = false): Promise<SlskdSearch> {
    return this.transport.request({ path: `/searches/${encodeURIComponent(id)}`, query: { includeResponses }, schema: slskdSearchSchema });
  }

  searchResponses(id: string) {
    return this.transport.request({ path: `/searches/${encodeURIComponent(id)}/responses`, schema: z.array(slskdResponseSchema) });
  }

  /** Stops a search early (slskd keeps it, marked cancelled, with what arrived). */
  stopSearch(id: string): Promise<SlskdSearch> {
    return this.transport.request({ method: 'PUT', path: `/searches/${encodeURIComponent(id)}`, schema: slskdSearchSchema });
  }

  /** Removes a search; one already gone is fine. */
  async deleteSearch(id: string): Promise<void> {
    await this.transport.request({ method: 'DELETE', path: `/searches/${encodeURIComponent(id)}`, accept: [404] });
  }

  /**
   * Polls a search until slskd says it is complete (or `timeoutMs` passes) and returns it with its
   * responses. slskd sometimes reports counts before the payloads: then `/responses` is re-read.
   */
  async waitForSearch(id: string, options: WaitOptions = {}): Promise<SlskdSearch & { timedOut: boolean }> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? 35_000;
    let pause = options.pollMs ?? 500;
    const maxPause = options.maxPollMs ?? 5000;
    for (;;) {
      options.signal?.throwIfAborted();
      const current = await this.search(id, false);
      const timedOut = Date.now() - started >= timeoutMs;
      if (searchIsComplete(current) || timedOut) {
        let responses = await this.searchResponses(id);
        const settleUntil = Date.now() + (options.settleMs ?? 15_000);
        while (responses.length === 0 && current.responseCount > 0 && Date.now() < settleUntil) {
          await sleep(Math.min(pause, 1000), options.signal);
          responses = await this.searchResponses(id);
        }
        return { ...current, responses, timedOut: timedOut && !searchIsComplete(current) };
      }
      await sleep(Math.min(pause, Math.max(0, timeoutMs - (Date.now() - started))), options.signal);
      pause = Math.min(maxPause, pause * 1.5);
    }
  }

  /** Asks `username` for files; fails only when every file was refused. 429s are retried with back-off. */
  async enqueue(username: string, files: EnqueueFile[]): Promise<EnqueueResult> {
    const answer = await this.transport.request({
      method: 'POST',
      path: `/transfers/downloads/${encodeURIComponent(username)}`,
      body: files.map((f) => ({ filename: f.filename, size: f.size })),
      schema: slskdEnqueueSchema,
      retryRateLimit: true,
      accept: [207],
    });
    let result: EnqueueResult;
    if (answer === undefined) result = { enqueued: files.map((f) => f.filename), failed: [] };
    else if (Array.isArray(answer)) result = { enqueued: answer.map((t) => t.filename), failed: [] };
    else {
      result = {
        enqueued: answer.enqueued.map((t) => t.filename),
        failed: answer.failed.map((f) => (typeof f === 'string' ? { filename: f, message: null } : { filename: f.filename, message: f.message ?? null })),
      };
    }
    if (files.length > 0 && result.enqueued.length === 0 && result.failed.length > 0) {
      throw new IntegrationError(SERVICE, 'bad_request', `slskd could not enqueue any of ${files.length} file(s) from ${username}`, undefined, result.failed);
    }
    return result;
  }

  /** Every download slskd knows, flattened out of its user/directory grouping. */
  async downloads(): Promise<SlskdTransfer[]> {
    const users = await this.transport.request({ path: '/transfers/downloads', schema: slskdTransferUsersSchema });
    return users.flatMap((u) => u.directories.flatMap((d) => d.files.map((f) => ({ ...f, username: f.username || u.username }))));
  }

  download(username: string, id: string): Promise<SlskdTransfer> {
    return this.transport.request({ path: `/transfers/downloads/${encodeURIComponent(username)}/${encodeURIComponent(id)}`, schema: slskdTransferSchema });
  }

  /** Cancels a download and, with `remove`, forgets it. */
  async cancelDownload(username: string, id: string, remove = true): Promise<void> {
    await this.transport.request({
      method: 'DELETE',
      path: `/transfers/downloads/${encodeURIComponent(username)}/${encodeURIComponent(id)}`,
      query: { remove },
      accept: [404],
    });
  }

  async clearCompletedDownloads(): Promise<void> {
    await this.transport.request({ method: 'DELETE', path: '/transfers/downloads/all/completed' });
  }
}
