/**
 * Stops hammering a service that keeps failing: after `failureThreshold` consecutive failures the
 * breaker opens for `openMs`; while open, callers are refused at once. After the window one call is
 * let through; its success closes the breaker, its failure opens it again for another window.
 */
export interface CircuitBreakerOptions {
  failureThreshold?: number;
  openMs?: number;
  /** Time source in ms; injectable so tests can move past the window without waiting. */
  now?: () => number;
}

export class CircuitBreaker {
  private readonly failureThreshold: number;
  private readonly openMs: number;
  private readonly now: () => number;
  private consecutiveFailures = 0;
  private openedAt: number | null = null;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = options.failureThreshold ?? 3;
    this.openMs = options.openMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** True while calls are refused. */
  get isOpen(): boolean {
    return this.openedAt !== null && this.now() - this.openedAt < this.openMs;
  }

  /** Milliseconds until a call is let through again (0 when closed). */
  get retryInMs(): number {
    if (this.openedAt === null) return 0;
    return Math.max(0, this.openMs - (this.now() - this.openedAt));
  }

  recordSuccess(): void {
    this.consecutiveFailures = 0;
    this.openedAt = null;
  }

  recordFailure(): void {
    this.consecutiveFailures++;
    const halfOpenTrial = this.openedAt !== null;
    if (halfOpenTrial || this.consecutiveFailures >= this.failureThreshold) this.openedAt = this.now();
  }
}
