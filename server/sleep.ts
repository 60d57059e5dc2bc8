/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts. The abort listener is
 * removed when the wait ends, so a loop that polls every half second with one long-lived signal
 * does not pile listeners onto it (Node warns past ten: MaxListenersExceededWarning).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
