/**
 * Errors raised while reading a request before any route runs: body parsing (body-parser's typed
 * errors), content decoding (zlib, wrapped by body-parser as 400) and path decoding (the router's
 * URIError for a malformed percent-encoding). Each is the client's fault and gets a 4xx; both /api
 * and /rest describe them with this one table, each in its own envelope.
 */
export interface RequestErrorInfo {
  status: number;
  error: string;
  code: string;
  message: string;
}

interface HttpLikeError {
  type?: unknown;
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  limit?: unknown;
  encoding?: unknown;
  charset?: unknown;
}

const statusOf = (e: HttpLikeError): number | null => {
  const s = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : null;
  return s !== null && s >= 400 && s < 500 ? s : null;
};

const limitText = (limit: unknown) => (typeof limit === 'number' ? `${Math.floor(limit / (1024 * 1024))}mb` : 'the limit');

/** The 4xx a request-reading error stands for, or null when it is not one (then it is a real 500). */
export function requestErrorInfo(err: unknown): RequestErrorInfo | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as HttpLikeError;
  const status = statusOf(e);
  if (status === null) return null;
  switch (e.type) {
    case 'entity.parse.failed':
      return { status: 400, error: 'Invalid request', code: 'INVALID_JSON', message: 'Request body is not valid JSON' };
    case 'entity.too.large':
      return { status: 413, error: 'Payload too large', code: 'PAYLOAD_TOO_LARGE', message: `Request body exceeds limit (${limitText(e.limit)})` };
    case 'parameters.too.many':
      return { status: 413, error: 'Payload too large', code: 'PAYLOAD_TOO_LARGE', message: 'Request body has too many parameters' };
    case 'encoding.unsupported':
      return {
        status: 415,
        error: 'Unsupported media type',
        code: 'UNSUPPORTED_ENCODING',
        message: typeof e.encoding === 'string' ? `Unsupported Content-Encoding "${e.encoding.slice(0, 40)}"` : 'Unsupported body encoding',
      };
    case 'charset.unsupported':
      return {
        status: 415,
        error: 'Unsupported media type',
        code: 'UNSUPPORTED_CHARSET',
        message: typeof e.charset === 'string' ? `Unsupported charset "${e.charset.slice(0, 40)}"` : 'Unsupported body charset',
      };
    case 'request.size.invalid':
      return { status: 400, error: 'Invalid request', code: 'INVALID_BODY', message: 'Request body length does not match Content-Length' };
    case 'request.aborted':
      return { status: 400, error: 'Invalid request', code: 'INVALID_BODY', message: 'Request body was not received completely' };
  }
  if (err instanceof URIError)
    return { status: 400, error: 'Invalid request', code: 'INVALID_PATH', message: 'The URL path has a malformed percent-encoding' };
  // A decompression failure (gzip, deflate, br with a body that is not) and anything else the parsers reject.
  if (status === 400)
    return { status: 400, error: 'Invalid request', code: 'INVALID_BODY', message: 'Request body could not be decoded' };
  return { status, error: status === 413 ? 'Payload too large' : status === 415 ? 'Unsupported media type' : 'Invalid request', code: 'INVALID_REQUEST', message: 'The request could not be read' };
}
