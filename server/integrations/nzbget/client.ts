import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { exchange, joinUrl, looksLikeHtml, parseJson, redactUrl } from '../http.js';

export const SERVICE = 'nzbget';

export interface NzbgetClientOptions {
  /** NZBGet's address; `/jsonrpc` is appended unless the URL already ends with it. */
  baseUrl: string;
  username?: string;
  password?: string;
  /** Per-request timeout; default 45 s. */
  timeoutMs?: number;
  /** Wait before the single retry of a read after a 5xx or a lost connection; default 500 ms. */
  retryDelayMs?: number;
}

export const groupSchema = z.looseObject({
  NZBID: z.number(),
  NZBName: z.string(),
  Category: z.string().optional(),
  Status: z.string(),
  FileSizeMB: z.number().optional(),
  RemainingSizeMB: z.number().optional(),
  DownloadedSizeMB: z.number().optional(),
  DestDir: z.string().optional(),
  FinalDir: z.string().optional(),
});
export type NzbgetGroup = z.infer<typeof groupSchema>;

export const historyItemSchema = z.looseObject({
  NZBID: z.number(),
  Name: z.string(),
  Kind: z.string().optional(),
  Category: z.string().optional(),
  Status: z.string(),
  DestDir: z.string().optional(),
  FinalDir: z.string().optional(),
  FileSizeMB: z.number().optional(),
  HistoryTime: z.number().optional(),
});
export type NzbgetHistoryItem = z.infer<typeof historyItemSchema>;

const rpcAnswer = z.looseObject({
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional() }).nullable().optional(),
});

export interface AppendNzb {
  url: string;
  name: string;
  category?: string;
  /** NZBGet priority: -100 very low … 0 normal … 100 very high, 900 force. */
  priority?: number;
}

/** Progress of a history entry: `SUCCESS/…` done, `FAILURE/…` and `DELETED/…` failed, `WARNING/…` done with a warning. */
export function historyOutcome(status: string): 'completed' | 'failed' | 'warning' {
  const head = status.split('/')[0]!.toUpperCase();
  if (head === 'SUCCESS') return 'completed';
  if (head === 'WARNING') return 'warning';
  return 'failed';
}

const transient = new Set(['unreachable', 'server_error']);

/** NZBGet's JSON-RPC API with HTTP basic auth (external-services.md (k)). */
export class NzbgetClient {
  readonly rpcUrl: string;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private nextId = 1;

  constructor(private readonly options: NzbgetClientOptions) {
    this.rpcUrl = /\/jsonrpc\/?$/.test(options.baseUrl) ? options.baseUrl.replace(/\/$/, '') : joinUrl(options.baseUrl, '/jsonrpc');
    this.timeoutMs = options.timeoutMs ?? 45_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  version(): Promise<string> {
    return this.call('version', [], z.string(), true);
  }

  /** Adds an NZB by URL; answers NZBGet's NZBID. */
  append(nzb: AppendNzb): Promise<number> {
    return this.appendWith(nzb, nzb.url);
  }

  /** Adds an NZB by content (sent base64 in the same parameter), for an NZB NZBGet could not fetch itself. */
  appendContent(nzb: Omit<AppendNzb, 'url'> & { content: string }): Promise<number> {
    return this.appendWith(nzb, Buffer.from(nzb.content, 'utf8').toString('base64'));
  }

  private async appendWith(nzb: Omit<AppendNzb, 'url'>, urlOrContent: string): Promise<number> {
    const name = nzb.name.toLowerCase().endsWith('.nzb') ? nzb.name : `${nzb.name}.nzb`;
    const params = [name, urlOrContent, nzb.category ?? '', nzb.priority ?? 0, false, false, '', 0, 'FORCE', false, []];
    const id = await this.call('append', params, z.number(), false);
    if (id <= 0) throw new IntegrationError(SERVICE, 'bad_request', `NZBGet did not accept the NZB ${nzb.name.slice(0, 200)}`);
    return id;
  }

  /** NZBGet's destination folder as it sees it (the `DestDir` option). */
  async destDir(): Promise<string> {
    const options = await this.call('config', [], z.array(z.looseObject({ Name: z.string(), Value: z.string() })), true);
    return options.find((o) => o.Name === 'DestDir')?.Value ?? '';
  }

  listGroups(): Promise<NzbgetGroup[]> {
    return this.call('listgroups', [0], z.array(groupSchema), true);
  }

  history(hidden = false): Promise<NzbgetHistoryItem[]> {
    return this.call('history', [hidden], z.array(historyItemSchema), true);
  }

  async deleteFromQueue(id: number): Promise<void> {
    await this.call('editqueue', ['GroupFinalDelete', '', [id]], z.boolean(), false);
  }

  async deleteFromHistory(id: number): Promise<void> {
    await this.call('editqueue', ['HistoryFinalDelete', '', [id]], z.boolean(), false);
  }

  private async call<T>(method: string, params: unknown[], schema: z.ZodType<T>, retry: boolean): Promise<T> {
    try {
      return await this.attempt(method, params, schema);
    } catch (err) {
      if (!(err instanceof IntegrationError) || !transient.has(err.kind)) throw err;
      // A write is retried only when it never reached NZBGet.
      const refused = (err.details as { code?: string } | undefined)?.code === 'ECONNREFUSED';
      if (!retry && !refused) throw err;
      await new Promise((r) => setTimeout(r, this.retryDelayMs));
      return await this.attempt(method, params, schema);
    }
  }

  private async attempt<T>(method: string, params: unknown[], schema: z.ZodType<T>): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.options.username || this.options.password) {
      headers.Authorization = 'Basic ' + Buffer.from(`${this.options.username ?? ''}:${this.options.password ?? ''}`).toString('base64');
    }
    const answer = await exchange({
      service: SERVICE,
      label: 'NZBGet',
      url: this.rpcUrl,
      method: 'POST',
      headers,
      body: { jsonrpc: '2.0', method, params, id: this.nextId++ },
      timeoutMs: this.timeoutMs,
    });
    const { status } = answer;
    const where = redactUrl(this.rpcUrl);
    if (status === 401 || status === 403) throw new IntegrationError(SERVICE, 'unauthorized', `NZBGet rejected the username or password (${status})`, status);
    if (looksLikeHtml(answer)) {
      throw new IntegrationError(SERVICE, 'wrong_url', `not NZBGet at this URL: ${where} answered with a web page (check the URL)`, status);
    }
    if (status >= 500) throw new IntegrationError(SERVICE, 'server_error', `NZBGet failed on ${method} (HTTP ${status})`, status);
    if (status === 404) throw new IntegrationError(SERVICE, 'wrong_url', `not NZBGet at this URL: ${where} answered HTTP 404 (check the URL)`, status);
    if (status < 200 || status >= 300) throw new IntegrationError(SERVICE, 'bad_response', `NZBGet answered ${method} with HTTP ${status}`, status);
    const envelope = rpcAnswer.safeParse(parseJson(SERVICE, answer));
    if (!envelope.success) throw new IntegrationError(SERVICE, 'wrong_url', `not NZBGet at this URL: ${where} did not answer JSON-RPC`, status);
    if (envelope.data.error) {
      throw new IntegrationError(SERVICE, 'bad_request', `NZBGet refused ${method}${envelope.data.error.code !== undefined ? ` (code ${envelope.data.error.code})` : ''}`, status);
    }
    const parsed = schema.safeParse(envelope.data.result);
    if (!parsed.success) {
      throw new IntegrationError(SERVICE, 'bad_response', `NZBGet's answer to ${method} has an unexpected shape`, status, parsed.error.issues.slice(0, 5));
    }
    return parsed.data;
  }
}
