/**
 * The browser for the screen tests: a happy-dom window installed as the page's globals, so preact
 * renders the web UI's components in vitest on plain Node. Import it before any renderer module.
 *
 * What stays Node's own: timers, `fetch` (relative URLs resolve against the page's location, as in a
 * browser, and reach the test server for real), AbortController, URL, Blob and the other web APIs
 * Node has; `ws` is the browser's WebSocket. `find`, `click`, `type`, `press` and `waitFor` drive a
 * screen the way a person would.
 */
import { Window } from 'happy-dom';
import WebSocket from 'ws';

/** An element as the tests read it (form controls included). */
export type El = HTMLElement & { value: string; checked: boolean; disabled: boolean };

const nativeFetch = globalThis.fetch;
const nodeTimers = { setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask };

export const window = new Window({
  url: 'http://localhost/',
  settings: {
    disableJavaScriptFileLoading: true,
    navigation: {
      // Links and forms the screens do not handle must not replace the page.
      disableMainFrameNavigation: true,
      disableChildFrameNavigation: true,
      disableChildPageNavigation: true,
      disableFallbackToSetURL: true,
    },
  },
});
export const document = window.document as unknown as Document;

/** Relative URLs resolve against the page's location, as in a browser; the request is Node's. */
const pageFetch = (input: string | URL | Request, init?: RequestInit) =>
  nativeFetch(typeof input === 'string' ? new URL(input, window.location.href).href : input, init);

// The page's window uses Node's timers and fetch too, so `window.setTimeout(...)` and `window.fetch(...)` behave like the bare ones.
Object.assign(window, nodeTimers, { fetch: pageFetch, WebSocket });

/** Globals Node already has that stay Node's own (the test server is reached through them). */
const KEEP_NODE = new Set([
  'fetch', 'Request', 'Response', 'Headers', 'FormData', 'Blob', 'File', 'URL', 'URLSearchParams',
  'AbortController', 'AbortSignal', 'EventTarget', 'TextEncoder', 'TextDecoder', 'ReadableStream',
  'WritableStream', 'TransformStream', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
  'setImmediate', 'clearImmediate', 'queueMicrotask', 'structuredClone', 'performance', 'crypto',
  'console', 'process', 'Buffer', 'global', 'globalThis', 'WebSocket', 'MessageChannel', 'MessagePort',
  'MessageEvent', 'BroadcastChannel', 'atob', 'btoa', 'DOMException',
]);
/** The page's own objects and DOM classes, which must be happy-dom's even where Node has a namesake. */
const FROM_PAGE = [
  'window', 'self', 'document', 'navigator', 'location', 'history', 'localStorage', 'sessionStorage',
  'Event', 'CustomEvent', 'UIEvent', 'MouseEvent', 'KeyboardEvent', 'InputEvent', 'FocusEvent',
  'SubmitEvent', 'PointerEvent', 'ErrorEvent', 'ProgressEvent',
];

const g = globalThis as Record<string, unknown>;
const w = window as unknown as Record<string, unknown>;
const define = (key: string, value: unknown) =>
  Object.defineProperty(globalThis, key, { value, writable: true, configurable: true, enumerable: false });
for (const key of Object.getOwnPropertyNames(window)) {
  if (KEEP_NODE.has(key) || key.startsWith('_') || key in g) continue;
  define(key, w[key]);
}
for (const key of FROM_PAGE) define(key, key === 'window' || key === 'self' ? window : w[key]);
define('fetch', pageFetch);
define('WebSocket', WebSocket);

/** Points the page at a server: relative fetches and /ws go there. */
export function setOrigin(origin: string, path = '/'): void {
  window.happyDOM.setURL(new URL(path, origin).href);
}

// ---- driving a screen --------------------------------------------------------------------------

/** The visible words of a node, spaces collapsed. */
export const text = (n: Node | null | undefined) => (n?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The accessible name used to find controls: aria-label, else the text. */
export const nameOf = (el: Element) => el.getAttribute('aria-label') ?? text(el);

export function find(root: Element, selector: string, name?: string | RegExp): El[] {
  const all = Array.from(root.querySelectorAll(selector)) as El[];
  if (name === undefined) return all;
  return all.filter((el) => (typeof name === 'string' ? nameOf(el) === name : name.test(nameOf(el))));
}

export function one(root: Element, selector: string, name?: string | RegExp): El {
  const found = find(root, selector, name);
  if (found.length !== 1) throw new Error(`expected one ${selector}${name ? ` named ${String(name)}` : ''}, found ${found.length}`);
  return found[0]!;
}

/**
 * A click as a person makes it: refused on a disabled control; the browser does the rest (a checkbox
 * toggles and reports `change`, a submit button submits its form).
 */
export function click(el: Element): void {
  if ((el as El).disabled) throw new Error(`clicked a disabled ${el.localName}: ${nameOf(el)}`);
  (el as HTMLElement).click();
}

/** Types into a field and lets preact render the new state (as a person's next action comes later). */
export async function type(el: Element, value: string): Promise<void> {
  (el as El).value = value;
  el.dispatchEvent(new window.InputEvent('input', { bubbles: true }) as unknown as Event);
  await new Promise((r) => setTimeout(r, 0));
}

/** A key pressed while `el` has the focus. */
export function press(el: Element, key: string): void {
  el.dispatchEvent(new window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }) as unknown as Event);
}

/** An event of `type` on `el` (`change` after setting `files`, for instance). */
export function fire(el: Element, type: string): void {
  el.dispatchEvent(new window.Event(type, { bubbles: true, cancelable: true }) as unknown as Event);
}

export function submit(form: Element): void {
  fire(form, 'submit');
}

/** Retries `check` (an assertion or a predicate) until it passes. */
export async function waitFor<T>(check: () => T, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = check();
      if (r !== false) return r;
      if (Date.now() > until) throw new Error('waitFor: still false');
    } catch (err) {
      if (Date.now() > until) throw err;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A fresh container in the body for one screen. */
export function container(): El {
  const root = document.createElement('div') as unknown as El;
  document.body.appendChild(root);
  return root;
}
