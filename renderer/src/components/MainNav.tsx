import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Link, useLocation } from '../router';

/** One entry of the main navigation; `primary` entries stay in the bar, the rest are under "More". */
export interface NavEntry {
  href: string;
  label: string;
  primary?: boolean;
  /** Shown only when this capability is there for the user (see App.tsx): `flows` is the “Flows and review” permission. */
  needs?: 'flows' | 'inbox';
}

/** A count shown on an entry (the inbox's unread items), with the words a screen reader says. */
export interface NavBadge {
  text: string;
  label: string;
}

/** Whether `href` is the page at `path` (or one of its sub-pages), as Link marks it. */
export const isCurrent = (href: string, path: string) => path === href || (href !== '/' && path.startsWith(href + '/'));

/** The gap kept between an open menu and the window's edges, in CSS pixels. */
export const MENU_MARGIN = 8;

/**
 * How far (px) to move a menu sideways so it lies inside a window `width` wide with `margin` to
 * spare on both sides: right when it starts past the left edge, left when it ends past the right
 * one; a menu wider than the room starts at the left margin.
 */
export function menuShift(left: number, right: number, width: number, margin = MENU_MARGIN): number {
  if (left < margin) return margin - left;
  if (right > width - margin) return Math.max(width - margin - right, margin - left);
  return 0;
}

/**
 * The main navigation: the primary entries in the bar and the others in a "More" menu (a disclosure
 * button: Escape closes it and gives the focus back to the button, as does choosing an entry or
 * clicking elsewhere). The current page is marked with aria-current, and "More" says when it holds it.
 */
export function MainNav({ entries, badges = {} }: { entries: readonly NavEntry[]; badges?: Record<string, NavBadge | undefined> }) {
  const path = useLocation().path;
  // The path the menu was opened at: going elsewhere closes it.
  const [openAt, setOpenAt] = useState<string | null>(null);
  const open = openAt === path;
  const setOpen = (next: boolean) => setOpenAt(next ? path : null);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // The most specific entry wins (/library/favorites over /library).
  const current = entries.filter((e) => isCurrent(e.href, path)).sort((a, b) => b.href.length - a.href.length)[0]?.href ?? null;
  const primary = entries.filter((e) => e.primary);
  const more = entries.filter((e) => !e.primary);
  const moreHoldsCurrent = more.some((e) => e.href === current);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      const target = e.target as Node | null;
      if (wrap.current && target && !wrap.current.contains(target)) setOpen(false);
    };
    document.addEventListener('click', away);
    return () => document.removeEventListener('click', away);
  }, [open]);
  // The open menu is kept inside the window whatever the bar's layout (the button wraps to either side on a phone).
  useLayoutEffect(() => {
    const el = list.current;
    if (!open || !el) return;
    const place = () => {
      el.style.transform = '';
      const r = el.getBoundingClientRect();
      const dx = menuShift(r.left, r.right, document.documentElement.clientWidth || window.innerWidth);
      if (dx !== 0) el.style.transform = `translateX(${Math.round(dx)}px)`;
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
  }, [open]);
  const item = (e: NavEntry) => {
    const badge = badges[e.href];
    return (
      <li key={e.href}>
        <Link href={e.href} aria-current={e.href === current ? 'page' : undefined} aria-label={badge?.label}>
          {e.label}
          {badge && (
            <span class="nav-badge" aria-hidden="true">
              {badge.text}
            </span>
          )}
        </Link>
      </li>
    );
  };
  return (
    <nav class="mainnav" aria-label="Main">
      <ul class="mainnav-primary">{primary.map(item)}</ul>
      {more.length > 0 && (
        <div
          class="mainnav-more"
          ref={wrap}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && open) {
              setOpen(false);
              button.current?.focus();
            }
          }}
        >
          <button
            type="button"
            ref={button}
            class={`mainnav-more-button${moreHoldsCurrent ? ' holds-current' : ''}`}
            aria-expanded={open ? 'true' : 'false'}
            aria-controls="mainnav-more-list"
            onClick={() => setOpen(!open)}
          >
            More{moreHoldsCurrent && <span class="visually-hidden"> (current page inside)</span>}
            <span aria-hidden="true"> ▾</span>
          </button>
          <ul id="mainnav-more-list" class="mainnav-more-list" hidden={!open} ref={list}>
            {more.map(item)}
          </ul>
        </div>
      )}
    </nav>
  );
}
