import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { z } from 'zod';

export interface DesktopNotification {
  title: string;
  body: string;
  onClick: () => void;
}

export interface BlockedJobNotifierOptions {
  /** Base URL of the running server (`http://127.0.0.1:3001`), or null while it is not running. */
  serverUrl: () => string | null;
  /** The desktop user's session token, or null before sign-in. */
  getToken: () => Promise<string | null>;
  notify: (notification: DesktopNotification) => void;
  /** Shows the review screen (`/review`). */
  openReview: () => void;
  /** Blocked jobs arriving this close together share one notification. */
  groupWindowMs?: number;
  reconnectDelayMs?: { initial: number; max: number };
  /** How often to look for a (new) token while there is none that the server accepts. */
  tokenPollMs?: number;
  /** A ping goes out this often; a socket silent for two periods is dropped and reconnected. */
  heartbeatMs?: number;
}

export interface BlockedJobNotifierEvents {
  connected: [];
  reconnecting: [{ delayMs: number; closeCode: number }];
  unauthorized: [{ closeCode: number }];
}

const AUTH_CLOSE_CODES = new Set([4401, 4403]);
const LISTED_IN_GROUP = 3;

const blockedJobMessage = z.object({
  type: z.literal('job_blocked'),
  job: z.object({
    id: z.string().min(1),
    artistName: z.string().optional(),
    trackName: z.string().optional(),
  }),
});

type BlockedJob = z.infer<typeof blockedJobMessage>['job'];

/**
 * Listens to the server's `/ws` playlists channel and raises one native notification per blocked
 * download job (grouped when several arrive together), so the desktop user knows to review them.
 */
export class BlockedJobNotifier extends EventEmitter<BlockedJobNotifierEvents> {
  private readonly options: Required<BlockedJobNotifierOptions>;
  private socket: WebSocket | null = null;
  private running = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private groupTimer: NodeJS.Timeout | undefined;
  private failedAttempts = 0;
  private rejectedToken: string | null = null;
  private lastHeard = 0;
  private readonly notifiedJobIds = new Set<string>();
  private pending: BlockedJob[] = [];

  constructor(options: BlockedJobNotifierOptions) {
    super();
    this.options = {
      groupWindowMs: 1_500,
      reconnectDelayMs: { initial: 1_000, max: 30_000 },
      tokenPollMs: 5_000,
      heartbeatMs: 30_000,
      ...options,
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    clearTimeout(this.groupTimer);
    clearInterval(this.heartbeatTimer);
    this.pending = [];
    const socket = this.socket;
    this.socket = null;
    socket?.removeAllListeners();
    socket?.on('error', () => {});
    socket?.terminate();
  }

  /** Call when the token may have changed (sign-in, server restart): connects now if not connected. */
  reconnectNow(): void {
    if (!this.running || this.socket) return;
    clearTimeout(this.retryTimer);
    this.failedAttempts = 0;
    void this.connect();
  }

  private async connect(): Promise<void> {
    this.retryTimer = undefined;
    const serverUrl = this.options.serverUrl();
    const token = serverUrl ? await this.options.getToken() : null;
    if (!this.running || this.socket) return;
    if (!serverUrl || !token || token === this.rejectedToken) {
      this.retryTimer = setTimeout(() => void this.connect(), this.options.tokenPollMs);
      return;
    }
    this.rejectedToken = null;
    const url = new URL(`${serverUrl}/ws`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', token);
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.on('open', () => {
      this.lastHeard = Date.now();
      socket.send(JSON.stringify({ type: 'subscribe', channels: ['playlists'] }));
      this.heartbeatTimer = setInterval(() => this.heartbeat(socket), this.options.heartbeatMs);
    });
    socket.on('message', (data) => this.onMessage(data.toString()));
    socket.on('error', () => {}); // a 'close' always follows
    socket.on('close', (code) => this.onClose(socket, token, code));
  }

  private heartbeat(socket: WebSocket): void {
    if (Date.now() - this.lastHeard > 2 * this.options.heartbeatMs) {
      socket.terminate();
      return;
    }
    socket.send(JSON.stringify({ type: 'ping' }));
  }

  private onMessage(text: string): void {
    this.lastHeard = Date.now();
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if ((message as { type?: unknown } | null)?.type === 'connected') {
      this.failedAttempts = 0;
      this.emit('connected');
      return;
    }
    const blocked = blockedJobMessage.safeParse(message);
    if (blocked.success) this.onJobBlocked(blocked.data.job);
  }

  private onClose(socket: WebSocket, token: string, code: number): void {
    clearInterval(this.heartbeatTimer);
    if (this.socket !== socket) return;
    this.socket = null;
    if (!this.running) return;
    if (AUTH_CLOSE_CODES.has(code)) {
      // Retrying with the same token cannot work; wait until getToken() returns another one.
      this.rejectedToken = token;
      this.failedAttempts = 0;
      this.emit('unauthorized', { closeCode: code });
      this.retryTimer = setTimeout(() => void this.connect(), this.options.tokenPollMs);
      return;
    }
    const { initial, max } = this.options.reconnectDelayMs;
    const delayMs = Math.min(initial * 2 ** this.failedAttempts, max);
    this.failedAttempts++;
    this.emit('reconnecting', { delayMs, closeCode: code });
    this.retryTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private onJobBlocked(job: BlockedJob): void {
    if (this.notifiedJobIds.has(job.id)) return;
    this.notifiedJobIds.add(job.id);
    this.pending.push(job);
    this.groupTimer ??= setTimeout(() => this.flush(), this.options.groupWindowMs);
  }

  private flush(): void {
    this.groupTimer = undefined;
    const jobs = this.pending;
    this.pending = [];
    if (jobs.length === 0 || !this.running) return;
    this.options.notify({ ...blockedJobsNotice(jobs), onClick: () => this.options.openReview() });
  }
}

/** Title and body of the notice for jobs that arrived together. */
export function blockedJobsNotice(jobs: BlockedJob[]): { title: string; body: string } {
  const [first] = jobs;
  if (jobs.length === 1 && first) {
    return { title: 'A download needs review', body: `${describeJob(first)} was held back. Click to review it.` };
  }
  const listed = jobs.slice(0, LISTED_IN_GROUP).map(describeJob).join(', ');
  const more = jobs.length > LISTED_IN_GROUP ? ` and ${jobs.length - LISTED_IN_GROUP} more` : '';
  return { title: `${jobs.length} downloads need review`, body: `${listed}${more}. Click to review them.` };
}

function describeJob(job: BlockedJob): string {
  if (job.artistName && job.trackName) return `${job.artistName} – ${job.trackName}`;
  return job.trackName ?? job.artistName ?? 'A track';
}
