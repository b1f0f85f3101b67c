/** Default USD budget per run (seed 000's max_spend_usd). */
export const DEFAULT_BUDGET_USD = 2.0;
