export class DownloadWorkerError extends Error {
  constructor(readonly status: number) {
    super(
      status === 401 || status === 403
        ? 'Sign in to Tonearm as an administrator to pause or resume downloads.'
        : `The server answered ${status} when asked to pause or resume downloads.`,
    );
    this.name = 'DownloadWorkerError';
  }
}

/** Pauses (stops) or resumes (starts) the server's download worker for the tray. */
export async function setDownloadsPaused(
  serverUrl: string,
  token: string,
  paused: boolean,
  fetchFn: typeof fetch = fetch,
): Promise<void> {
  const response = await fetchFn(new URL(`${serverUrl}/api/playlists/worker/${paused ? 'stop' : 'start'}`), {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (!response.ok) throw new DownloadWorkerError(response.status);
}

/**
 * Whether this server build has a download worker to pause: its OpenAPI document lists the
 * worker routes only once they exist. Unreachable or unreadable → false (the tray item stays off).
 */
export async function downloadWorkerAvailable(serverUrl: string, fetchFn: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetchFn(new URL(`${serverUrl}/api/openapi.json`), { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return false;
    const doc = (await response.json()) as { paths?: Record<string, unknown> };
    return Boolean(doc.paths?.['/api/playlists/worker/stop'] && doc.paths?.['/api/playlists/worker/start']);
  } catch {
    return false;
  }
}
