import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NavigatorState, NavigatorOutput, TurnReport, compileValidator, type ExplorerSessionStore } from '../../src/contracts/index.js';
import {
  applyFlightPlanDiff,
  checkFlightPlanDiff,
  estimateExplorerCallUsd,
  explorerCanAfford,
  exitCodeFor,
  resumeExplorer,
  runExplorer,
  type UserCommand,
} from '../../src/explorer/index.js';
import { LEDGER_SCHEMA_VERSION, openExplorerStore, openLedger } from '../../src/ledger/index.js';
import { createScriptedModel, type ScriptedScriptInput } from '../../src/llm/index.js';
import { indexRepo, type RepoIndex } from '../../src/repomap/index.js';
import { finalize, makeRepo, promptText, recording, stepClock, tmpDir, update } from './helpers.js';

let repo: string;
let index: RepoIndex;
const stores: ExplorerSessionStore[] = [];
beforeAll(async () => {
  repo = makeRepo();
  index = await indexRepo(repo, { cacheDir: false });
});
afterEach(() => {
  while (stores.length) stores.pop()!.close();
});

const TASK = 'fix the discount calculation in the cart total';
const scripted = (answers: ScriptedScriptInput) => recording(createScriptedModel(answers));
function store(file = path.join(tmpDir(), 'ledger.sqlite')) {
  const s = openExplorerStore(file);
  stores.push(s);
  return s;
}
const base = { cacheDir: false as const, tokens: 4000 };

describe('config_diff', () => {
  it('upserts by pattern and moves the rule last; focus null clears; budget replaces', () => {
    const plan = { budget: 1000, focus: { paths: [{ pattern: 'a/**', weight: 10 }], symbols: [] }, verbosity: [{ pattern: '**', level: 1 }, { pattern: 'src/**', level: 2 }, { pattern: 'tests/**', level: 0 }], custom_queries: [] };
    const next = applyFlightPlanDiff(plan, { budget: 800, verbosity: [{ pattern: 'src/**', level: 4 }] });
    expect(next.budget).toBe(800);
    expect(next.verbosity).toEqual([{ pattern: '**', level: 1 }, { pattern: 'tests/**', level: 0 }, { pattern: 'src/**', level: 4 }]);
    expect(applyFlightPlanDiff(plan, { focus: null }).focus).toBeNull();
    expect(applyFlightPlanDiff(plan, { focus: { paths: [{ pattern: 'b/**', weight: 2 }], symbols: [{ name: 'Cart', weight: 5 }] } }).focus).toEqual({
      paths: [{ pattern: 'a/**', weight: 10 }, { pattern: 'b/**', weight: 2 }],
      symbols: [{ name: 'Cart', weight: 5 }],
    });
  });

  const plan = { budget: 4000, focus: null, verbosity: [], custom_queries: [] };
  const cases: [string, unknown, RegExp][] = [
    ['a level out of range', { verbosity: [{ pattern: 'src/**', level: 7 }] }, /verbosity\.0\.level: .*<=\s*4/],
    ['an unknown key', { zoom: 'in' }, /Unrecognized key.*zoom/],
    ['a rule with neither level nor sections', { verbosity: [{ pattern: 'src/**' }] }, /Either 'level' or 'sections'/],
    ['an empty diff', {}, /config_diff is empty/],
    ['not an object', 'src/**', /must be an object/],
    ['a budget above the user limit', { budget: 9000 }, /above the user's token limit of 4000/],
    ['a pattern matching no file', { verbosity: [{ pattern: 'lib/**', level: 3 }] }, /"lib\/\*\*" matches no file/],
    ['a query that does not compile', { custom_queries: [{ pattern: 'src/**/*.ts', query: '(no_such_node) @x' }] }, /custom_queries\.0\.query: does not compile for typescript/],
    ['a query without capture', { custom_queries: [{ pattern: 'src/**/*.ts', query: '(identifier)' }] }, /no @capture/],
    ['a change to nothing', { budget: 4000 }, /changes nothing/],
  ];
  it.each(cases)('refuses %s, with a reason for the model', async (_n, diff, reason) => {
    const r = await checkFlightPlanDiff(diff, { plan, index, tokenLimit: 4000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('accepts a valid custom query and sections', async () => {
    const r = await checkFlightPlanDiff(
      { custom_queries: [{ pattern: 'src/**/*.ts', query: '(string) @s' }], verbosity: [{ pattern: 'src/cart/cart.ts', sections: [{ pattern: 'Cart*', level: 4 }] }] },
      { plan, index, tokenLimit: 4000 },
    );
    expect(r.ok).toBe(true);
  });
});

describe('an exploration driven by the scripted model', () => {
  it('starts from the navigator, zooms in, survives an invalid diff, finalizes; every step logged with the injected clock and saved', async () => {
    const model = scripted([
      update({ verbosity: [{ pattern: 'src/auth/**', level: 0 }, { pattern: 'src/cart/**', level: 4 }] }, 'the cart and its discount are the task'),
      update({ verbosity: [{ pattern: 'src/cart/**', level: 9 }] }, 'more'),
      finalize(),
    ]);
    const st = store();
    const saves: number[] = [];
    const origSave = st.save.bind(st);
    st.save = (id, s, c, ts) => {
      saves.push(s.decision_log.length);
      origSave(id, s, c, ts);
    };
    const reports: unknown[] = [];
    const r = await runExplorer({ ...base, repo, task: TASK, model, store: st, sessionId: 's1', env: { now: stepClock() }, onStep: (rep) => reports.push(rep) });

    // The deterministic start: the navigator's magic words and files are in the first plan the model sees.
    const first = promptText(model.requests[0]!);
    expect(first).toContain(TASK);
    expect(first).toMatch(/name: discount/);
    expect(first).toMatch(/src\/cart\/discount\.ts/);

    expect(r.state.completion_reason).toBe('agent_done');
    expect(r.llm_calls).toBe(3);
    const log = r.state.decision_log;
    expect(log.map((e) => [e.step, e.action, e.rejected ? 'rejected' : 'ok'])).toEqual([
      [1, 'update_flight_plan', 'ok'],
      [2, 'update_flight_plan', 'rejected'],
      [3, 'finalize_context', 'ok'],
    ]);
    // Timestamps come from the clock, one reading per step plus the ones around them: strictly increasing, all in 2025-12-31.
    expect(log.every((e) => e.timestamp.startsWith('2025-12-31T10:'))).toBe(true);
    expect(new Set(log.map((e) => e.timestamp)).size).toBe(3);

    // Zoom in took effect: cart files at L4, auth hidden.
    expect(r.state.map_metadata.focus_areas).toEqual(expect.arrayContaining(['src/cart/cart.ts', 'src/cart/discount.ts']));
    expect(r.render.files.filter((f) => f.path.startsWith('src/auth/')).every((f) => f.level === 0)).toBe(true);
    expect(r.output.context_string).toContain('export function applyDiscount');
    expect(r.output.context_string).not.toContain('createSession(user)');

    // The invalid diff: the plan did not change and the model was told why, as the result of its own tool call.
    expect(log[1]!.rejected!.reason).toMatch(/verbosity\.0\.level/);
    expect(log[1]!.config_diff).toEqual({});
    const third = model.requests[2]!;
    const toolMsg = third.messages.find((m) => m.role === 'tool');
    expect(toolMsg).toMatchObject({ toolCallId: 'step_2', toolName: 'update_flight_plan' });
    expect(toolMsg!.content).toMatch(/^REJECTED: config_diff is not a valid partial FlightPlan: verbosity\.0\.level/);
    expect(r.state.flight_plan.verbosity.filter((v) => v.pattern === 'src/cart/**')).toEqual([{ pattern: 'src/cart/**', level: 4 }]);

    // Saved after the start and after every step; the saved state is the final one.
    expect(saves.slice(0, 4)).toEqual([0, 1, 2, 3]);
    const saved = st.load('s1')!;
    expect(saved.state).toEqual(r.state);
    expect(NavigatorState.safeParse(saved.state).success).toBe(true);
    expect(compileValidator('navigator-state')(saved.state).success).toBe(true);

    // Output and reports validate; cost is the sum of the steps' costs.
    expect(NavigatorOutput.safeParse(r.output).success).toBe(true);
    expect(r.output).toMatchObject({ total_iterations: 3, reasoning_summary: 'the map holds the cart and its discount', session_id: 's1' });
    expect(r.output.total_cost).toBeCloseTo(log.reduce((s, e) => s + (e.cost_usd ?? 0), 0), 9);
    expect(r.output.total_cost).toBeGreaterThan(0);
    expect(reports).toHaveLength(3);
    for (const rep of reports) expect(TurnReport.safeParse(rep).success).toBe(true);
    expect(exitCodeFor(r)).toBe(0);
  });

  it('--no-llm: the navigator\'s plan is the answer and no call is made', async () => {
    const model = scripted([finalize()]);
    const r = await runExplorer({ ...base, repo, task: TASK, noLlm: true, model });
    expect(model.requests).toHaveLength(0);
    expect(r).toMatchObject({ llm_calls: 0, state: { completion_reason: 'no_llm', decision_log: [] } });
    expect(r.output.total_cost).toBe(0);
    expect(r.start!.magic_words).toEqual(expect.arrayContaining(['discount', 'cart']));
    expect(r.start!.loaded.map((f) => f.path)).toContain('src/cart/discount.ts');
    expect(r.output.context_string).toContain('applyDiscount');
  });

  it('same input, same script: the same decisions, plan and map bytes', async () => {
    const script = [update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }), finalize()];
    const a = await runExplorer({ ...base, repo, task: TASK, model: scripted(script), env: { now: stepClock() }, sessionId: 'x' });
    const b = await runExplorer({ ...base, repo, task: TASK, model: scripted(script), env: { now: stepClock() }, sessionId: 'x' });
    expect(b.state).toEqual(a.state);
    expect(b.output).toEqual(a.output);
  });

  it('stops at max iterations', async () => {
    const model = recording(createScriptedModel({ mode: 'rules', answers: [update({ budget: 3000 }, 'shrink'), ] }));
    // rules mode reuses the entry: step 1 applies, later steps are refused as "changes nothing" but still count.
    const r = await runExplorer({ ...base, repo, task: TASK, model, maxIterations: 3 });
    expect(r.state.completion_reason).toBe('max_iterations');
    expect(r.state.decision_log).toHaveLength(3);
    expect(model.requests).toHaveLength(3);
    expect(r.state.decision_log[2]!.rejected!.reason).toMatch(/changes nothing/);
  });

  it('a model that calls no tool is told so', async () => {
    const model = scripted([{ text: 'I think the cart matters.' }, finalize()]);
    const r = await runExplorer({ ...base, repo, task: TASK, model });
    expect(r.state.decision_log[0]!.rejected).toMatchObject({ reason: expect.stringMatching(/no tool was called/), input: 'I think the cart matters.' });
    expect(promptText(model.requests[1]!)).toContain('REJECTED: no tool was called');
  });
});

describe('the USD budget is enforced before each call', () => {
  it('$0.0099 spent of $0.01: the next call is not made; the map so far is kept', async () => {
    const model = scripted([finalize()]);
    const r = await runExplorer({ ...base, repo, task: TASK, model, maxSpendUsd: 0.01, spentUsd: 0.0099 });
    expect(model.requests).toHaveLength(0);
    expect(r.state.completion_reason).toBe('budget_exceeded');
    expect(r.output.total_cost).toBe(0.0099);
    expect(r.state.map_metadata.file_count).toBeGreaterThan(0);
    expect(r.output.context_string).toContain('applyDiscount');
    expect(exitCodeFor(r)).toBe(0);
  });

  it('the boundary: the check allows a call whose estimate fits exactly, and refuses one a hair over', async () => {
    const checks: { estimateUsd: number; allowed: boolean }[] = [];
    const probe = scripted([finalize()]);
    await runExplorer({ ...base, repo, task: TASK, model: probe, onBudgetCheck: (c) => checks.push(c) });
    const est = await estimateExplorerCallUsd(probe.requests[0]!, { model_name: 'gemini-2.0-flash', input_per_million: 0.075, output_per_million: 0.3 });
    // The check the loop made is the estimate of the request it sent: gpt-tokenizer input (with margin) + the 1024-token output cap.
    expect(checks).toEqual([expect.objectContaining({ estimateUsd: est.usd, outputTokens: 1024, allowed: true })]);
    expect(est.usd).toBeCloseTo((est.inputTokens * 0.075 + 1024 * 0.3) / 1e6, 12);
    const state = (spent: number, max: number) => NavigatorState.parse({ user_task: 't', repo_path: repo, budget_config: { max_spend_usd: max, current_spend_usd: spent, model_pricing_rates: { model_name: 'm', input_per_million: 1, output_per_million: 1 } }, flight_plan: {} });
    expect(explorerCanAfford(state(0.005, 0.005 + est.usd), est.usd)).toBe(true);
    expect(explorerCanAfford(state(0.005, 0.005 + est.usd - 1e-9), est.usd)).toBe(false);
    expect(explorerCanAfford(state(0.0099, 0.01), est.usd)).toBe(false);
  });

  it('stops mid-session when the spend reaches the limit, keeping the last accepted plan; actual cost comes from usage', async () => {
    const usage = { input_tokens: 25000, output_tokens: 1000 }; // $0.001875 + $0.0003 at gemini-2.0-flash
    const model = scripted([
      { ...update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }), usage },
      { ...update({ verbosity: [{ pattern: 'docs/**', level: 0 }] }), usage },
      { ...finalize(), usage },
    ]);
    const r = await runExplorer({ ...base, repo, task: TASK, model, maxSpendUsd: 0.0025 });
    expect(r.state.decision_log).toHaveLength(1);
    expect(r.state.decision_log[0]!.cost_usd).toBeCloseTo(0.002175, 12);
    expect(r.state.budget_config.current_spend_usd).toBeCloseTo(0.002175, 12);
    expect(r.state.completion_reason).toBe('budget_exceeded');
    expect(r.state.flight_plan.verbosity.at(-1)).toEqual({ pattern: 'tests/**', level: 0 });
    expect(r.output.context_string).not.toContain('tests/cart.test.ts');
  });
});

describe('state that survives', () => {
  it('resume carries on from the last saved step, in the same ledger file, with the same prompt it would have had', async () => {
    const file = path.join(tmpDir(), 'ledger.sqlite');
    const st = store(file);
    // The first process makes two steps, then "dies": its model has nothing left, which ends it as an agent error.
    const firstModel = scripted([update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }, 'tests are noise'), update({ verbosity: [{ pattern: 'src/cart/**', level: 4 }] }, 'zoom on cart')]);
    const first = await runExplorer({ ...base, repo, task: TASK, model: firstModel, store: st, sessionId: 'resume-me', retry: { maxAttempts: 1 } });
    expect(first.state.completion_reason).toBe('agent_error');
    expect(first.state.decision_log).toHaveLength(2);
    st.close();
    stores.pop();

    // Re-open the saved session as a crash would leave it (incomplete), then resume in a fresh store object.
    const st2 = store(file);
    const saved = st2.load('resume-me')!;
    st2.save('resume-me', { ...saved.state, exploration_complete: false, completion_reason: null, reasoning_summary: '' }, saved.config, new Date(0));
    const second = scripted([finalize('done after resume')]);
    const r = await resumeExplorer(st2, 'resume-me', { model: second, cacheDir: false });
    expect(r.state.decision_log.map((e) => e.step)).toEqual([1, 2, 3]);
    expect(r.state.completion_reason).toBe('agent_done');
    expect(second.requests).toHaveLength(1);
    // The resumed prompt shows the last step as the model's own tool call and its result.
    const tool = second.requests[0]!.messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ toolCallId: 'step_2' });
    expect(tool!.content).toMatch(/^applied \{"verbosity":\[\{"pattern":"src\/cart\/\*\*","level":4\}\]\}/);
    expect(st2.load('resume-me')!.state.decision_log).toHaveLength(3);
    expect(st2.list()[0]).toMatchObject({ session_id: 'resume-me', steps: 3, complete: true, completion_reason: 'agent_done' });
  });
});

describe('where sessions are kept', () => {
  it('in a SQLite ledger only: a PostgreSQL URL is refused as a configuration error, before anything is opened', () => {
    expect(() => openExplorerStore('postgres://navkernel@127.0.0.1:1/ledger')).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringMatching(/SQLite ledger/) }));
  });
});

describe('ledgers written before explorer_sessions was a migration (schema 2)', () => {
  // Until schema 3 the explorer made its table itself, beside the ledger's migrations, with this DDL (verbatim).
  const SIDE_DDL = `
CREATE TABLE IF NOT EXISTS explorer_sessions (
  session_id TEXT PRIMARY KEY,
  created_ts TEXT NOT NULL,
  updated_ts TEXT NOT NULL,
  steps      INTEGER NOT NULL,
  complete   INTEGER NOT NULL,
  config     TEXT NOT NULL,
  state      TEXT NOT NULL
) STRICT;`;
  const tableSql = (db: Database.Database) => db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'explorer_sessions'").pluck().get() as string | undefined;
  const closed = () => new Promise((resolve) => setImmediate(resolve));

  it('one that already holds the table and a session migrates on open, keeps the table as it was and still loads the session', async () => {
    const file = path.join(tmpDir(), 'ledger.sqlite');
    const st = store(file);
    const model = scripted([update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }, 'tests are noise'), finalize()]);
    await runExplorer({ ...base, repo, task: TASK, model, store: st, sessionId: 'old-1', env: { now: stepClock() } });
    const before = st.load('old-1')!;
    const calls = st.calls('old-1');
    expect(before.state.decision_log).toHaveLength(2);
    expect(calls.length).toBeGreaterThan(0);
    stores.pop()!.close();
    await closed();

    // Make the file what navkernel wrote before schema 3: user_version 2, the table created on the side, the row kept.
    const db = new Database(file);
    db.exec(`CREATE TEMP TABLE saved AS SELECT * FROM explorer_sessions; DROP TABLE explorer_sessions; ${SIDE_DDL}
             INSERT INTO explorer_sessions SELECT * FROM saved; DROP TABLE saved; PRAGMA user_version = 2;`);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    const sideSql = tableSql(db);
    db.close();

    const st2 = openExplorerStore(file, { create: false });
    stores.push(st2);
    expect(LEDGER_SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    expect(st2.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    expect(tableSql(st2.db)).toBe(sideSql);
    expect(st2.load('old-1')).toEqual(before);
    expect(st2.calls('old-1')).toEqual(calls);
    expect(st2.list()).toEqual([expect.objectContaining({ session_id: 'old-1', steps: 2, complete: true, completion_reason: 'agent_done' })]);
  });

  it('one without the table gets it on open, and sessions save into it', async () => {
    const file = path.join(tmpDir(), 'ledger.sqlite');
    await openLedger(file, { jsonl: false }).close();
    const db = new Database(file);
    db.exec('DROP TABLE explorer_sessions; PRAGMA user_version = 2;');
    expect(tableSql(db)).toBeUndefined();
    db.close();

    const st = openExplorerStore(file, { create: false });
    stores.push(st);
    expect(st.db.pragma('user_version', { simple: true })).toBe(LEDGER_SCHEMA_VERSION);
    expect(st.list()).toEqual([]);
    const r = await runExplorer({ ...base, repo, task: TASK, noLlm: true, store: st, sessionId: 'new-1' });
    expect(st.load('new-1')!.state).toEqual(r.state);
  });
});

describe('interactive breakpoints', () => {
  async function interactive(commands: UserCommand[], script: ScriptedScriptInput) {
    const model = scripted(script);
    const seen: { step: number; tokens: number; budget: number; usd: number }[] = [];
    const r = await runExplorer({
      ...base,
      repo,
      task: TASK,
      model,
      interactive: true,
      ask: async (rep) => {
        seen.push({ step: rep.step_number, tokens: rep.map_size_tokens, budget: rep.token_budget, usd: rep.total_cost + rep.budget_remaining });
        const c = commands.shift();
        if (!c) throw new Error('asked more often than scripted');
        return c;
      },
    });
    return { r, model, seen };
  }

  it('raise/lower the token budget and the USD limit, then continue; finalize now ends with the current map', async () => {
    const { r, model, seen } = await interactive(
      [{ kind: 'set_tokens', tokens: 300 }, { kind: 'set_usd', usd: 0.5 }, { kind: 'continue' }, { kind: 'finalize' }],
      [update({ verbosity: [{ pattern: 'src/cart/**', level: 4 }] }), update({ verbosity: [{ pattern: 'tests/**', level: 0 }] })],
    );
    expect(seen.map((s) => s.step)).toEqual([1, 1, 1, 2]);
    expect(seen[1]!.budget).toBe(300);
    expect(seen[1]!.tokens).toBeLessThanOrEqual(300);
    expect(seen[2]!.usd).toBeCloseTo(0.5, 9);
    expect(model.requests).toHaveLength(2);
    expect(promptText(model.requests[1]!)).toContain('the user set the token budget to 300');
    expect(r.state.completion_reason).toBe('user_finalized');
    expect(r.state.flight_plan.budget).toBe(300);
    expect(r.state.budget_config.max_spend_usd).toBe(0.5);
    expect(r.output.token_count).toBeLessThanOrEqual(300);
  });

  it('abort cancels: exit code 5', async () => {
    const { r } = await interactive([{ kind: 'abort' }], [update({ verbosity: [{ pattern: 'tests/**', level: 0 }] })]);
    expect(r.state.completion_reason).toBe('user_cancelled');
    expect(exitCodeFor(r)).toBe(5);
  });

  it('lowering the USD limit below the spend stops before the next call', async () => {
    const { r, model } = await interactive([{ kind: 'set_usd', usd: 0.000001 }, { kind: 'continue' }], [update({ verbosity: [{ pattern: 'tests/**', level: 0 }] }), finalize()]);
    expect(model.requests).toHaveLength(1);
    expect(r.state.completion_reason).toBe('budget_exceeded');
  });
});

describe('personas in the explorer (style only)', () => {
  it('change only the end of the system prompt: same tools, same diff checks, same log; the choice is saved and recorded per call', async () => {
    const answers = () => [update({ verbosity: [{ pattern: 'nowhere/**', level: 4 }] }, 'zoom'), update({ verbosity: [{ pattern: 'src/cart/**', level: 4 }] }, 'zoom'), finalize()];
    const runs: { persona: string; model: ReturnType<typeof scripted>; r: Awaited<ReturnType<typeof runExplorer>>; calls: string[]; saved: string | null | undefined; recorded: unknown[] }[] = [];
    // The persona's words are input tokens: the spend shown to the model differs, nothing else does.
    const unspent = (m: unknown) => JSON.stringify(m).replace(/spent: \$[\d.]+/g, 'spent: $X');
    for (const persona of ['none', 'feynman', 'auto'] as const) {
      const model = scripted(answers());
      const st = store();
      const calls: string[] = [];
      const r = await runExplorer({ ...base, repo, task: TASK, model, store: st, sessionId: `p-${persona}`, env: { now: stepClock() }, persona, onLlmCall: (c) => calls.push(c.persona ?? '-') });
      runs.push({ persona, model, r, calls, saved: st.load(`p-${persona}`)!.config.persona, recorded: st.calls(`p-${persona}`) });
    }
    const [none, feynman, auto] = runs;
    for (const x of runs) {
      expect(x.r.state.decision_log.map((e) => [e.action, e.rejected?.reason ?? null, e.config_diff])).toEqual(none!.r.state.decision_log.map((e) => [e.action, e.rejected?.reason ?? null, e.config_diff]));
      expect(x.model.requests.map((q) => q.answer)).toEqual(none!.model.requests.map((q) => q.answer));
      expect(x.model.requests.map((q) => unspent(q.messages.slice(1)))).toEqual(none!.model.requests.map((q) => unspent(q.messages.slice(1))));
      expect(x.recorded).toHaveLength(3);
    }
    expect(none!.r.state.decision_log[0]!.rejected).toBeDefined(); // the diff gate refused the same diff under every persona
    const sys = (x: (typeof runs)[number]) => x.model.requests[0]!.messages[0]!.content;
    expect(sys(feynman!).startsWith(sys(none!))).toBe(true);
    expect(sys(feynman!)).toContain('Style prior: Richard Feynman');
    expect(sys(auto!)).toContain('Style prior: Claude Shannon');
    expect([none!.saved, feynman!.saved, auto!.saved]).toEqual([null, 'feynman', 'shannon']);
    expect([none!.calls, feynman!.calls, auto!.calls]).toEqual([['-', '-', '-'], ['feynman', 'feynman', 'feynman'], ['shannon', 'shannon', 'shannon']]);
  });
});

describe('the explorer uses the navigator\'s index', () => {
  it('starts from the navigator\'s index, and its update tool boosts a focus symbol found only in a body or string (full text)', async () => {
    const own = path.join(tmpDir('nk-explorer-fts-'), 'r');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(path.join(own, 'src'), { recursive: true });
    writeFileSync(path.join(own, 'src/alpha.ts'), 'export function alpha(n: number): number {\n  return n + 1;\n}\n');
    writeFileSync(path.join(own, 'src/beta.ts'), 'export function beta(n: number): number {\n  return n * 2;\n}\n');
    // `zebrafish` occurs only inside a string: no definition or reference names it.
    writeFileSync(path.join(own, 'src/omega.ts'), "export function omega(): string {\n  return 'the zebrafish header';\n}\n");
    const model = scripted([update({ focus: null }), update({ focus: { symbols: [{ name: 'zebrafish', weight: 100 }] } }), finalize()]);
    const r = await runExplorer({ ...base, repo: own, task: 'compute alpha and beta', model, tokens: 4000 });
    // The navigator's index came with the starting plan (the same files the tools render).
    expect(r.start!.index!.repo.files.map((f) => f.path)).toEqual(['src/alpha.ts', 'src/beta.ts', 'src/omega.ts']);
    expect(r.start!.index!.filesWith('zebrafish')).toEqual(['src/omega.ts']);
    // The update tool renders with the same index's full-text lookup: the string-only word ranks omega first.
    const { openNavigatorIndex } = await import('../../src/navigator/index.js');
    const { renderFlightPlan } = await import('../../src/repomap/index.js');
    const nav = await openNavigatorIndex(own, { cacheDir: false });
    const plan = { budget: 4000, focus: { paths: [], symbols: [{ name: 'zebrafish', weight: 100 }] }, verbosity: [], custom_queries: [] };
    const rankOf = (files: { path: string; rank: number }[]) => Object.fromEntries(files.map((f) => [f.path, f.rank]));
    const withText = rankOf((await renderFlightPlan(own, plan, { index: nav.repo, symbolFiles: nav.filesWith })).files);
    expect(withText['src/omega.ts']).toBeLessThan(withText['src/alpha.ts']!);
    expect(withText['src/omega.ts']).toBeLessThan(withText['src/beta.ts']!);
    // Without the lookup (outline names only) nothing names `zebrafish`: omega gets no boost.
    const without = rankOf((await renderFlightPlan(own, plan, { index: nav.repo })).files);
    expect(without['src/omega.ts']).toBeGreaterThan(without['src/alpha.ts']!);
    expect(r.state.decision_log.length).toBe(3);
  });
});
