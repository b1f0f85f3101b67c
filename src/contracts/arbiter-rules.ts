// Tier 3 is the arbiter (docs/kernel.md): its rules are named after it. Ledgers and histories recorded before the
// rename say "navigator" (the seed's word for tier 3); they are read as the names of today, never rewritten (their
// bytes are hash-chained), so audit, replay and the UI treat an old run and a new one alike.
import type { Decision } from './decision.js';

/** Tier 3 chose a legal candidate move. */
export const ARBITER_RULE = 'arbiter';
/** Tier 3 was skipped: no arbiter configured. */
export const ARBITER_UNAVAILABLE = 'arbiter_unavailable';
/** Tier 3 was skipped: the arbiter failed (a model error, a timeout). */
export const ARBITER_ERROR = 'arbiter_error';

/** The former names of the arbiter's rules, as older ledgers recorded them → today's. */
export const FORMER_RULE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  navigator: ARBITER_RULE,
  navigator_unavailable: ARBITER_UNAVAILABLE,
  navigator_error: ARBITER_ERROR,
});

/** A rule name as today's kernel names it (a former name mapped, any other unchanged). */
export function currentRuleName(rule: string): string {
  return Object.hasOwn(FORMER_RULE_NAMES, rule) ? FORMER_RULE_NAMES[rule]! : rule;
}

/**
 * A recorded decision with former rule names read as today's: its rule, and the rules of its rejected moves and
 * skipped tiers. The same object when there is nothing to map (most decisions), else a copy.
 */
export function withCurrentRuleNames(d: Decision): Decision {
  const former = (rule: string) => Object.hasOwn(FORMER_RULE_NAMES, rule);
  if (!former(d.rule) && !d.rejected?.some((r) => former(r.rule)) && !d.skipped?.some((s) => former(s.rule))) return d;
  return {
    ...d,
    rule: currentRuleName(d.rule),
    ...(d.rejected ? { rejected: d.rejected.map((r) => (former(r.rule) ? { ...r, rule: currentRuleName(r.rule) } : r)) } : {}),
    ...(d.skipped ? { skipped: d.skipped.map((s) => (former(s.rule) ? { ...s, rule: currentRuleName(s.rule) } : s)) } : {}),
  };
}

/** Counts by tier, rule and decision (as the ledger groups its rows) with former rule names read as today's and merged. */
export function currentRuleCounts<T extends { tier: number; rule: string; decision: string; count: number }>(counts: readonly T[]): T[] {
  const merged = new Map<string, T>();
  for (const c of counts) {
    const rule = currentRuleName(c.rule);
    const key = `${c.tier}\u0000${rule}\u0000${c.decision}`;
    const seen = merged.get(key);
    if (seen) merged.set(key, { ...seen, count: seen.count + c.count });
    else merged.set(key, rule === c.rule ? c : { ...c, rule });
  }
  // In the ledger's own order (ORDER BY tier, rule, decision), which a renamed rule may have moved.
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...merged.values()].sort((a, b) => a.tier - b.tier || cmp(a.rule, b.rule) || cmp(a.decision, b.decision));
}
