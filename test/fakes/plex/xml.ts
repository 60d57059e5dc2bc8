/**
 * Plex's XML: every scalar is an attribute, every list or object a child element named like its
 * key in the JSON answer (`Directory`, `Location`, `Metadata`, `Media`, `Part`, ...).
 */
const escape = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function scalar(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

export function toXml(name: string, value: Record<string, unknown>): string {
  let attrs = '';
  let children = '';
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) children += item && typeof item === 'object' ? toXml(k, item as Record<string, unknown>) : `<${k}>${escape(scalar(item))}</${k}>`;
    else if (typeof v === 'object') children += toXml(k, v as Record<string, unknown>);
    else attrs += ` ${k}="${escape(scalar(v))}"`;
  }
  return children ? `<${name}${attrs}>${children}</${name}>` : `<${name}${attrs}/>`;
}

export function xmlDocument(name: string, value: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${toXml(name, value)}\n`;
}

/** The small HTML page Plex Media Server answers a refused token with. */
export const UNAUTHORIZED_PAGE = '<html><head><title>Unauthorized</title></head><body><h1>401 Unauthorized</h1></body></html>';
