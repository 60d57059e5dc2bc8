/**
 * Just enough of a browser DOM for preact to render a screen in Node and for a test to read it and
 * click it: elements, text, attributes, style, bubbling events, document, window, localStorage.
 * No layout, no CSS, no real network (tests replace `fetch`).
 */

type Listener = (e: FakeEvent) => unknown;

export class FakeEvent {
  target: FakeNode | null = null;
  currentTarget: FakeNode | null = null;
  defaultPrevented = false;
  propagationStopped = false;
  button = 0;
  metaKey = false;
  ctrlKey = false;
  shiftKey = false;
  altKey = false;
  constructor(
    readonly type: string,
    readonly bubbles = true,
  ) {}
  preventDefault() {
    this.defaultPrevented = true;
  }
  stopPropagation() {
    this.propagationStopped = true;
  }
}

export class FakeNode {
  parentNode: FakeElement | null = null;
  childNodes: FakeNode[] = [];
  private listeners = new Map<string, Set<Listener>>();
  constructor(
    readonly nodeType: number,
    readonly ownerDocument: FakeDocument | null,
  ) {}
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  get nextSibling(): FakeNode | null {
    const siblings = this.parentNode?.childNodes;
    if (!siblings) return null;
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
  insertBefore(node: FakeNode, ref: FakeNode | null) {
    node.remove();
    node.parentNode = this as unknown as FakeElement;
    const at = ref ? this.childNodes.indexOf(ref) : -1;
    if (at === -1) this.childNodes.push(node);
    else this.childNodes.splice(at, 0, node);
    return node;
  }
  appendChild(node: FakeNode) {
    return this.insertBefore(node, null);
  }
  append(...nodes: FakeNode[]) {
    for (const n of nodes) this.appendChild(n);
  }
  removeChild(node: FakeNode) {
    const i = this.childNodes.indexOf(node);
    if (i !== -1) this.childNodes.splice(i, 1);
    node.parentNode = null;
    return node;
  }
  remove() {
    this.parentNode?.removeChild(this);
  }
  contains(node: FakeNode | null): boolean {
    for (let n = node; n; n = n.parentNode) if (n === this) return true;
    return false;
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(value: string) {
    for (const c of [...this.childNodes]) this.removeChild(c);
    if (value) this.appendChild(new FakeText(value, this.ownerDocument));
  }
  addEventListener(type: string, fn: Listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(fn);
  }
  removeEventListener(type: string, fn: Listener) {
    this.listeners.get(type)?.delete(fn);
  }
  dispatchEvent(e: FakeEvent) {
    e.target ??= this;
    for (let n: FakeNode | null = this; n; n = n.parentNode) {
      e.currentTarget = n;
      for (const fn of [...(n.listeners.get(e.type) ?? [])]) fn.call(n, e);
      if (!e.bubbles || e.propagationStopped) break;
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
  override get textContent() {
    return this.data;
  }
}

function styleObject() {
  const values: Record<string, string> = {};
  return new Proxy(values, {
    get(target, key) {
      if (key === 'setProperty') return (k: string, v: string) => void (target[k] = v);
      if (key === 'cssText') return Object.entries(target).map(([k, v]) => `${k}: ${v}`).join('; ');
      return target[key as string] ?? '';
    },
    set(target, key, value) {
      if (key === 'cssText') for (const k of Object.keys(target)) delete target[k];
      else target[key as string] = String(value);
      return true;
    },
  });
}

export class FakeElement extends FakeNode {
  readonly attributes: { name: string; value: string }[] = [];
  style = styleObject();
  dataset: Record<string, string> = {};
  // Media elements (the player's <audio>).
  paused = true;
  currentTime = 0;
  duration = NaN;
  volume = 1;
  muted = false;
  preload = '';
  src = '';
  files: unknown[] | null = null;
  value = '';
  constructor(
    readonly localName: string,
    doc: FakeDocument | null,
  ) {
    super(1, doc);
  }
  get nodeName() {
    return this.localName.toUpperCase();
  }
  get tagName() {
    return this.nodeName;
  }
  setAttribute(name: string, value: unknown) {
    const found = this.attributes.find((a) => a.name === name);
    if (found) found.value = String(value);
    else this.attributes.push({ name, value: String(value) });
  }
  getAttribute(name: string): string | null {
    return this.attributes.find((a) => a.name === name)?.value ?? null;
  }
  hasAttribute(name: string) {
    return this.getAttribute(name) !== null;
  }
  removeAttribute(name: string) {
    const i = this.attributes.findIndex((a) => a.name === name);
    if (i !== -1) this.attributes.splice(i, 1);
  }
  play() {
    this.paused = false;
    return Promise.resolve();
  }
  pause() {
    this.paused = true;
  }
  load() {}
  focus() {}
  blur() {}
  click() {
    this.dispatchEvent(new FakeEvent('click'));
  }
  scrollIntoView() {}
  scrollTo() {}
  /** Every element below this one (depth first) that passes the test. */
  findAll(test: (el: FakeElement) => boolean): FakeElement[] {
    const out: FakeElement[] = [];
    const walk = (n: FakeNode) => {
      for (const c of n.childNodes) {
        if (c instanceof FakeElement) {
          if (test(c)) out.push(c);
          walk(c);
        }
      }
    };
    walk(this);
    return out;
  }
}

export class FakeDocument extends FakeNode {
  readonly documentElement: FakeElement;
  readonly body: FakeElement;
  constructor() {
    super(9, null);
    this.documentElement = new FakeElement('html', this);
    this.body = new FakeElement('body', this);
    this.appendChild(this.documentElement);
    this.documentElement.appendChild(this.body);
  }
  createElement(name: string) {
    return new FakeElement(name.toLowerCase(), this);
  }
  createElementNS(_ns: string | null, name: string) {
    return new FakeElement(name, this);
  }
  createTextNode(data: string) {
    return new FakeText(String(data), this);
  }
}

/** Installs the fake browser globals; returns the document. Call before importing renderer modules. */
export function installFakeDom(url = 'http://tonearm.test/'): FakeDocument {
  const doc = new FakeDocument();
  const storage = new Map<string, string>();
  const location = new URL(url);
  const windowListeners = new FakeNode(0, doc);
  const win = {
    location,
    history: {
      pushState: (_s: unknown, _t: string, to: string) => void (location.href = new URL(to, location.href).href),
      replaceState: (_s: unknown, _t: string, to: string) => void (location.href = new URL(to, location.href).href),
    },
    addEventListener: windowListeners.addEventListener.bind(windowListeners),
    removeEventListener: windowListeners.removeEventListener.bind(windowListeners),
    scrollTo: () => {},
    matchMedia: () => ({ matches: false, addEventListener() {}, removeEventListener() {} }),
  };
  const g = globalThis as Record<string, unknown>;
  g.document = doc;
  g.window = win;
  g.history = win.history;
  g.location = location;
  g.localStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => void storage.set(k, String(v)),
    removeItem: (k: string) => void storage.delete(k),
    clear: () => storage.clear(),
  };
  g.requestAnimationFrame = (fn: (t: number) => void) => setTimeout(() => fn(Date.now()), 0);
  g.cancelAnimationFrame = (id: ReturnType<typeof setTimeout>) => clearTimeout(id);
  g.Event = FakeEvent;
  if (!('navigator' in globalThis)) g.navigator = { userAgent: 'fake-dom' };
  return doc;
}

/** The visible text of an element with whitespace collapsed. */
export const textOf = (el: FakeNode) => el.textContent.replace(/\s+/g, ' ').trim();
