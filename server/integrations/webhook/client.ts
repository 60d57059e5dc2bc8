import { IntegrationError } from '../errors.js';
import { exchange, looksLikeHtml, redactUrl } from '../http.js';

export const SERVICE = 'webhook';

export interface WebhookRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string;
  contentType: string;
  /** Default 30 s (external-services.md (j)). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * One generic webhook call: any 2xx is delivered; the status of anything else says whether
 * trying again can help (408/429/5xx and lost connections) or not (other 4xx).
 */
export async function callWebhook(req: WebhookRequest): Promise<{ status: number }> {
  const headers: Record<string, string> = { 'Content-Type': req.contentType, Accept: '*/*', ...req.headers };
  const answer = await exchange({
    service: SERVICE,
    label: 'Webhook',
    url: req.url,
    method: req.method,
    headers,
    body: req.body,
    timeoutMs: req.timeoutMs ?? 30_000,
    maxBytes: 1024 * 1024,
    ...(req.signal && { signal: req.signal }),
  });
  const { status } = answer;
  if (status >= 200 && status < 300) return { status };
  const where = `${req.method} ${redactUrl(req.url)}`;
  if (status === 401 || status === 403) throw new IntegrationError(SERVICE, 'unauthorized', `${where} refused the request (HTTP ${status}); check the webhook's headers`, status);
  if (status === 429) throw new IntegrationError(SERVICE, 'rate_limited', `${where} is rate limiting (HTTP 429)`, status, { retryAfterMs: retryAfterMs(answer.retryAfter) });
  if (status >= 500 || status === 408) throw new IntegrationError(SERVICE, 'server_error', `${where} failed (HTTP ${status})`, status);
  if (status === 404 || status === 405 || looksLikeHtml(answer)) {
    throw new IntegrationError(SERVICE, 'bad_request', `${where} answered HTTP ${status}; check the webhook's URL and method`, status);
  }
  throw new IntegrationError(SERVICE, 'bad_request', `${where} rejected the request (HTTP ${status})`, status);
}

function retryAfterMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(3600_000, Math.max(0, ms)) : undefined;
}
