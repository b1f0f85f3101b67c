import type { JsonSchema, LlmTool, LlmToolCall } from '../llm/index.js';

export const UPDATE_TOOL = 'update_flight_plan';
export const FINALIZE_TOOL = 'finalize_context';

const level: JsonSchema = { type: 'integer', minimum: 0, maximum: 4, description: '0 exclude, 1 path, 2 structure, 3 interface, 4 full text' };
const glob: JsonSchema = { type: 'string', description: 'glob on repo-relative paths, e.g. "src/auth/**"' };

/**
 * The `config_diff` schema sent to providers. Hand-written in the JSON Schema subset both Anthropic and Gemini
 * accept (no null, no anyOf); the answer is then validated by the zod FlightPlanDiff, the real contract.
 */
const configDiffSchema: JsonSchema = {
  type: 'object',
  description: 'A partial FlightPlan: only the keys to change. Entries with an existing pattern/name replace it; others are added.',
  properties: {
    budget: { type: 'integer', minimum: 1, description: 'Token budget of the map (at most the user\'s limit)' },
    focus: {
      type: 'object',
      description: 'Ranking boosts: files matching paths, or defining/referencing symbols, rank higher within the budget',
      properties: {
        paths: { type: 'array', items: { type: 'object', properties: { pattern: glob, weight: { type: 'number', description: 'default 10' } }, required: ['pattern'] } },
        symbols: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number', description: 'default 10' } }, required: ['name'] } },
      },
    },
    verbosity: {
      type: 'array',
      description: 'Rules in order, the last matching rule wins; give level, or sections (levels for named definitions/headings inside matching files)',
      items: {
        type: 'object',
        properties: {
          pattern: glob,
          level,
          sections: { type: 'array', items: { type: 'object', properties: { pattern: { type: 'string', description: 'glob over definition or heading names' }, level }, required: ['pattern', 'level'] } },
        },
        required: ['pattern'],
      },
    },
    custom_queries: {
      type: 'array',
      description: 'tree-sitter queries whose captures are added to the rendering of matching files',
      items: { type: 'object', properties: { pattern: glob, query: { type: 'string', description: 'tree-sitter S-expression with at least one @capture' } }, required: ['pattern', 'query'] },
    },
  },
};

/** The explorer's two tools. */
export function explorerTools(): LlmTool[] {
  return [
    {
      name: UPDATE_TOOL,
      description: 'Change the FlightPlan that renders the repository map, then see the new map. Use to zoom in (raise levels, boost paths/symbols) or out (lower levels, exclude).',
      inputSchema: {
        type: 'object',
        properties: { config_diff: configDiffSchema, reasoning: { type: 'string', description: 'Why this change serves the task (one or two sentences)' } },
        required: ['config_diff', 'reasoning'],
      },
    },
    {
      name: FINALIZE_TOOL,
      description: 'Stop: the current map is the context for the task.',
      inputSchema: {
        type: 'object',
        properties: { reasoning: { type: 'string', description: 'Summary of what the map holds and why it serves the task' } },
        required: ['reasoning'],
      },
    },
  ];
}

/** A tool call read: an update, a finalize, or something to refuse (with the reason the model is told). */
export type ReadToolCall =
  | { kind: 'update'; configDiff: unknown; reasoning: string }
  | { kind: 'finalize'; reasoning: string }
  | { kind: 'invalid'; reason: string; reasoning?: string };

export function readToolCall(call: LlmToolCall): ReadToolCall {
  const input = call.input;
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { kind: 'invalid', reason: `${call.name}: the arguments are not a JSON object` };
  }
  const args = input as Record<string, unknown>;
  const reasoning = typeof args.reasoning === 'string' ? args.reasoning.trim() : '';
  if (call.name !== UPDATE_TOOL && call.name !== FINALIZE_TOOL) {
    return { kind: 'invalid', reason: `unknown tool ${JSON.stringify(call.name)}: call ${UPDATE_TOOL} or ${FINALIZE_TOOL}`, ...(reasoning ? { reasoning } : {}) };
  }
  if (!reasoning) return { kind: 'invalid', reason: `${call.name}: reasoning must be a non-empty string` };
  if (call.name === FINALIZE_TOOL) return { kind: 'finalize', reasoning };
  if (!('config_diff' in args)) return { kind: 'invalid', reason: `${UPDATE_TOOL}: config_diff is missing`, reasoning };
  return { kind: 'update', configDiff: args.config_diff, reasoning };
}
