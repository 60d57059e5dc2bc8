import { useEffect, useRef, useState } from 'preact/hooks';
import { canonicalPage, type CanonicalParams, type Kind, type KindItems } from './model';

export interface Paged<T> {
  items: T[];
  total: number;
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  loadMore: () => void;
  reload: () => void;
  update: (fn: (items: T[]) => T[]) => void;
}

/** Bounded canonical pages appended one after another as the list is scrolled. */
export function usePaged<K extends Kind>(kind: K, params: CanonicalParams, pageSize?: number): Paged<KindItems[K]> {
  const [items, setItems] = useState<KindItems[K][]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [hasMore, setHasMore] = useState(true);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const key = JSON.stringify([kind, params, pageSize]);
  const inflight = useRef<AbortController | null>(null);

  const fetchPage = (n: number, replace: boolean) => {
    inflight.current?.abort();
    const ctl = new AbortController();
    inflight.current = ctl;
    setLoading(true);
    setError(null);
    canonicalPage(kind, n, params, ctl.signal, pageSize).then(
      (result) => {
        if (ctl.signal.aborted) return;
        setItems((prev) => (replace ? result.items : [...prev, ...result.items]));
        setTotal(result.total);
        setHasMore(result.hasMore);
        setPage(n);
        setLoading(false);
      },
      (err: unknown) => {
        if (ctl.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
  };

  useEffect(() => {
    fetchPage(1, true);
    return () => inflight.current?.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, generation]);

  return {
    items,
    total,
    hasMore,
    loading,
    error,
    loadMore: () => {
      if (!loading && hasMore && !error) fetchPage(page + 1, false);
    },
    reload: () => setGeneration((g) => g + 1),
    update: (fn) => setItems(fn),
  };
}

/** Calls `onVisible` when the sentinel element scrolls into view (infinite scrolling). */
export function useSentinel(onVisible: () => void, enabled: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const callback = useRef(onVisible);
  callback.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el || !enabled) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) callback.current();
    }, { rootMargin: '400px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [enabled]);
  return ref;
}
