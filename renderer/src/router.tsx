import type { ComponentChildren } from 'preact';
import { createStore, useStore } from './store';
import { stripBase, withBase } from './base';

/** Client-side routes over the History API; the server answers every UI path with index.html. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: stripBase(window.location.pathname), query: new URLSearchParams(window.location.search) });

export const location = createStore<Location>(read());

window.addEventListener('popstate', () => location.set(read()));

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const current = window.location.pathname + window.location.search;
  const target = withBase(to);
  if (target === current) return;
  if (options.replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  location.set(read());
  if (!options.replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  return useStore(location);
}

/** Matches `/library/artists/:id` style patterns; returns the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    if (part.startsWith(':')) out[part.slice(1)] = decodeURIComponent(s[i]!);
    else if (part !== s[i]) return null;
  }
  return out;
}

interface LinkProps {
  href: string;
  children?: ComponentChildren;
  class?: string;
  'aria-label'?: string;
  'aria-current'?: 'page' | undefined;
}

/** A real link (works with middle-click and the keyboard) that navigates without reloading. */
export function Link({ href, children, ...rest }: LinkProps) {
  const path = useLocation().path;
  const active = path === href || (href !== '/' && path.startsWith(href + '/'));
  return (
    <a
      aria-current={active ? 'page' : undefined}
      {...rest}
      href={withBase(href)}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
