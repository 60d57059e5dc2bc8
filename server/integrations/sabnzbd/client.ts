import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, queryString, redactUrl } from '../http.js';

export const SERVICE = 'sabnzbd';

export interface SabnzbdClientOptions {
  /** SABnzbd's address including any URL base; `/api` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Per-request timeout; default 45 s. */
  timeoutMs?: number;
  /** Wait before the single retry of a read after a 5xx or a lost connection; default 500 ms. */
  retryDelayMs?: number;
}

/** SABnzbd's queue priorities: -100 default, -2 paused, -1 low, 0 normal, 1 high, 2 force. */
export type SabnzbdPriority = -100 | -2 | -1 | 0 | 1 | 2;

const numeric = z.union([z.number(), z.string()]).transform((v) => Number(v) || 0);

export const queueSlotSchema = z.looseObject({
  nzo_id: z.string(),
  filename: z.string(),
  cat: z.string().optional(),
  status: z.string(),
  percentage: numeric,
  mb: numeric.optional(),
  mbleft: numeric.optional(),
  timeleft: z.string().optional(),
});
export const queueSchema = z.object({
  queue: z.looseObject({ status: z.string().optional(), paused: z.boolean().optional(), kbpersec: numeric.optional(), slots: z.array(queueSlotSchema) }),
});
export type SabnzbdQueueSlot = z.infer<typeof queueSlotSchema>;
export type SabnzbdQueue = z.infer<typeof queueSchema>['queue'];

export const historySlotSchema = z.looseObject({
  nzo_id: z.string(),
  name: z.string(),
  category: z.string().optional(),
  status: z.string(),
  fail_message: z.string().optional(),
  storage: z.string().nullable().optional(),
  bytes: numeric.optional(),
  completed: numeric.optional(),
});
export const historySchema = z.object({ history: z.looseObject({ noofslots: numeric.optional(), slots: z.array(historySlotSchema) }) });
export type SabnzbdHistorySlot = z.infer<typeof historySlotSchema>;

const addSchema = z.looseObject({ status: z.boolean(), nzo_ids: z.array(z.string()).default([]) });
const statusSchema = z.looseObject({ status: z.boolean() });

export interface AddNzb {
  /** URL of the NZB (from Prowlarr). */
  url: string;
  name: string;
  category?: string;
  priority?: SabnzbdPriority;
}

const transient = new Set(['unreachable', 'server_error']);

/** SABnzbd's `api?mode=…&apikey=…&output=json` (external-services.md (k)). */
export class SabnzbdClient {
  readonly apiUrl: string;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: SabnzbdClientOptions) {
    this.apiUrl = joinUrl(options.baseUrl, '/api');
    this.timeoutMs = options.timeoutMs ?? 45_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  /**
   * `mode=version` answers without a key, so the connection test also reads the queue, which
   * needs one: a wrong key fails the test instead of passing it.
   */
  async testConnection(): Promise<{ version: string }> {
    const { version } = await this.call('version', {}, z.looseObject({ version: z.string() }), true);
    await this.queue();
    return { version };
  }

  async version(): Promise<string> {
    return (await this.call('version', {}, z.looseObject({ version: z.string() }), true)).version;
  }

  /** Adds an NZB by URL; answers SABnzbd's job id (`SABnzbd_nzo_…`). */
  async addUrl(nzb: AddNzb): Promise<string> {
    const name = nzb.name.toLowerCase().endsWith('.nzb') ? nzb.name : `${nzb.name}.nzb`;
    const answer = await this.call(
      'addurl',
      { name: nzb.url, nzbname: name, cat: nzb.category || undefined, priority: nzb.priority ?? -100, pp: 3 },
      addSchema,
      false,
    );
    const id = answer.nzo_ids[0];
    if (!answer.status || !id) throw new IntegrationError(SERVICE, 'bad_request', `SABnzbd did not accept the NZB ${nzb.name.slice(0, 200)}`);
    return id;
  }

  /**
   * Uploads an NZB's content (`mode=addfile`, multipart field `name`): for an NZB that SABnzbd
   * could not fetch itself, e.g. a Prowlarr address only this computer can reach.
   */
  async addFile(nzb: Omit<AddNzb, 'url'> & { content: string }): Promise<string> {
    const name = nzb.name.toLowerCase().endsWith('.nzb') ? nzb.name : `${nzb.name}.nzb`;
    const boundary = `----tonearm${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    const filename = name.replace(/["\r\n]/g, '_');
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="name"; filename="${filename}"\r\n` +
      `Content-Type: application/x-nzb\r\n\r\n${nzb.content}\r\n--${boundary}--\r\n`;
    const params = { nzbname: name, cat: nzb.category || undefined, priority: nzb.priority ?? -100, pp: 3 };
    const answer = await this.attempt('addfile', params, addSchema, { body, contentType: `multipart/form-data; boundary=${boundary}` });
    const id = answer.nzo_ids[0];
    if (!answer.status || !id) throw new IntegrationError(SERVICE, 'bad_request', `SABnzbd did not accept the NZB ${nzb.name.slice(0, 200)}`);
    return id;
  }

  /** The completed-downloads folder as SABnzbd sees it (`get_config` misc.complete_dir; either shape it answers). */
  async completeDir(): Promise<string> {
    const answer = await this.call('get_config', { section: 'misc' }, z.looseObject({ config: z.looseObject({ misc: z.unknown() }) }), true);
    const misc = answer.config.misc;
    if (Array.isArray(misc)) {
      const entry = misc.find((e): e is { name: string; value: unknown } => !!e && typeof e === 'object' && (e as { name?: unknown }).name === 'complete_dir');
      return entry ? String(entry.value) : '';
    }
    const dir = misc && typeof misc === 'object' ? (misc as { complete_dir?: unknown }).complete_dir : undefined;
    return typeof dir === 'string' ? dir : '';
  }

  async queue(ids?: string[]): Promise<SabnzbdQueue> {
    return (await this.call('queue', { nzo_ids: ids?.join(',') }, queueSchema, true)).queue;
  }

  async history(ids?: string[]): Promise<SabnzbdHistorySlot[]> {
    return (await this.call('history', { nzo_ids: ids?.join(',') }, historySchema, true)).history.slots;
  }

  async deleteFromQueue(id: string): Promise<void> {
    await this.call('queue', { name: 'delete', value: id, del_files: 1 }, statusSchema, false);
  }

  async deleteFromHistory(id: string): Promise<void> {
    await this.call('history', { name: 'delete', value: id, del_files: 1 }, statusSchema, false);
  }

  private async call<T>(mode: string, params: Record<string, unknown>, schema: z.ZodType<T>, retry: boolean): Promise<T> {
    try {
      return await this.attempt(mode, params, schema);
    } catch (err) {
      if (!retry || !(err instanceof IntegrationError) || !transient.has(err.kind)) throw err;
      await new Promise((r) => setTimeout(r, this.retryDelayMs));
      return await this.attempt(mode, params, schema);
    }
  }

  private async attempt<T>(mode: string, params: Record<string, unknown>, schema: z.ZodType<T>, upload?: { body: string; contentType: string }): Promise<T> {
    const url = this.apiUrl + queryString({ mode, ...params, apikey: this.options.apiKey, output: 'json' });
    const answer = await exchange({
      service: SERVICE,
      label: 'SABnzbd',
      url,
      timeoutMs: this.timeoutMs,
      ...(upload && { method: 'POST', body: upload.body, headers: { 'Content-Type': upload.contentType } }),
    });
    const where = redactUrl(url);
    const { status } = answer;
    if (status === 401 || status === 403) throw new IntegrationError(SERVICE, 'unauthorized', `SABnzbd rejected the API key (${status})`, status);
    if (looksLikeHtml(answer)) {
      throw new IntegrationError(SERVICE, 'wrong_url', `not SABnzbd at this URL: ${where} answered with a web page (check the URL and its URL base)`, status);
    }
    if (status >= 500) throw new IntegrationError(SERVICE, 'server_error', `SABnzbd failed on mode=${mode} (HTTP ${status})`, status);
    if (status === 404) throw new IntegrationError(SERVICE, 'wrong_url', `not SABnzbd at this URL: ${where} answered HTTP 404 (check the URL and its URL base)`, status);
    if (status < 200 || status >= 300) throw new IntegrationError(SERVICE, 'bad_response', `SABnzbd answered mode=${mode} with HTTP ${status}`, status);
    const body = parseJson(SERVICE, answer);
    // Key errors come back as HTTP 200 {status:false, error:"API Key Incorrect"}.
    if (body && typeof body === 'object' && (body as { status?: unknown }).status === false) {
      const error = String((body as { error?: unknown }).error ?? '');
      if (/api key/i.test(error)) throw new IntegrationError(SERVICE, 'unauthorized', /required/i.test(error) ? 'SABnzbd requires an API key' : 'SABnzbd rejected the API key', status);
      throw new IntegrationError(SERVICE, 'bad_request', `SABnzbd refused mode=${mode}`, status);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new IntegrationError(SERVICE, 'bad_response', `SABnzbd's answer to mode=${mode} has an unexpected shape`, status, parsed.error.issues.slice(0, 5));
    }
    return parsed.data;
  }
}
