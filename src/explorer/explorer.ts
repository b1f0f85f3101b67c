import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { NavkernelError } from '../contracts/errors.js';
import type { NavigatorOutput, TurnReport } from '../contracts/explorer-report.js';
import type { ExplorerCall, ExplorerSessionStore } from '../contracts/explorer-sessions.js';
import {
  type CompletionReason,
  type DecisionLogEntry,
  ExplorerSessionConfig,
  GEMINI_2_FLASH_PRICING,
  type ModelPricingRates,
  NavigatorState,
} from '../contracts/explorer-state.js';
import type { FlightPlan } from '../contracts/flight-plan.js';
import type { LlmCallRecord } from '../contracts/llm-call.js';
import {
  costUsd,
  environmentSecrets,
  estimateInputTokens,
  findPricing,
  generateWithRetry,
  promptHash,
  redactSecrets,
  resolvePersona,
  withPersona,
  type LanguageModel,
  type LlmGenerateRequest,
  type PersonaChoice,
  type PersonaName,
  type RetryPolicy,
} from '../llm/index.js';
import { renderFlightPlan, type RenderResult, type RepoIndex, type SymbolFiles } from '../repomap/index.js';
import { openNavigatorIndex, type NavigatorIndex } from '../navigator/index.js';
import { type AskUser } from './interactive.js';
import { buildNavigatorOutput, flightPlanYaml } from './output.js';
import { checkFlightPlanDiff } from './plan-diff.js';
import { buildExplorerMessages, DEFAULT_VIEW_LIMITS, type ViewLimits } from './prompt.js';
import { startingFlightPlan, type StartingPoint } from './starting-plan.js';
import { callSignature, DEFAULT_STALL_POLICY, detectStall, type Stall, type StallPolicy } from './stall.js';
import { explorerTools, FINALIZE_TOOL, readToolCall, UPDATE_TOOL } from './tools.js';
import { buildTurnReport } from './turn-report.js';

/** Clock and ids, injectable so tests and replays control them. */
export interface ExplorerEnv {
  now: () => Date;
  newSessionId: () => string;
}

const realEnv: ExplorerEnv = { now: () => new Date(), newSessionId: () => `exp-${randomUUID().slice(0, 8)}` };

/** Options shared by a new session and a resumed one. */
export interface ExplorerRunOptions {
  /** The model; required unless the session runs with `noLlm` or is already complete. */
  model?: LanguageModel;
  /** Where the state is saved after every step (none: kept in memory only). */
  store?: ExplorerSessionStore;
  /** Breakpoint after each step in interactive mode. */
  ask?: AskUser;
  /** Called at each budget check, before a call is made or refused. */
  onBudgetCheck?: (check: { estimateUsd: number; inputTokens: number; outputTokens: number; spentUsd: number; limitUsd: number; allowed: boolean }) => void;
  /** Called after each step (progress). */
  onStep?: (report: TurnReport, state: NavigatorState) => void;
  env?: Partial<ExplorerEnv>;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Index cache (default `runs/.cache`); false disables. */
  cacheDir?: string | false;
  /** Prices overriding the presets (e.g. for a model without a preset). */
  pricing?: ModelPricingRates;
  viewLimits?: Partial<ViewLimits>;
  /** Resume only: switch the session to interactive (true) or autonomous (false) mode. */
  interactive?: boolean;
  /**
   * Called with each model call (every attempt, failed ones included) as an LlmCallRecord, purpose `explore`, and
   * the step it belongs to (`--verbose` prints them). The store records them with the step (the SQLite ledger's
   * store: in its LLM-call table).
   */
  onLlmCall?: (record: LlmCallRecord, step: number) => void;
  /**
   * The stronger model a session moves to when it stalls on its economy model (seed 002: "model_preferred:
   * haiku; escalate to sonnet for deep navigation"), if its next call fits the USD budget. A resumed session
   * that had escalated needs it again.
   */
  escalation?: ExplorerEscalation;
}

/** The model a stalled session may move to, and its prices (default: its preset). */
export interface ExplorerEscalation {
  model: LanguageModel;
  /** The spec saved for `--resume` (default `provider:modelId`). */
  modelSpec?: string;
  pricing?: ModelPricingRates;
}

export interface ExplorerStartOptions extends ExplorerRunOptions {
  repo: string;
  task: string;
  /** Token budget of the map (default 20000). */
  tokens?: number;
  /** USD limit (default 2.0). */
  maxSpendUsd?: number;
  /** Spend already counted (default 0; tests of the budget boundary). */
  spentUsd?: number;
  /** Deterministic start only: no model call. */
  noLlm?: boolean;
  interactive?: boolean;
  maxIterations?: number;
  maxOutputTokens?: number;
  /** The model spec saved for `--resume` (e.g. `anthropic:claude-haiku-4-5`). */
  modelSpec?: string;
  sessionId?: string;
  registryFile?: string;
  /** Persona style prior loaded last in every prompt: a name, `auto` (default: chosen from the task) or `none`. */
  persona?: PersonaChoice;
  /** Anti-stall thresholds (seed 004; default 3 and 3, 0 turns a signal off). */
  stall?: Partial<StallPolicy>;
}

/** Everything an exploration produced. */
export interface ExplorerResult {
  session_id: string;
  state: NavigatorState;
  output: NavigatorOutput;
  render: RenderResult;
  /** Model calls made by this run (a resumed session counts from the resume). */
  llm_calls: number;
  /** The navigator's answer (new sessions only). */
  start?: StartingPoint;
  /** The last provider error of an `agent_error` end. */
  error?: string;
}

/** The prices the budget uses for a model: the override, the preset, or (scripted models without one) seed 000's default. */
export function pricingFor(model: LanguageModel | undefined, override?: ModelPricingRates): ModelPricingRates {
  if (override) return override;
  if (!model) return GEMINI_2_FLASH_PRICING;
  const id = model.pricingModelId ?? model.modelId;
  const p = findPricing(id);
  if (p && p.input_per_million > 0 && p.output_per_million > 0) return { ...p };
  if (model.provider === 'scripted' || model.provider === 'recorded') return GEMINI_2_FLASH_PRICING;
  throw new NavkernelError('LLM_UNPRICED', `no price known for model ${id}: pass a pricing override`);
}

/** CLI exit code of a result (reference/cli-navigate-interface.md): 0 context produced, 1 budget gone with nothing useful, 4 agent error, 5 cancelled. */
export function exitCodeFor(result: Pick<ExplorerResult, 'state'>): 0 | 1 | 4 | 5 {
  const reason = result.state.completion_reason;
  if (reason === 'user_cancelled') return 5;
  if (reason === 'agent_error') return 4;
  if (reason === 'budget_exceeded' && result.state.map_metadata.file_count === 0) return 1;
  return 0;
}

/**
 * USD estimate of the next call, as the budget check computes it: gpt-tokenizer (cl100k_base) over the messages and tools
 * (with the margin of `estimateInputTokens`) plus the full output cap, at the session's prices.
 */
export async function estimateCallUsd(request: Pick<LlmGenerateRequest, 'messages' | 'answer' | 'maxOutputTokens'>, pricing: ModelPricingRates): Promise<{ inputTokens: number; outputTokens: number; usd: number }> {
  const inputTokens = await estimateInputTokens(request);
  return { inputTokens, outputTokens: request.maxOutputTokens, usd: costUsd(pricing, inputTokens, request.maxOutputTokens) };
}

/** True when a call estimated at `usd` cannot take the spend past the limit. */
export function affordable(state: NavigatorState, usd: number): boolean {
  const b = state.budget_config;
  return b.current_spend_usd + usd <= b.max_spend_usd + 1e-12;
}

function checkInputs(repo: string, task: string, tokens: number, usd: number, maxIterations: number): void {
  if (!task.trim()) throw new NavkernelError('INVALID_CONFIG', 'the task (--task) must be non-empty');
  if (!Number.isInteger(tokens) || tokens <= 0) throw new NavkernelError('INVALID_CONFIG', `the token budget must be a positive integer (got ${tokens})`);
  if (!(usd > 0)) throw new NavkernelError('INVALID_CONFIG', `the USD limit must be > 0 (got ${usd})`);
  if (!Number.isInteger(maxIterations) || maxIterations <= 0) throw new NavkernelError('INVALID_CONFIG', `max iterations must be a positive integer (got ${maxIterations})`);
  if (!existsSync(repo) || !statSync(repo).isDirectory()) throw new NavkernelError('REPO_NOT_FOUND', `repository not found: ${repo}`);
}

/** Starts a session: the navigator's deterministic plan, rendered; then the model refines it (unless `noLlm`). */
export async function runExplorer(options: ExplorerStartOptions): Promise<ExplorerResult> {
  const env = { ...realEnv, ...options.env };
  const tokens = options.tokens ?? 20000;
  const maxSpend = options.maxSpendUsd ?? 2.0;
  const maxIterations = options.maxIterations ?? 20;
  checkInputs(options.repo, options.task, tokens, maxSpend, maxIterations);
  if (!options.noLlm && !options.model) throw new NavkernelError('INVALID_CONFIG', 'no model: pass one, or run with noLlm');
  const repo = path.resolve(options.repo);
  const pricing = pricingFor(options.noLlm ? undefined : options.model, options.pricing);
  const start = await startingFlightPlan(repo, options.task, tokens, { ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}), ...(options.registryFile ? { registryFile: options.registryFile } : {}) });
  const state = NavigatorState.parse({
    user_task: options.task,
    repo_path: repo,
    execution_mode: options.interactive ? 'interactive' : 'autonomous',
    budget_config: { max_spend_usd: maxSpend, current_spend_usd: options.spentUsd ?? 0, model_pricing_rates: pricing },
    flight_plan: start.plan,
  });
  const config = ExplorerSessionConfig.parse({
    model: options.noLlm ? null : (options.modelSpec ?? `${options.model!.provider}:${options.model!.modelId}`),
    max_iterations: maxIterations,
    token_limit: tokens,
    max_output_tokens: options.maxOutputTokens ?? 1024,
    excerpt_tokens: options.viewLimits?.excerptTokens ?? DEFAULT_VIEW_LIMITS.excerptTokens,
    persona: options.noLlm ? null : (resolvePersona(options.persona, options.task) ?? null),
    escalate_to: options.noLlm || !options.escalation ? null : specOf(options.escalation.model, options.escalation.modelSpec),
    stall_turns: options.stall?.noChangeTurns ?? DEFAULT_STALL_POLICY.noChangeTurns,
    repeat_limit: options.stall?.repeatedCalls ?? DEFAULT_STALL_POLICY.repeatedCalls,
  });
  if (options.escalation && !options.noLlm) pricingFor(options.escalation.model, options.escalation.pricing);
  if (options.noLlm) {
    state.exploration_complete = true;
    state.completion_reason = 'no_llm';
    state.reasoning_summary = `Deterministic start, no model call. ${start.summary}`;
  }
  const session = new Session(options.sessionId ?? env.newSessionId(), state, config, options, env, start.index);
  const result = await session.run();
  return { ...result, start };
}

/** Carries on a saved session from its last saved step. */
export async function resumeExplorer(store: ExplorerSessionStore, sessionId: string, options: ExplorerRunOptions = {}): Promise<ExplorerResult> {
  const env = { ...realEnv, ...options.env };
  const saved = store.load(sessionId);
  if (!saved) throw new NavkernelError('SESSION_NOT_FOUND', `no explorer session ${sessionId} in the ledger`);
  if (!existsSync(saved.state.repo_path)) throw new NavkernelError('REPO_NOT_FOUND', `repository not found: ${saved.state.repo_path}`);
  if (!saved.state.exploration_complete && !options.model) throw new NavkernelError('INVALID_CONFIG', `session ${sessionId} needs a model to carry on (it used ${saved.config.model ?? 'none'})`);
  if (!saved.state.exploration_complete && saved.config.escalated_at_step != null && !options.escalation)
    throw new NavkernelError('INVALID_CONFIG', `session ${sessionId} escalated to ${saved.config.escalate_to ?? 'a stronger model'} at step ${saved.config.escalated_at_step + 1}: pass that model to carry on`);
  if (options.interactive !== undefined) saved.state.execution_mode = options.interactive ? 'interactive' : 'autonomous';
  const session = new Session(sessionId, saved.state, saved.config, { ...options, store }, env);
  return session.run();
}

const specOf = (model: LanguageModel, spec?: string) => spec ?? `${model.provider}:${model.modelId}`;

class Session {
  private index!: RepoIndex;
  /** The navigator's full-text lookup: focus symbols boost files that contain them (bodies, strings), not only definers. */
  private symbolFiles: SymbolFiles | undefined;
  private render!: RenderResult;
  private notes: string[] = [];
  private calls = 0;
  private error: string | undefined;
  private readonly limits: ViewLimits;
  private readonly persona: PersonaName | undefined;
  /** Model calls made since the last save: saved with the state, in the same transaction. */
  private pendingCalls: ExplorerCall[] = [];
  private readonly policy: StallPolicy;

  constructor(
    readonly id: string,
    private state: NavigatorState,
    private config: ExplorerSessionConfig,
    private readonly options: ExplorerRunOptions,
    private readonly env: ExplorerEnv,
    /** The navigator's index from the starting plan (a resumed session opens it from the same cache). */
    private prepared?: NavigatorIndex,
  ) {
    this.limits = { ...DEFAULT_VIEW_LIMITS, ...options.viewLimits, excerptTokens: config.excerpt_tokens };
    // Sessions saved before personas carry none: they get the task's persona (auto), then keep it.
    if (config.persona === undefined) this.config = { ...config, persona: resolvePersona('auto', state.user_task) ?? null };
    this.persona = (this.config.persona ?? undefined) as PersonaName | undefined;
    this.policy = { noChangeTurns: this.config.stall_turns ?? DEFAULT_STALL_POLICY.noChangeTurns, repeatedCalls: this.config.repeat_limit ?? DEFAULT_STALL_POLICY.repeatedCalls };
  }

  private get escalated(): boolean {
    return this.config.escalated_at_step != null;
  }

  /** The model of the next call: the escalated one once the session moved to it. */
  private currentModel(): LanguageModel | undefined {
    return this.escalated ? this.options.escalation?.model : this.options.model;
  }

  private currentSpec(): string {
    const model = this.currentModel();
    if (this.escalated) return this.config.escalate_to ?? (model ? specOf(model) : 'escalated');
    return this.config.model ?? (model ? specOf(model) : 'none');
  }

  private async renderPlan(plan: FlightPlan): Promise<RenderResult> {
    return renderFlightPlan(this.state.repo_path, plan, { index: this.index, ...(this.symbolFiles ? { symbolFiles: this.symbolFiles } : {}), title: `# Repository map for: ${this.state.user_task.replace(/\s+/g, ' ').trim()}` });
  }

  private save(): void {
    this.options.store?.save(this.id, this.state, this.config, this.env.now(), this.pendingCalls);
    this.pendingCalls = [];
  }

  private complete(reason: CompletionReason, summary?: string): void {
    this.state.exploration_complete = true;
    this.state.completion_reason = reason;
    this.state.interactive_pause = false;
    if (summary !== undefined) this.state.reasoning_summary = summary;
    else if (!this.state.reasoning_summary) {
      const last = this.state.decision_log[this.state.decision_log.length - 1];
      this.state.reasoning_summary = `Stopped (${reason}) after ${this.state.decision_log.length} step(s).${last ? ` Last reasoning: ${last.reasoning}` : ''}`;
    }
  }

  async run(): Promise<ExplorerResult> {
    // The same index the navigator built for the starting plan: the repository is not scanned or parsed again.
    const nav = this.prepared ?? (await openNavigatorIndex(this.state.repo_path, this.options.cacheDir !== undefined ? { cacheDir: this.options.cacheDir } : {}));
    this.prepared = nav;
    this.index = nav.repo;
    this.symbolFiles = (symbol) => nav.filesWith(symbol);
    this.render = await this.renderPlan(this.state.flight_plan);
    this.state.map_metadata = this.render.metadata;
    this.save();
    while (!this.state.exploration_complete) {
      if (this.state.decision_log.length >= this.config.max_iterations) {
        this.complete('max_iterations');
        break;
      }
      const stepped = await this.step();
      this.save();
      if (!stepped) break;
      const report = buildTurnReport(this.state, this.render.files, this.env.now());
      this.options.onStep?.(report, this.state);
      if (!this.state.exploration_complete && this.state.execution_mode === 'interactive' && this.options.ask) await this.breakpoint(report);
    }
    this.save();
    return {
      session_id: this.id,
      state: this.state,
      output: buildNavigatorOutput(this.state, this.render.text, this.id),
      render: this.render,
      llm_calls: this.calls,
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** One model call and its decision. False when the session ended without a step (budget, provider error). */
  private async step(): Promise<boolean> {
    let escalatedNow: { from: string; to: string; reason: string } | undefined;
    const stall = detectStall(this.state.decision_log, this.policy, this.config.escalated_at_step ?? 0);
    if (stall && !this.escalated && this.options.escalation && this.config.escalate_to) {
      escalatedNow = await this.tryEscalation(stall);
    }
    if (stall && !escalatedNow) {
      if (stall.kind === 'repeated_call') {
        const why = this.escalated ? ` after escalating to ${this.currentSpec()}` : this.config.escalate_to ? '' : ' (no stronger model to move to)';
        this.complete('stalled', `Stalled: ${stall.reason}${why}; ended instead of spending the remaining ${this.config.max_iterations - this.state.decision_log.length} iteration(s). ${this.notes.filter((n) => n.startsWith('escalation')).join(' ')}`.trim());
        return false;
      }
      // Seed 004: a hard warning in the next prompt.
      this.notes.push(`stall warning: ${stall.reason}; change the plan with ${UPDATE_TOOL} or end with ${FINALIZE_TOOL}`);
    }
    const model = this.currentModel();
    if (!model) throw new NavkernelError('INVALID_CONFIG', 'no model to carry on the session');
    const request = this.request();
    const pricing = this.state.budget_config.model_pricing_rates;
    const estimate = await estimateCallUsd(request, pricing);
    const allowed = affordable(this.state, estimate.usd);
    const b = this.state.budget_config;
    this.options.onBudgetCheck?.({ estimateUsd: estimate.usd, inputTokens: estimate.inputTokens, outputTokens: estimate.outputTokens, spentUsd: b.current_spend_usd, limitUsd: b.max_spend_usd, allowed });
    if (!allowed) {
      this.complete('budget_exceeded');
      this.notes.push(`budget: the next call (~$${estimate.usd.toFixed(6)}) would pass the limit ($${b.current_spend_usd} spent of $${b.max_spend_usd})`);
      return false;
    }
    const attempts = await generateWithRetry(model, request, { ...(this.options.retry ? { policy: this.options.retry } : {}), ...(this.options.signal ? { signal: this.options.signal } : {}) });
    this.calls++;
    this.recordCalls(model, request, attempts);
    const last = attempts[attempts.length - 1]!;
    if (!last.ok) {
      this.error = last.error.message;
      this.complete('agent_error');
      return false;
    }
    this.notes = [];
    const res = last.result;
    const cost = costUsd(pricing, res.usage.inputTokens, res.usage.outputTokens);
    b.current_spend_usd = Math.round((b.current_spend_usd + cost) * 1e9) / 1e9;
    const entry = await this.decide(res.toolCalls, res.text, cost);
    entry.model = this.currentSpec();
    entry.call_signature = callSignature(res.toolCalls[0], res.text);
    if (escalatedNow) entry.escalated = escalatedNow;
    this.state.decision_log.push(entry);
    return true;
  }

  /**
   * Moves a stalled session to the stronger model when its next call fits the USD budget at that model's
   * prices; otherwise says why not in the next prompt's notes and stays.
   */
  private async tryEscalation(stall: Stall): Promise<{ from: string; to: string; reason: string } | undefined> {
    const esc = this.options.escalation!;
    const to = this.config.escalate_to!;
    const from = this.currentSpec();
    const pricing = pricingFor(esc.model, esc.pricing);
    this.notes.push(`escalated from ${from} to ${to}: ${stall.reason}`);
    const estimate = await estimateCallUsd(this.request(), pricing);
    const b = this.state.budget_config;
    if (b.current_spend_usd + estimate.usd > b.max_spend_usd + 1e-12) {
      this.notes.pop();
      this.notes.push(`escalation to ${to} not affordable: its next call (~$${estimate.usd.toFixed(6)}) would pass the limit ($${b.current_spend_usd} spent of $${b.max_spend_usd})`);
      return undefined;
    }
    this.config = { ...this.config, escalated_at_step: this.state.decision_log.length };
    b.model_pricing_rates = pricing;
    return { from, to, reason: stall.reason };
  }

  private request(): Omit<LlmGenerateRequest, 'signal'> {
    return {
      messages: withPersona(buildExplorerMessages({
        state: this.state,
        files: this.render.files,
        mapText: this.render.text,
        maxIterations: this.config.max_iterations,
        tokenLimit: this.config.token_limit,
        notes: this.notes,
        limits: this.limits,
      }), this.persona),
      answer: { kind: 'tools', tools: explorerTools(), choice: 'required' },
      maxOutputTokens: this.config.max_output_tokens,
      temperature: 0,
    };
  }

  /** Each attempt of this step's call as an LlmCallRecord (purpose `explore`): saved with the step, and handed to `onLlmCall`. */
  private recordCalls(model: LanguageModel, request: Omit<LlmGenerateRequest, 'signal'>, attempts: Awaited<ReturnType<typeof generateWithRetry>>): void {
    const secrets = environmentSecrets();
    const hash = promptHash(request);
    const pricing = this.state.budget_config.model_pricing_rates;
    const step = this.state.decision_log.length + 1;
    attempts.forEach((at, i) => {
      const base = { provider: model.provider, model: model.modelId, purpose: 'explore', ...(this.persona ? { persona: this.persona } : {}), attempt: i + 1, prompt_hash: hash };
      const latency_ms = Math.round(at.latencyMs * 1000) / 1000;
      const record: LlmCallRecord = at.ok
        ? {
            ...base,
            raw_answer: redactSecrets(JSON.stringify({ text: at.result.text, tool_calls: at.result.toolCalls }), secrets).slice(0, 10_000),
            outcome: 'ok',
            input_tokens: at.result.usage.inputTokens,
            output_tokens: at.result.usage.outputTokens,
            usd: costUsd(pricing, at.result.usage.inputTokens, at.result.usage.outputTokens),
            latency_ms,
          }
        : { ...base, raw_answer: null, outcome: at.error.outcome, error: redactSecrets(at.error.message, secrets), input_tokens: 0, output_tokens: 0, usd: 0, latency_ms };
      this.pendingCalls.push({ step, record });
      this.options.onLlmCall?.(record, step);
    });
  }

  private async decide(calls: { id: string; name: string; input: unknown }[], text: string, cost: number): Promise<DecisionLogEntry> {
    const base = { step: this.state.decision_log.length + 1, timestamp: this.env.now().toISOString(), cost_usd: cost };
    const call = calls[0];
    if (!call) {
      const reason = `no tool was called: answer with ${UPDATE_TOOL} or ${FINALIZE_TOOL}`;
      return { ...base, action: UPDATE_TOOL, reasoning: text.trim() || '(none given)', config_diff: {}, rejected: { reason, input: text } };
    }
    const known = call.name === UPDATE_TOOL || call.name === FINALIZE_TOOL;
    const action = call.name === FINALIZE_TOOL ? FINALIZE_TOOL : UPDATE_TOOL;
    const read = readToolCall(call);
    const reject = (reason: string, reasoning?: string): DecisionLogEntry => ({
      ...base,
      action,
      reasoning: reasoning || '(none given)',
      config_diff: {},
      rejected: { reason: calls.length > 1 ? `${reason} (only the first tool call of an answer is used)` : reason, ...(known ? { tool: call.name } : {}), input: known ? call.input : { tool: call.name, input: call.input } },
    });
    if (read.kind === 'invalid') return reject(read.reason, read.reasoning);
    if (read.kind === 'finalize') {
      this.complete('agent_done', read.reasoning);
      return { ...base, action: FINALIZE_TOOL, reasoning: read.reasoning, config_diff: {} };
    }
    const checked = await checkFlightPlanDiff(read.configDiff, { plan: this.state.flight_plan, index: this.index, tokenLimit: this.config.token_limit });
    if (!checked.ok) return reject(checked.reason, read.reasoning);
    let render: RenderResult;
    try {
      render = await this.renderPlan(checked.plan);
    } catch (err) {
      return reject(`the plan does not render: ${err instanceof Error ? err.message : String(err)}`, read.reasoning);
    }
    this.state.flight_plan = checked.plan;
    this.render = render;
    this.state.map_metadata = render.metadata;
    return { ...base, action: UPDATE_TOOL, reasoning: read.reasoning, config_diff: checked.diff };
  }

  private async breakpoint(first: TurnReport): Promise<void> {
    this.state.interactive_pause = true;
    this.save();
    let report = first;
    for (;;) {
      const cmd = await this.options.ask!(report, { mapText: () => this.render.text, planYaml: () => flightPlanYaml(this.state.flight_plan) });
      if (cmd.kind === 'continue') break;
      if (cmd.kind === 'feedback') {
        // Kept on the step's log entry (saved), so a resumed session prompts with it exactly as this one does.
        const last = this.state.decision_log[this.state.decision_log.length - 1];
        if (last) last.user_feedback = cmd.text;
        this.save();
        break;
      }
      if (cmd.kind === 'finalize') {
        const last = this.state.decision_log[this.state.decision_log.length - 1];
        this.complete('user_finalized', `Finalized by the user after ${this.state.decision_log.length} step(s).${last && !last.rejected ? ` Last reasoning: ${last.reasoning}` : ''}`);
        return;
      }
      if (cmd.kind === 'abort') {
        this.complete('user_cancelled', 'Cancelled by the user.');
        return;
      }
      if (cmd.kind === 'set_tokens') {
        this.config = { ...this.config, token_limit: cmd.tokens };
        this.state.flight_plan = { ...this.state.flight_plan, budget: cmd.tokens };
        this.render = await this.renderPlan(this.state.flight_plan);
        this.state.map_metadata = this.render.metadata;
        this.notes.push(`the user set the token budget to ${cmd.tokens}`);
      } else {
        this.state.budget_config.max_spend_usd = cmd.usd;
        this.notes.push(`the user set the USD limit to $${cmd.usd}`);
      }
      this.save();
      report = buildTurnReport(this.state, this.render.files, this.env.now());
    }
    this.state.interactive_pause = false;
  }
}
