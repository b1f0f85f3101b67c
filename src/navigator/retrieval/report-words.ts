/**
 * Words of a bug report's own prose — how the writer tells the story (`reported`, `recently introduced`,
 * `regression`, `seems`, `instead`, `workaround`) — that name no code. A code base holds them only in a few comments,
 * so they are rare there and plain weighting by rarity gives them the most weight of all the task's words: "Fix panic
 * reported in discourse" ranked first the files whose comments say "reported". They are dropped as magic words unless
 * written as code (`` `reported` ``, `instead()`, `a.seems`), like stop words. Switch: `report-words`.
 */
import { ablated } from './ablation.js';

export const REPORT_WORDS: ReadonlySet<string> = new Set(
  `reported reporting recently introduced introduces regression regressions regressed fixes fixed fixing happens
happened happening seems seemed seem currently instead actually unexpected unexpectedly reproduce reproduced
reproducible reproduction reproducing workaround upgraded upgrading anymore already noticed tried trying thanks
hello appreciated apparently basically obviously somehow suddenly unfortunately weird strange strangely`.split(/\s+/),
);

/** Whether a word (lower case) is a bug report's own prose word, while the rule is on. */
export function isReportWord(w: string): boolean {
  return REPORT_WORDS.has(w) && !ablated('report-words');
}
