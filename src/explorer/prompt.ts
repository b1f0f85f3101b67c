import { createRequire } from 'node:module';
import type { DecisionLogEntry, NavigatorState } from '../contracts/explorer-state.js';
import type { LlmMessage } from '../llm/index.js';
import { countTokens, type MapFile } from '../repomap/index.js';
import { FINALIZE_TOOL, UPDATE_TOOL } from './tools.js';

// yaml (CommonJS, ~50 ms to load) is required on first use, not when the package is imported.
let yaml: typeof import('yaml') | undefined;
const yamlModule = (): typeof import('yaml') => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/** How much of the map and history one prompt shows. */
export interface ViewLimits {
  /** Tokens of rendered map text shown (the start of the map). */
  excerptTokens: number;
  /** Rows of the file table (by rank). */
  fileRows: number;
  /** Earlier steps summarised (the last step is always shown as a tool call and its result). */
  historySteps: number;
}

export const DEFAULT_VIEW_LIMITS: ViewLimits = { excerptTokens: 1500, fileRows: 60, historySteps: 8 };

export const EXPLORER_SYSTEM_PROMPT = `You refine the context for a coding task: a map of a repository rendered under a hard token budget by a FlightPlan.
Verbosity levels: 0 excluded, 1 path only, 2 structure (definition lines, headings), 3 interface (signatures and doc comments), 4 full text.
The renderer ranks files (reference graph, boosted by focus paths and symbols) and fills the budget in rank order, lowering the level of files that do not fit.
Each turn, call exactly one tool:
- ${UPDATE_TOOL}(config_diff, reasoning): config_diff is a partial FlightPlan with only the keys to change. A verbosity rule, path boost or symbol boost with the same pattern/name as an existing one replaces it and moves last (last matching verbosity rule wins). "focus": null clears all boosts.
- ${FINALIZE_TOOL}(reasoning): when the map holds what the task needs. Prefer finalizing early over spending: every turn costs money.
Zoom in on files the task touches (level 3-4), keep their neighbours at 2, hide what is irrelevant (level 0 or 1).`;

/** `Step 1: applied {"verbosity":[…]}` or `REJECTED: …`: what the model is told about a step. */
export function stepResult(e: DecisionLogEntry): string {
  if (e.rejected) return `REJECTED: ${e.rejected.reason}. The plan is unchanged.`;
  if (e.action === FINALIZE_TOOL) return 'finalized';
  return `applied ${JSON.stringify(e.config_diff)}`;
}

function fileTable(files: MapFile[], rows: number): string {
  const ranked = [...files].sort((a, b) => a.rank - b.rank);
  const shown = ranked.slice(0, rows);
  const lines = shown.map((f) => `${String(f.rank).padStart(4)}. L${f.level}${f.wanted_level !== f.level ? ` (wanted L${f.wanted_level}${f.cut ? `, cut: ${f.cut}` : ''})` : ''}  ${f.tokens} tok  ${f.path}`);
  if (ranked.length > shown.length) lines.push(`      … ${ranked.length - shown.length} more files (lower rank)`);
  return lines.join('\n');
}

/** The first `maxTokens` tokens of the map, cut at a line. */
export function mapExcerpt(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  const out: string[] = [];
  let used = 0;
  for (const line of text.split('\n')) {
    const t = countTokens(line + '\n');
    if (used + t > maxTokens) break;
    out.push(line);
    used += t;
  }
  return `${out.join('\n')}\n… (map continues; ${countTokens(text) - used} more tokens)`;
}

export interface StateView {
  state: NavigatorState;
  files: MapFile[];
  mapText: string;
  maxIterations: number;
  tokenLimit: number;
  /** Things the user did since the last step (e.g. changed a budget). */
  notes: string[];
  limits: ViewLimits;
}

/** The user's `feedback: TEXT` after the last step, as a note of the next prompt (none once a later step ran). */
function feedbackNote(state: NavigatorState): string[] {
  const text = state.decision_log[state.decision_log.length - 1]?.user_feedback;
  return text ? [`note: the user's feedback for this step (follow it within the rules above): ${JSON.stringify(text)}`] : [];
}

/** The current state as the model sees it: metadata, plan, file table and a bounded excerpt of the map. */
export function stateView(v: StateView): string {
  const { state } = v;
  const m = state.map_metadata;
  const b = state.budget_config;
  const parts = [
    '## Current map',
    `tokens: ${m.total_tokens} of budget ${state.flight_plan.budget} (${m.budget_utilization}%; user's limit ${v.tokenLimit}); files rendered: ${m.file_count}; files at L0: ${m.excluded_count}`,
    `focus areas (L3-L4): ${m.focus_areas.join(', ') || '(none)'}`,
    `spent: $${b.current_spend_usd.toFixed(6)} of $${b.max_spend_usd}; steps used: ${state.decision_log.length} of ${v.maxIterations}`,
    ...v.notes.map((n) => `note: ${n}`),
    ...feedbackNote(state),
    '',
    '## FlightPlan',
    yamlModule().stringify(state.flight_plan).trimEnd(),
    '',
    '## Files by rank (level rendered, tokens, path)',
    fileTable(v.files, v.limits.fileRows),
    '',
    `## Map excerpt (first ${v.limits.excerptTokens} tokens)`,
    mapExcerpt(v.mapText, v.limits.excerptTokens),
  ];
  return parts.join('\n');
}

/**
 * The messages of one turn, rebuilt from the state alone (so a resumed session prompts exactly as an
 * uninterrupted one): the task and a summary of earlier steps; then the last step as the model's tool call
 * and its result (applied, or REJECTED with the reason), followed by the current state.
 */
export function buildExplorerMessages(v: StateView): LlmMessage[] {
  const log = v.state.decision_log;
  const last = log[log.length - 1];
  const earlier = log.slice(0, -1).slice(-v.limits.historySteps);
  const intro = [`# Task\n${v.state.user_task}`];
  if (earlier.length) intro.push(`# Earlier steps\n${earlier.map((e) => `step ${e.step} ${e.action}: ${stepResult(e)} (reasoning: ${e.reasoning})${e.user_feedback ? ` [user feedback: ${JSON.stringify(e.user_feedback)}]` : ''}`).join('\n')}`);
  const view = stateView(v);
  const messages: LlmMessage[] = [{ role: 'system', content: EXPLORER_SYSTEM_PROMPT }];
  if (!last) {
    messages.push({ role: 'user', content: `${intro.join('\n\n')}\n\n${view}\n\nCall ${UPDATE_TOOL} or ${FINALIZE_TOOL}.` });
    return messages;
  }
  messages.push({ role: 'user', content: intro.join('\n\n') });
  const id = `step_${last.step}`;
  const tool = last.rejected ? last.rejected.tool : last.action;
  const result = `${stepResult(last)}\n\n${view}`;
  if (tool) {
    const input = last.rejected ? last.rejected.input : last.action === UPDATE_TOOL ? { config_diff: last.config_diff, reasoning: last.reasoning } : { reasoning: last.reasoning };
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id, name: tool, input: input ?? {} }] });
    messages.push({ role: 'tool', toolCallId: id, toolName: tool, content: result });
  } else {
    messages.push({ role: 'assistant', content: typeof last.rejected?.input === 'string' && last.rejected.input ? last.rejected.input : '(no tool call)' });
    messages.push({ role: 'user', content: result });
  }
  return messages;
}
