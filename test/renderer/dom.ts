/**
 * A small DOM for rendering the web UI's preact components in vitest on plain Node (the project has no
 * jsdom or happy-dom): elements, text, attributes, events that bubble, forms, the History API, a
 * storage, and `ws` as the browser's WebSocket. Import it before any renderer module. It implements
 * what preact and the screens use, no more; `find`, `click`, `type` and `waitFor` drive a screen the
 * way a person would.
 */
import WebSocket from 'ws';

type Listener = { fn: (this: unknown, e: DomEvent) => unknown; capture: boolean };

export interface DomEvent {
  type: string;
  target: FakeNode | null;
  currentTarget: FakeNode | null;
  bubbles: boolean;
  defaultPrevented: boolean;
  button: number;
  preventDefault(): void;
  stopPropagation(): void;
  [key: string]: unknown;
  [key: symbol]: unknown;
}

function makeEvent(type: string, bubbles = true): DomEvent {
  let stopped = false;
  const e: DomEvent = {
    type,
    target: null,
    currentTarget: null,
    bubbles,
    defaultPrevented: false,
    button: 0,
    preventDefault() {
      e.defaultPrevented = true;
    },
    stopPropagation() {
      stopped = true;
    },
    get stopped() {
      return stopped;
    },
  };
  return e;
}

export class FakeNode {
  parentNode: FakeElement | null = null;
  childNodes: FakeNode[] = [];
  readonly ownerDocument: FakeDocument | null;
  private listeners = new Map<string, Listener[]>();
  constructor(readonly nodeType: number, doc: FakeDocument | null) {
    this.ownerDocument = doc;
  }
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): FakeNode | null {
    return this.childNodes.at(-1) ?? null;
  }
  get nextSibling(): FakeNode | null {
    const siblings = this.parentNode?.childNodes;
    if (!siblings) return null;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
  get previousSibling(): FakeNode | null {
    const siblings = this.parentNode?.childNodes;
    if (!siblings) return null;
    return siblings[siblings.indexOf(this) - 1] ?? null;
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(value: string) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (value) this.appendChild(new FakeText(String(value), this.ownerDocument));
  }
  insertBefore<T extends FakeNode>(child: T, ref: FakeNode | null): T {
    if (child.parentNode) child.parentNode.removeChild(child);
    const at = ref ? this.childNodes.indexOf(ref) : -1;
    if (at < 0) this.childNodes.push(child);
    else this.childNodes.splice(at, 0, child);
    child.parentNode = this as unknown as FakeElement;
    return child;
  }
  appendChild<T extends FakeNode>(child: T): T {
    return this.insertBefore(child, null);
  }
  append(...nodes: FakeNode[]): void {
    for (const n of nodes) this.appendChild(n);
  }
  removeChild<T extends FakeNode>(child: T): T {
    const at = this.childNodes.indexOf(child);
    if (at >= 0) this.childNodes.splice(at, 1);
    child.parentNode = null;
    return child;
  }
  remove(): void {
    this.parentNode?.removeChild(this);
  }
  contains(other: FakeNode | null): boolean {
    for (let n = other; n; n = n.parentNode) if (n === this) return true;
    return false;
  }
  addEventListener(type: string, fn: Listener['fn'], capture: boolean | { capture?: boolean } = false): void {
    const list = this.listeners.get(type) ?? [];
    list.push({ fn, capture: typeof capture === 'boolean' ? capture : !!capture?.capture });
    this.listeners.set(type, list);
  }
  removeEventListener(type: string, fn: Listener['fn'], capture: boolean | { capture?: boolean } = false): void {
    const c = typeof capture === 'boolean' ? capture : !!capture?.capture;
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((l) => l.fn !== fn || l.capture !== c),
    );
  }
  /** Capture from the top, then bubble from the target, each listener called with `this` = its node (preact relies on it). */
  dispatchEvent(e: DomEvent): boolean {
    e.target = this;
    const path: FakeNode[] = [];
    for (let n: FakeNode | null = this; n; n = n.parentNode) path.push(n);
    const run = (node: FakeNode, capture: boolean) => {
      e.currentTarget = node;
      for (const l of [...(node.listeners.get(e.type) ?? [])]) if (l.capture === capture || node === this) l.fn.call(node, e);
    };
    for (const n of [...path].reverse()) {
      if (n === this) break;
      run(n, true);
      if (e.stopped) return !e.defaultPrevented;
    }
    run(this, false);
    if (e.bubbles) for (const n of path.slice(1)) {
      if (e.stopped) break;
      run(n, false);
    }
    return !e.defaultPrevented;
  }
}

export class FakeText extends FakeNode {
  constructor(
    public data: string,
    doc: FakeDocument | null,
  ) {
    super(3, doc);
  }
  override get textContent(): string {
    return this.data;
  }
  override set textContent(v: string) {
    this.data = v;
  }
}

const BOOLEAN_ATTRIBUTES = new Set(['disabled', 'hidden', 'required', 'readonly', 'multiple', 'open']);

export class FakeElement extends FakeNode {
  readonly localName: string;
  readonly tagName: string;
  readonly namespaceURI: string;
  readonly attributes = new Map<string, string>();
  readonly dataset: Record<string, string> = {};
  readonly style: Record<string, unknown> & { setProperty(k: string, v: string): void; cssText: string } = {
    cssText: '',
    setProperty(k: string, v: string) {
      (this as Record<string, unknown>)[k] = v;
    },
  };
  /** Form controls: the live value and checked state, as properties (preact sets them so). */
  value = '';
  checked = false;
  // Media elements (the player's <audio>).
  paused = true;
  currentTime = 0;
  duration = NaN;
  volume = 1;
  muted = false;
  preload = '';
  src = '';
  error: unknown = null;
  constructor(name: string, ns: string, doc: FakeDocument | null) {
    super(1, doc);
    this.localName = name.toLowerCase();
    this.tagName = name.toUpperCase();
    this.namespaceURI = ns;
  }
  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name, String(value));
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
  get id(): string {
    return this.getAttribute('id') ?? '';
  }
  get className(): string {
    return this.getAttribute('class') ?? '';
  }
  get disabled(): boolean {
    return this.hasAttribute('disabled');
  }
  get children(): FakeElement[] {
    return this.childNodes.filter((c): c is FakeElement => c instanceof FakeElement);
  }
  get innerHTML(): string {
    return this.textContent;
  }
  set innerHTML(v: string) {
    this.textContent = v;
  }
  scrollIntoView(): void {}
  focus(): void {}
  blur(): void {}
  play(): Promise<void> {
    this.paused = false;
    return Promise.resolve();
  }
  pause(): void {
    this.paused = true;
  }
  load(): void {}
  querySelectorAll(selector: string): FakeElement[] {
    const out: FakeElement[] = [];
    const walk = (n: FakeNode) => {
      for (const c of n.childNodes)
        if (c instanceof FakeElement) {
          if (matches(c, selector, this)) out.push(c);
          walk(c);
        }
    };
    walk(this);
    return out;
  }
  querySelector(selector: string): FakeElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  closest(selector: string): FakeElement | null {
    for (let n: FakeElement | null = this; n; n = n.parentNode) if (matches(n, selector, null)) return n;
    return null;
  }
}

/** One compound selector: tag, #id, .class, [attr], [attr="value"]. */
function matchesCompound(el: FakeElement, compound: string): boolean {
  const re = /([a-z0-9-]+)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:="([^"]*)")?\]/giy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(compound))) {
    consumed = re.lastIndex;
    if (m[1] && el.localName !== m[1].toLowerCase()) return false;
    if (m[2] && el.id !== m[2]) return false;
    if (m[3] && !el.className.split(/\s+/).includes(m[3])) return false;
    if (m[4]) {
      const v = BOOLEAN_ATTRIBUTES.has(m[4]) && m[4] === 'disabled' ? (el.disabled ? '' : null) : el.getAttribute(m[4]);
      if (v === null) return false;
      if (m[5] !== undefined && v !== m[5]) return false;
    }
  }
  if (consumed !== compound.length) throw new Error(`selector not supported by the test DOM: ${compound}`);
  return true;
}

/** Compound selectors joined by spaces (descendants) or commas (either). */
function matches(el: FakeElement, selector: string, scope: FakeElement | null): boolean {
  return selector.split(',').some((alt) => {
    const parts = alt.trim().split(/\s+/);
    if (!matchesCompound(el, parts.at(-1)!)) return false;
    let n = el.parentNode;
    for (let i = parts.length - 2; i >= 0; i--) {
      while (n && n !== scope && !matchesCompound(n, parts[i]!)) n = n.parentNode;
      if (!n || n === scope) return false;
      n = n.parentNode;
    }
    return true;
  });
}

export class FakeDocument extends FakeNode {
  readonly documentElement: FakeElement;
  readonly head: FakeElement;
  readonly body: FakeElement;
  constructor() {
    super(9, null);
    this.documentElement = new FakeElement('html', 'http://www.w3.org/1999/xhtml', this);
    this.head = new FakeElement('head', 'http://www.w3.org/1999/xhtml', this);
    this.body = new FakeElement('body', 'http://www.w3.org/1999/xhtml', this);
    this.appendChild(this.documentElement);
    this.documentElement.append(this.head, this.body);
  }
  createElement(name: string): FakeElement {
    return new FakeElement(name, 'http://www.w3.org/1999/xhtml', this);
  }
  createElementNS(ns: string | null, name: string): FakeElement {
    return new FakeElement(name, ns ?? 'http://www.w3.org/1999/xhtml', this);
  }
  createTextNode(data: string): FakeText {
    return new FakeText(data, this);
  }
  querySelectorAll(selector: string): FakeElement[] {
    return this.documentElement.querySelectorAll(selector);
  }
  querySelector(selector: string): FakeElement | null {
    return this.documentElement.querySelector(selector);
  }
}

// ---- the browser's globals ---------------------------------------------------------------------

class MemoryStorage {
  private map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, String(v));
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
  clear() {
    this.map.clear();
  }
}

export const document = new FakeDocument();
const windowEvents = new FakeNode(0, null);
const here = new URL('http://localhost/');
const location = {
  get pathname() {
    return here.pathname;
  },
  get search() {
    return here.search;
  },
  get hash() {
    return here.hash;
  },
  get host() {
    return here.host;
  },
  get hostname() {
    return here.hostname;
  },
  get origin() {
    return here.origin;
  },
  get protocol() {
    return here.protocol;
  },
  get href() {
    return here.href;
  },
  assign(url: string) {
    here.href = new URL(url, here).href;
  },
};
const history = {
  pushState(_s: unknown, _t: string, url: string) {
    here.href = new URL(url, here).href;
  },
  replaceState(_s: unknown, _t: string, url: string) {
    here.href = new URL(url, here).href;
  },
};

/** Points the page at a server: relative fetches and /ws go there. */
export function setOrigin(origin: string, path = '/'): void {
  here.href = new URL(path, origin).href;
}

const g = globalThis as Record<string, unknown>;
g.document = document;
g.window = globalThis;
g.location = location;
g.history = history;
g.localStorage = new MemoryStorage();
g.sessionStorage = new MemoryStorage();
g.addEventListener = windowEvents.addEventListener.bind(windowEvents);
g.removeEventListener = windowEvents.removeEventListener.bind(windowEvents);
g.scrollTo = () => undefined;
g.matchMedia = () => ({ matches: false, addEventListener() {}, removeEventListener() {} });
g.requestAnimationFrame = (cb: () => void) => setTimeout(cb, 0);
g.cancelAnimationFrame = (id: ReturnType<typeof setTimeout>) => clearTimeout(id);
g.WebSocket = WebSocket;
if (typeof g.navigator === 'undefined') g.navigator = { userAgent: 'tonearm-test-dom', language: 'en' };
g.Node = FakeNode;
g.Element = FakeElement;
g.HTMLElement = FakeElement;
g.Text = FakeText;

const nativeFetch = globalThis.fetch;
/** Relative URLs resolve against the page's origin, as in a browser. */
g.fetch = (input: string | URL | Request, init?: RequestInit) => nativeFetch(typeof input === 'string' ? new URL(input, here).href : input, init);

// ---- driving a screen --------------------------------------------------------------------------

/** The visible words of a node, spaces collapsed. */
export const text = (n: FakeNode | null) => (n?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The accessible name used to find controls: aria-label, else the text. */
export const nameOf = (el: FakeElement) => el.getAttribute('aria-label') ?? text(el);

export function find(root: FakeElement, selector: string, name?: string | RegExp): FakeElement[] {
  const all = root.querySelectorAll(selector);
  if (name === undefined) return all;
  return all.filter((el) => (typeof name === 'string' ? nameOf(el) === name : name.test(nameOf(el))));
}

export function one(root: FakeElement, selector: string, name?: string | RegExp): FakeElement {
  const found = find(root, selector, name);
  if (found.length !== 1) throw new Error(`expected one ${selector}${name ? ` named ${String(name)}` : ''}, found ${found.length}`);
  return found[0]!;
}

/** A click as a person makes it: nothing on a disabled control; a submit button submits its form. */
export function click(el: FakeElement): void {
  if (el.disabled) throw new Error(`clicked a disabled ${el.localName}: ${nameOf(el)}`);
  const e = makeEvent('click');
  el.dispatchEvent(e);
  if (el.localName === 'input' && el.getAttribute('type') === 'checkbox' && !e.defaultPrevented) {
    el.checked = !el.checked;
    el.dispatchEvent(makeEvent('change'));
  }
  if (!e.defaultPrevented && el.localName === 'button' && (el.getAttribute('type') ?? 'submit') === 'submit') {
    const form = el.closest('form');
    if (form) form.dispatchEvent(makeEvent('submit'));
  }
}

/** Types into a field and lets preact render the new state (as a person's next action comes later). */
export async function type(el: FakeElement, value: string): Promise<void> {
  el.value = value;
  el.dispatchEvent(makeEvent('input'));
  await new Promise((r) => setTimeout(r, 0));
}

export function submit(form: FakeElement): void {
  form.dispatchEvent(makeEvent('submit'));
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
export function container(): FakeElement {
  const root = document.createElement('div');
  document.body.appendChild(root);
  return root;
}
