import { describe, expect, it } from 'vitest';
import {
  BudgetConfig,
  checkNavigatorState,
  compileValidator,
  DecisionLogEntry,
  MODEL_PRICING_PRESETS,
  NavigatorState,
  TurnReport,
} from '../../src/contracts/index.js';
import { PRICING_PRESETS } from '../../src/llm/index.js';
import { tmpDir } from './helpers.js';

/** reference/turn-report-schema.md's "Example Serialized State" (the `navigator` value), verbatim. */
const SEED_STATE = {
  user_task: 'Refactor the auth middleware',
  repo_path: '/home/user/project',
  execution_mode: 'autonomous',
  budget_config: { max_spend_usd: 2.0, current_spend_usd: 0.0135, model_pricing_rates: { model_name: 'gemini-2.0-flash', input_per_million: 0.075, output_per_million: 0.3 } },
  flight_plan: { budget: 20000, focus: null, verbosity: [{ pattern: 'src/auth/**', level: 4 }, { pattern: 'tests/**', level: 1 }], custom_queries: [] },
  decision_log: [
    {
      step: 1,
      action: 'update_flight_plan',
      reasoning: 'Initial scan complete. Zooming in on src/auth/ which contains authentication logic.',
      config_diff: { verbosity: [{ pattern: 'src/auth/**', level: 4 }] },
      timestamp: '2025-12-31T10:30:00Z',
    },
  ],
  map_metadata: { total_tokens: 8500, file_count: 42, focus_areas: ['src/auth/'], excluded_count: 120, budget_utilization: 42.5 },
  interactive_pause: false,
  exploration_complete: false,
  reasoning_summary: '',
};

/** reference/turn-report-schema.md's example TurnReport, verbatim. */
const SEED_TURN_REPORT = {
  step_number: 3,
  timestamp: '2025-12-31T10:35:00Z',
  cost_this_turn: 0.0012,
  total_cost: 0.0036,
  budget_remaining: 1.9964,
  budget_percentage: 0.18,
  map_size_tokens: 15200,
  token_budget: 20000,
  token_utilization: 76.0,
  file_count: 47,
  focus_areas: [
    { path: 'src/auth/', verbosity_level: 4, token_contribution: 8500 },
    { path: 'src/middleware/auth.py', verbosity_level: 4, token_contribution: 1200 },
    { path: 'src/models/user.py', verbosity_level: 3, token_contribution: 800 },
  ],
  excluded_areas: ['node_modules/', '.git/', 'docs/api/'],
  last_action: 'Increased verbosity on src/models/user.py to L3',
  reasoning: 'The User model is referenced by the auth middleware.',
  is_complete: false,
  completion_reason: null,
};

const clone = <T>(x: T): T => structuredClone(x);

describe('seed 000/001 models', () => {
  it('the seed example state validates with zod and with the published JSON Schema', () => {
    expect(NavigatorState.safeParse(SEED_STATE).success).toBe(true);
    expect(compileValidator('navigator-state')(SEED_STATE).success).toBe(true);
  });

  it('the repo_path rule: the seed example names a directory that does not exist here; an existing one passes', () => {
    const bad = checkNavigatorState(SEED_STATE);
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.issues[0]).toMatchObject({ path: ['repo_path'], code: 'repo_not_found' });
    expect(checkNavigatorState({ ...SEED_STATE, repo_path: tmpDir() }).success).toBe(true);
  });

  it('defaults fill a minimal state as the seed says', () => {
    const s = NavigatorState.parse({ user_task: 't', repo_path: '/x', budget_config: { model_pricing_rates: MODEL_PRICING_PRESETS.GEMINI_2_FLASH }, flight_plan: {} });
    expect(s).toMatchObject({ execution_mode: 'autonomous', decision_log: [], interactive_pause: false, exploration_complete: false, reasoning_summary: '', completion_reason: null });
    expect(s.budget_config).toMatchObject({ max_spend_usd: 2.0, current_spend_usd: 0 });
    expect(s.flight_plan.budget).toBe(20000);
    expect(s.map_metadata).toEqual({ total_tokens: 0, file_count: 0, focus_areas: [], excluded_count: 0, budget_utilization: 0 });
  });

  const invalid: [string, (s: typeof SEED_STATE) => void, string][] = [
    ['empty task', (s) => void (s.user_task = ''), 'user_task'],
    ['max_spend_usd 0', (s) => void (s.budget_config.max_spend_usd = 0), 'budget_config.max_spend_usd'],
    ['negative spend', (s) => void (s.budget_config.current_spend_usd = -0.01), 'budget_config.current_spend_usd'],
    ['flight_plan budget 0', (s) => void (s.flight_plan.budget = 0), 'flight_plan.budget'],
    ['unknown execution mode', (s) => void (s.execution_mode = 'batch'), 'execution_mode'],
    ['action outside the closed set', (s) => void (s.decision_log[0]!.action = 'explore'), 'decision_log.0.action'],
    ['step 0', (s) => void (s.decision_log[0]!.step = 0), 'decision_log.0.step'],
    ['empty reasoning', (s) => void (s.decision_log[0]!.reasoning = ''), 'decision_log.0.reasoning'],
    ['config_diff level 5', (s) => void ((s.decision_log[0]!.config_diff.verbosity[0] as { level: number }).level = 5), 'decision_log.0.config_diff.verbosity.0.level'],
    ['config_diff unknown field', (s) => void ((s.decision_log[0]!.config_diff as Record<string, unknown>).zoom = 2), 'decision_log.0.config_diff'],
    ['utilization over 100', (s) => void (s.map_metadata.budget_utilization = 101), 'map_metadata.budget_utilization'],
    ['timestamp not ISO', (s) => void (s.decision_log[0]!.timestamp = 'yesterday'), 'decision_log.0.timestamp'],
  ];
  it.each(invalid)('rejects %s (zod and JSON Schema agree)', (_name, mutate, where) => {
    const s = clone(SEED_STATE);
    mutate(s);
    const z = NavigatorState.safeParse(s);
    expect(z.success).toBe(false);
    if (!z.success) expect(z.error.issues.map((i) => i.path.join('.'))).toContain(where);
    expect(compileValidator('navigator-state')(s).success).toBe(false);
  });

  it('a DecisionLogEntry without config_diff gets {} (the seed default)', () => {
    const e = DecisionLogEntry.parse({ step: 2, action: 'finalize_context', reasoning: 'done', timestamp: '2025-12-31T10:31:00Z' });
    expect(e.config_diff).toEqual({});
  });

  it('the reference TurnReport example validates', () => {
    expect(TurnReport.safeParse(SEED_TURN_REPORT).success).toBe(true);
    expect(compileValidator('turn-report')(SEED_TURN_REPORT).success).toBe(true);
    expect(TurnReport.safeParse({ ...SEED_TURN_REPORT, focus_areas: [{ path: 'a', verbosity_level: 2 }] }).success).toBe(false);
  });

  it('pricing presets: the seed table verbatim, and Claude/Gemini economy models equal to the LLM port\'s table', () => {
    expect(MODEL_PRICING_PRESETS.GEMINI_2_FLASH).toEqual({ model_name: 'gemini-2.0-flash', input_per_million: 0.075, output_per_million: 0.3 });
    expect(MODEL_PRICING_PRESETS.GEMINI_2_FLASH_THINKING).toEqual({ model_name: 'gemini-2.0-flash-thinking', input_per_million: 0.075, output_per_million: 0.3 });
    expect(MODEL_PRICING_PRESETS.GEMINI_1_5_PRO).toEqual({ model_name: 'gemini-1.5-pro', input_per_million: 1.25, output_per_million: 5.0 });
    expect(MODEL_PRICING_PRESETS.GEMINI_1_5_FLASH).toEqual({ model_name: 'gemini-1.5-flash', input_per_million: 0.075, output_per_million: 0.3 });
    for (const p of [MODEL_PRICING_PRESETS.CLAUDE_HAIKU_4_5, MODEL_PRICING_PRESETS.GEMINI_2_5_FLASH_LITE]) {
      expect(PRICING_PRESETS.find((x) => x.model_name === p.model_name)).toEqual(p);
    }
    expect(BudgetConfig.safeParse({ model_pricing_rates: { model_name: 'free', input_per_million: 0, output_per_million: 1 } }).success).toBe(false);
  });
});
