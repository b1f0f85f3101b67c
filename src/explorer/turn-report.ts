import type { NavigatorState } from '../contracts/explorer-state.js';
import type { TurnReport } from '../contracts/explorer-report.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import type { MapFile } from '../repomap/index.js';
import { FINALIZE_TOOL } from './tools.js';

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const clampPct = (x: number) => Math.min(100, Math.max(0, round(x, 2)));

/**
 * Excluded areas: files at L0 collapsed to the highest directory whose files are all at L0 (`tests/`),
 * sorted; at most `max` entries.
 */
export function excludedAreas(files: MapFile[], max = 20): string[] {
  const excluded = new Set(files.filter((f) => f.level === 0).map((f) => f.path));
  const out = new Set<string>();
  for (const p of [...excluded].sort()) {
    const segs = p.split('/');
    let area = p;
    for (let d = 1; d < segs.length; d++) {
      const dir = `${segs.slice(0, d).join('/')}/`;
      if (files.every((f) => !f.path.startsWith(dir) || excluded.has(f.path))) {
        area = dir;
        break;
      }
    }
    out.add(area);
  }
  return [...out].slice(0, max);
}

/** What the last step did, in words. */
function lastAction(state: NavigatorState): string {
  const e = state.decision_log[state.decision_log.length - 1];
  if (!e) return 'Initial scan';
  if (e.rejected) return `Rejected ${e.rejected.tool ?? 'answer'}: ${e.rejected.reason}`;
  if (e.action === FINALIZE_TOOL) return 'Finalized context';
  const d = e.config_diff;
  const parts: string[] = [];
  if (d.budget !== undefined) parts.push(`budget ${d.budget}`);
  for (const r of d.verbosity ?? []) parts.push(r.level !== undefined ? `${r.pattern} to L${r.level}` : `${r.pattern} sections`);
  if (d.focus === null) parts.push('focus cleared');
  for (const p of d.focus?.paths ?? []) parts.push(`boost ${p.pattern}`);
  for (const s of d.focus?.symbols ?? []) parts.push(`boost symbol ${s.name}`);
  if (d.custom_queries?.length) parts.push(`${d.custom_queries.length} custom quer${d.custom_queries.length === 1 ? 'y' : 'ies'}`);
  return `Updated flight plan: ${parts.join(', ')}`;
}

/** The TurnReport of the state after its last step (reference/turn-report-schema.md). */
export function buildTurnReport(state: NavigatorState, files: MapFile[], timestamp: Date): TurnReport {
  const b = state.budget_config;
  const last = state.decision_log[state.decision_log.length - 1];
  const m = state.map_metadata;
  return {
    step_number: Math.max(1, state.decision_log.length),
    timestamp: timestamp.toISOString(),
    cost_this_turn: last?.cost_usd ?? 0,
    total_cost: b.current_spend_usd,
    budget_remaining: Math.max(0, round(b.max_spend_usd - b.current_spend_usd, 9)),
    budget_percentage: clampPct((b.current_spend_usd / b.max_spend_usd) * 100),
    map_size_tokens: m.total_tokens,
    token_budget: state.flight_plan.budget,
    token_utilization: clampPct((m.total_tokens / state.flight_plan.budget) * 100),
    file_count: m.file_count,
    focus_areas: files.filter((f) => f.level >= 3).map((f) => ({ path: f.path, verbosity_level: f.level, token_contribution: f.tokens })),
    excluded_areas: excludedAreas(files),
    last_action: lastAction(state),
    reasoning: last?.reasoning ?? '',
    is_complete: state.exploration_complete,
    completion_reason: state.completion_reason,
  };
}

const usd = (x: number) => `$${x.toFixed(4)}`;
const int = (x: number) => x.toLocaleString('en-US');

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    if (para.length <= width) {
      out.push(para);
      continue;
    }
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out.flatMap((l) => (l.length > width ? l.match(new RegExp(`.{1,${width}}`, 'g')) ?? [l] : [l]));
}

/** The compact box of reference/turn-report-schema.md. */
export function formatTurnReport(r: TurnReport, width = 75): string {
  const inner = width - 4;
  const row = (s: string) => `│ ${s.padEnd(inner)} │`;
  const focus = r.focus_areas.length ? r.focus_areas.map((f) => `${f.path} (L${f.verbosity_level})`).join(', ') : '(none)';
  const lines = [
    `┌${'─'.repeat(width - 2)}┐`,
    row(`TURN REPORT - Step ${r.step_number}${r.is_complete ? ` (complete: ${r.completion_reason ?? 'done'})` : ''}`),
    `├${'─'.repeat(width - 2)}┤`,
    ...wrap(`Cost:  ${usd(r.cost_this_turn)} this turn | ${usd(r.total_cost)} total (${(r.budget_percentage ?? 0).toFixed(1)}% of ${usd(r.total_cost + r.budget_remaining)})`, inner).map(row),
    ...wrap(`Size:  ${int(r.map_size_tokens)} tokens (${Math.round(r.token_utilization ?? 0)}% of ${int(r.token_budget)}) | ${r.file_count} files`, inner).map(row),
    row(''),
    ...wrap(`Focus: ${focus}`, inner).map(row),
    ...(r.excluded_areas?.length ? wrap(`Excluded: ${r.excluded_areas.join(', ')}`, inner).map(row) : []),
    row(''),
    ...wrap(`Action: ${r.last_action}`, inner).map(row),
    ...wrap(`Reason: ${r.reasoning || '(none)'}`, inner).map(row),
    `└${'─'.repeat(width - 2)}┘`,
  ];
  return lines.join('\n') + '\n';
}

/** One progress line per step for autonomous runs (stderr on a terminal). */
export function progressLine(r: TurnReport): string {
  return `Step ${r.step_number}: ${r.last_action}\n  → ${int(r.map_size_tokens)} tokens (${Math.round(r.token_utilization ?? 0)}% of ${int(r.token_budget)}) | ${r.file_count} files | ${usd(r.total_cost)} spent\n`;
}

/**
 * `--verbose`: what the last step did in full after its TurnReport box: the model's whole reasoning, the diff it
 * proposed (as applied, or the input refused and why), and each model call (provider, model, persona, tokens,
 * USD, latency, outcome).
 */
export function verboseStepDetails(state: NavigatorState, calls: readonly LlmCallRecord[]): string {
  const e = state.decision_log[state.decision_log.length - 1];
  const out: string[] = [];
  if (e) {
    out.push(`  step ${e.step} ${e.action} at ${e.timestamp}`);
    out.push(`  reasoning: ${e.reasoning}`);
    if (e.rejected) out.push(`  refused: ${e.rejected.reason}`, `  input: ${JSON.stringify(e.rejected.input ?? null)}`);
    else if (Object.keys(e.config_diff).length) out.push(`  diff: ${JSON.stringify(e.config_diff)}`);
  }
  for (const c of calls)
    out.push(
      `  call ${c.attempt}: ${c.provider}:${c.model}${c.persona ? ` persona=${c.persona}` : ''} ${c.outcome}${c.error ? ` (${c.error})` : ''} | ${c.input_tokens} in + ${c.output_tokens} out tokens | $${c.usd.toFixed(6)} | ${c.latency_ms} ms | prompt ${c.prompt_hash.slice(0, 12)}`,
    );
  return out.length ? `${out.join('\n')}\n` : '';
}
