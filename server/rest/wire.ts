import type { Response } from 'express';

/**
 * The wire format. One payload model renders to both encodings: in JSON as is (lists always
 * arrays), in XML with scalars as attributes, objects and lists as child elements, and a `value`
 * field as the element's text — the classic Subsonic layout.
 */
export type Scalar = string | number | boolean;
export type Payload = { [key: string]: Scalar | Payload | Payload[] | Scalar[] | undefined | null };

export const XMLNS = 'http://subsonic.org/restapi';
export const PROTOCOL_VERSION = '1.16.1';
export const SERVER_TYPE = 'tonearm';

export type Format = 'xml' | 'json' | 'jsonp';

export interface Envelope {
  status: 'ok' | 'failed';
  version: string;
  type: string;
  serverVersion: string;
  openSubsonic: true;
}

export function envelope(status: 'ok' | 'failed', serverVersion: string): Envelope {
  return { status, version: PROTOCOL_VERSION, type: SERVER_TYPE, serverVersion, openSubsonic: true };
}

const JS_IDENTIFIER = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

export function isValidCallback(name: string | undefined): name is string {
  return name !== undefined && name.length <= 128 && JS_IDENTIFIER.test(name);
}

export function toJson(body: Payload): string {
  return JSON.stringify({ 'subsonic-response': body });
}

// Characters XML 1.0 cannot carry at all are dropped.
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function escapeXml(value: string, attribute: boolean): string {
  const s = value.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? s.replace(/"/g, '&quot;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;') : s.replace(/\r/g, '&#13;');
}

function scalarText(v: Scalar): string {
  return typeof v === 'string' ? v : String(v);
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function element(name: string, node: Payload | Scalar, out: string[], extraAttributes = ''): void {
  if (isScalar(node)) {
    out.push(`<${name}>${escapeXml(scalarText(node), false)}</${name}>`);
    return;
  }
  let attrs = extraAttributes;
  const children: [string, Payload | Scalar][] = [];
  let text: string | undefined;
  for (const [key, v] of Object.entries(node)) {
    if (v === undefined || v === null) continue;
    if (key === 'value' && isScalar(v)) text = scalarText(v);
    else if (isScalar(v)) attrs += ` ${key}="${escapeXml(scalarText(v), true)}"`;
    else if (Array.isArray(v)) for (const item of v) children.push([key, item as Payload | Scalar]);
    else children.push([key, v]);
  }
  if (children.length === 0 && text === undefined) {
    out.push(`<${name}${attrs}/>`);
    return;
  }
  out.push(`<${name}${attrs}>`);
  if (text !== undefined) out.push(escapeXml(text, false));
  for (const [key, child] of children) element(key, child, out);
  out.push(`</${name}>`);
}

export function toXml(body: Payload): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  element('subsonic-response', body, out, ` xmlns="${XMLNS}"`);
  return out.join('');
}

/** Writes a response envelope in the requested format. */
export function send(res: Response, format: Format, callback: string | undefined, body: Payload, httpStatus = 200): void {
  res.status(httpStatus);
  res.setHeader('Cache-Control', 'no-cache');
  if (format === 'json') {
    res.type('application/json; charset=utf-8').send(toJson(body));
  } else if (format === 'jsonp') {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('application/javascript; charset=utf-8').send(`${callback}(${toJson(body)});`);
  } else {
    res.type('text/xml; charset=utf-8').send(toXml(body));
  }
}
