import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorText } from '../api';
import { notConfiguredPlace, type SettingPlace } from '../messages';
import { Link } from '../router';
import { isAdmin, session } from '../session';
import { useStore } from '../store';

/** Shown while work runs, so a screen is never blank. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/**
 * Scrolls a message that just appeared into view when it is off screen or under the fixed player
 * bar (its CSS scroll-margin keeps it clear of the bar and the top bar). `key` re-reveals on change.
 */
export function useReveal<T extends HTMLElement>(key: unknown = true, onMount = true) {
  const ref = useRef<T>(null);
  const mounted = useRef(false);
  useEffect(() => {
    const first = !mounted.current;
    mounted.current = true;
    if (key && (onMount || !first)) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [key]);
  return ref;
}

/**
 * Where something missing is set up: a link that opens its card for an administrator, else who to
 * ask. `place` from messages.ts (settingPlace, notConfiguredPlace).
 */
export function SetUpPointer({ place }: { place: SettingPlace }) {
  const admin = isAdmin(useStore(session).user);
  return admin ? (
    <Link href={place.href} class="setup-link">
      Open {place.place}
    </Link>
  ) : (
    <span>Ask an administrator to add {place.what}.</span>
  );
}

export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const ref = useReveal<HTMLDivElement>(error ? errorText(error) : null);
  if (!error) return null;
  // Something not set up: "Try again" would fail the same way; say where it is set up instead.
  const place = error instanceof ApiError ? notConfiguredPlace(error.body) : null;
  return (
    <div class="error" role="alert" ref={ref}>
      <span>{errorText(error)}</span>
      {place && (
        <>
          {' '}
          <SetUpPointer place={place} />
        </>
      )}
      {onRetry && !place && (
        <button type="button" class="link-button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** `reveal` (default): scrolled into view when it appears, as the answer to what the user just did. */
export function Notice({ children, tone = 'info', reveal = true }: { children: ComponentChildren; tone?: 'info' | 'success' | 'warn'; reveal?: boolean }) {
  const ref = useReveal<HTMLDivElement>(reveal);
  return (
    <div class={`notice notice-${tone}`} role="status" ref={ref}>
      {children}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-body">{children}</div>}
    </div>
  );
}

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  type?: 'text' | 'password' | 'url' | 'search';
  value: string;
  onInput: (e: Event & { currentTarget: HTMLInputElement }) => void;
  placeholder?: string | undefined;
  autoComplete?: string;
  required?: boolean;
  autoFocus?: boolean;
}

export function Field({ label, hint, id, type = 'text', value, onInput, placeholder, autoComplete, required, autoFocus }: FieldProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type={type as 'text'}
        value={value}
        onInput={onInput}
        placeholder={placeholder}
        autoComplete={autoComplete}
        required={required}
        autoFocus={autoFocus}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function Card({ title, children, actions, id }: { title?: string; children: ComponentChildren; actions?: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={title && id ? `${id}-title` : undefined}>
      {(title || actions) && (
        <header class="card-header">
          {title && <h2 id={id ? `${id}-title` : undefined}>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (value: T) => void;
}

/** Runs a request when its inputs change, keeping the last good data while a new one loads. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setLoading(true);
    setError(null);
    load(ctl.signal).then(
      (value) => {
        if (ctl.signal.aborted) return;
        setData(value);
        setLoading(false);
      },
      (err: unknown) => {
        if (ctl.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => ctl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload, setData };
}

/** Runs one user action at a time: busy while it runs, its error afterwards. */
export function useAction<A extends unknown[]>(run: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const trigger = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await run(...args);
    } catch (err) {
      if (mounted.current) setError(err);
    } finally {
      if (mounted.current) setBusy(false);
    }
  };
  return { busy, error, trigger, setError };
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '0:00';
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}
