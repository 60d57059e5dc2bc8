/** Counts upstream calls; a refresh never asks more than its budget. */
export class CallBudget {
  used = 0;
  constructor(readonly limit: number) {}
  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }
  take(): boolean {
    if (this.used >= this.limit) return false;
    this.used++;
    return true;
  }
}
