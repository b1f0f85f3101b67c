import { sha256 } from '../contracts/canonical-json.js';
import type { DecisionLogEntry } from '../contracts/explorer-state.js';

/**
 * Anti-stall thresholds (seed 004's two signals): `noChangeTurns` steps in a row that left the plan as it
 * was (a refused answer, or nothing applied), and `repeatedCalls` identical tool calls in a row.
 */
export interface StallPolicy {
  noChangeTurns: number;
  repeatedCalls: number;
}

export const DEFAULT_STALL_POLICY: StallPolicy = { noChangeTurns: 3, repeatedCalls: 3 };

/** A stall the decision log shows, with the sentence that says why. */
export interface Stall {
  kind: 'no_plan_change' | 'repeated_call';
  /** Steps the signal spans (the trailing ones). */
  steps: number;
  reason: string;
}

/**
 * The signature of a tool call: its name and its input without the free-text reasoning (a model that
 * sends the same diff with new words is still repeating itself). First 16 hex of a sha256.
 */
export function callSignature(call: { name: string; input: unknown } | undefined, text = ''): string {
  if (!call) return sha256({ text: text.trim() }).slice(0, 16);
  const input = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? Object.fromEntries(Object.entries(call.input).filter(([k]) => k !== 'reasoning')) : call.input;
  return sha256({ name: call.name, input: input ?? null }).slice(0, 16);
}

const unchanged = (e: DecisionLogEntry) => e.rejected !== undefined || Object.keys(e.config_diff ?? {}).length === 0;

/**
 * The stall the log's trailing steps show, counted from `fromStep` on (steps before it — the economy
 * model's, once the session escalated — do not count): identical calls first, then no plan change.
 */
export function detectStall(log: readonly DecisionLogEntry[], policy: StallPolicy, fromStep = 0): Stall | undefined {
  const recent = log.filter((e) => e.step > fromStep);
  let same = 0;
  const last = recent[recent.length - 1]?.call_signature;
  for (let i = recent.length - 1; i >= 0 && last !== undefined && recent[i]!.call_signature === last; i--) same++;
  if (policy.repeatedCalls > 0 && same >= policy.repeatedCalls) return { kind: 'repeated_call', steps: same, reason: `the same tool call was made ${same} times in a row (steps ${recent[recent.length - same]!.step}-${recent[recent.length - 1]!.step})` };
  let flat = 0;
  for (let i = recent.length - 1; i >= 0 && unchanged(recent[i]!); i--) flat++;
  if (policy.noChangeTurns > 0 && flat >= policy.noChangeTurns) return { kind: 'no_plan_change', steps: flat, reason: `the plan has not changed for ${flat} steps (steps ${recent[recent.length - flat]!.step}-${recent[recent.length - 1]!.step})` };
  return undefined;
}
