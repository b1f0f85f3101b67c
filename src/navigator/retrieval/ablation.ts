/**
 * Switches a ranking rule off for measurement only (the ablation table of a quality report):
 * `NAVKERNEL_ABLATE=rule-a,rule-b`. Read once a process; unset in normal use, so every rule is on.
 */
const OFF = new Set((process.env.NAVKERNEL_ABLATE ?? '').split(',').map((s) => s.trim()).filter(Boolean));

/** Whether the named rule is switched off for this process. */
export function ablated(rule: string): boolean {
  return OFF.has(rule);
}
