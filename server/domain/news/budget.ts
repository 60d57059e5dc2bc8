import type { Db } from '../../db/connection.js';
import { upstreamBudgetCalls } from '../../db/news.js';

export const BUDGET_WINDOW_MS = 24 * 3600_000;

/**
 * A rolling 24-hour request budget for a rate-limited upstream (NewsAPI), shared by every feature
 * that asks it (news, inbox digests, discovery). A call is recorded before it is made, inside one
 * synchronous SQLite transaction, so two callers can never both take the last request.
 */
export class RequestBudget {
  constructor(
    private readonly db: Db,
    private readonly clock: { now(): number },
  ) {}

  used(service: string): number {
    const since = this.clock.now() - BUDGET_WINDOW_MS;
    return upstreamBudgetCalls.countSince(this.db, service, since);
  }

  remaining(service: string, limit: number): number {
    return Math.max(0, limit - this.used(service));
  }

  /** Takes one request from the budget; false (nothing recorded) when it is used up. */
  take(service: string, limit: number, purpose: string): boolean {
    return this.db.transaction(() => {
      const now = this.clock.now();
      upstreamBudgetCalls.pruneUpTo(this.db, service, now - BUDGET_WINDOW_MS);
      if (this.used(service) >= limit) return false;
      upstreamBudgetCalls.record(this.db, service, purpose, now);
      return true;
    }).immediate();
  }
}
