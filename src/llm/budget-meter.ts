/** Default USD budget per run (seed 000's max_spend_usd). */
export const DEFAULT_BUDGET_USD = 2.0;

/** Spend against a USD limit: check before a call with an estimate, charge after it with the actual cost. */
export class BudgetMeter {
  readonly limitUsd: number;
  private spent: number;
  constructor(limitUsd: number = DEFAULT_BUDGET_USD, spentUsd = 0) {
    if (!(limitUsd >= 0)) throw new RangeError('budget limit must be >= 0');
    this.limitUsd = limitUsd;
    this.spent = spentUsd;
  }
  get spentUsd(): number {
    return this.spent;
  }
  get remainingUsd(): number {
    return Math.max(0, this.limitUsd - this.spent);
  }
  /** True when a call estimated at `estimateUsd` cannot take the spend past the limit. */
  canAfford(estimateUsd: number): boolean {
    // A small epsilon so that rounding of already-rounded costs never blocks a call that fits exactly.
    return this.spent + estimateUsd <= this.limitUsd + 1e-12;
  }
  charge(usd: number): void {
    this.spent = Math.round((this.spent + usd) * 1e9) / 1e9;
  }
}
