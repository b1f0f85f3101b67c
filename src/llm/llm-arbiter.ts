import { z } from 'zod';
import { NavkernelError, type CandidateMove, type LlmCallRecord, type ArbiterAnswer, type ArbiterInput, type ArbiterPort, type ProposedNode, type RejectedMove } from '../contracts/index.js';
import type { LanguageModel, LlmAnswerSpec, LlmGenerateRequest, LlmGenerateResult, LlmMessage } from './language-model.js';
import { DEFAULT_BUDGET_USD } from './budget.js';
import { charterViolation } from './charter-check.js';
import { goalMisalignment } from '../contracts/charter-terms.js';
import { DEFAULT_PROMPT_LIMITS, ARBITER_TOOL_NAME, buildArbiterMessages, arbiterAnswerSchema, type PromptLimits } from './arbiter-prompt.js';
import { costUsd, findPricing, type ModelPricing } from './pricing.js';
import { promptHash } from './prompt-hash.js';
import { environmentSecrets, redactSecrets, redactValue } from '../redact.js';
import { generateWithRetry, type RetryEnv, type RetryPolicy } from './retry.js';
import { countTokens } from './token-estimate.js';
import { resolvePersona, withPersona, type PersonaChoice, type PersonaName } from './personas.js';

/** Options of createLlmArbiter: the model, budget, persona and prompt limits. */
export interface LlmArbiterOptions {
  /** USD a run may spend on tier 3 (default 2.00, seed 000). */
  budgetUsd?: number;
  /** Price overrides (prices change); presets otherwise. */
  pricing?: readonly ModelPricing[];
  /** Output cap per call, also the output side of the pre-call estimate (default 300). */
  maxOutputTokens?: number;
  /** Default 0: routing is classification. */
  temperature?: number;
  /** Per-attempt timeout, attempts, total time, back-off (defaults: 5 s, 3, 15 s, 250 ms doubling). */
  retry?: Partial<RetryPolicy>;
  /** Clock, sleep and randomness of the retry loop (tests and replays). */
  retryEnv?: Partial<RetryEnv>;
  promptLimits?: Partial<PromptLimits>;
  /** Multiplier on the cl100k_base input count: Claude and Gemini tokenizers count more than cl100k (default 1.25). */
  estimateMargin?: number;
  /** How many times an invalid answer is asked again (default 1, at most 1 is sensible). */
  invalidAnswerRetries?: number;
  /** More strings that must never reach a record (provider keys from the environment are always redacted). */
  secrets?: readonly string[];
  /**
   * Persona style prior added last to the system prompt (seed 002): a name, `auto` (default: chosen from the
   * charter's goal and key question) or `none`. Style only: candidates, schema, budget and checks ignore it.
   */
  persona?: PersonaChoice;
}

const ProposalShape = z
  .object({
    candidate_id: z.string(),
    reason: z.string().optional(),
    confidence: z.number().min(0).max(1).optional(),
    inject_nodes: z.array(z.object({ id: z.string(), agent: z.string(), purpose: z.string().optional() }).loose()).optional(),
  })
  .loose();

type Rejection = Omit<RejectedMove, 'tier'>;
type Proposal = NonNullable<ArbiterAnswer['proposal']>;

const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const MAX_RAW_CHARS = 10_000;

function oneLine(s: string | undefined, max = 200): string {
  const line = (s ?? '').replace(/\s+/g, ' ').trim();
  if (line === '') return 'no reason given by the model';
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function verbatim(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length <= 120 ? line : `${line.slice(0, 119)}…`;
}

/** Why a set of proposed nodes is refused, or undefined. */
function nodesProblem(nodes: readonly ProposedNode[] | undefined, input: ArbiterInput): string | undefined {
  const rules = input.inject_nodes;
  if (!rules.allowed) return `flow ${input.flow} does not allow INJECT_NODES`;
  if (!nodes || nodes.length === 0) return 'inject_nodes chosen without any node';
  if (nodes.length > rules.max_nodes) return `${nodes.length} nodes proposed, at most ${rules.max_nodes} allowed`;
  const taken = new Set<string>([input.step, ...input.candidates.map((c) => c.target ?? '').filter(Boolean)]);
  const seen = new Set<string>();
  for (const n of nodes) {
    if (!NODE_ID.test(n.id)) return `node id ${JSON.stringify(verbatim(n.id))} is not a valid step id`;
    if (seen.has(n.id)) return `node id ${n.id} is proposed twice`;
    if (taken.has(n.id)) return `node id ${n.id} collides with an existing step`;
    if (!rules.roster.includes(n.agent)) return `agent ${JSON.stringify(verbatim(n.agent))} is not in the flow's roster`;
    seen.add(n.id);
  }
  return undefined;
}

/** Checks one answer: it parses, names a legal candidate, respects the charter, and its nodes are valid. */
export function judgeArbiterAnswer(
  result: Pick<LlmGenerateResult, 'object' | 'parseError' | 'rawAnswer' | 'finishReason'>,
  input: ArbiterInput,
  offered: readonly CandidateMove[],
): { ok: true; proposal: Proposal } | { ok: false; rejected: Rejection } {
  if (result.object === undefined) {
    const cut = result.finishReason === 'length' ? ' (the answer was cut at the output cap)' : '';
    return { ok: false, rejected: { rule: 'llm_unparseable', decision: verbatim(result.rawAnswer) || '(empty answer)', target: null, why: `the answer is not JSON: ${result.parseError ?? 'no answer'}${cut}` } };
  }
  const shape = ProposalShape.safeParse(result.object);
  if (!shape.success) {
    const why = shape.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'answer'}: ${i.message}`).join('; ');
    return { ok: false, rejected: { rule: 'llm_invalid_answer', decision: verbatim(result.rawAnswer), target: null, why: `the answer does not have the asked shape: ${why}` } };
  }
  const a = shape.data;
  const id = a.candidate_id.trim();
  const candidate = input.candidates.find((c) => c.id === id);
  if (!candidate) {
    return {
      ok: false,
      rejected: { rule: 'llm_unknown_candidate', decision: verbatim(a.candidate_id), target: null, why: `not one of the legal moves (${offered.map((c) => c.id).join(', ')})` },
    };
  }
  const nodes = candidate.decision === 'INJECT_NODES' ? a.inject_nodes?.map((n) => ({ id: n.id, agent: n.agent, ...(n.purpose ? { purpose: oneLine(n.purpose) } : {}) })) : undefined;
  const violation = charterViolation(candidate, input.charter, nodes?.map((n) => n.id));
  if (violation) return { ok: false, rejected: { rule: 'llm_charter_violation', decision: candidate.decision, target: candidate.target, why: violation } };
  if (!offered.some((c) => c.id === id)) {
    return { ok: false, rejected: { rule: 'llm_unknown_candidate', decision: id, target: candidate.target, why: 'this move was not offered' } };
  }
  if (candidate.decision === 'INJECT_NODES') {
    const bad = nodesProblem(nodes, input);
    if (bad) return { ok: false, rejected: { rule: 'llm_invalid_nodes', decision: 'INJECT_NODES', target: null, why: bad } };
  }
  // The kernel checks goal alignment again (for every ArbiterPort); checking here lets the model answer again.
  const drift = goalMisalignment(candidate.decision, candidate.fixes !== undefined, input.charter, { reason: a.reason, nodes });
  if (drift) return { ok: false, rejected: { rule: 'llm_goal_misaligned', decision: candidate.decision, target: candidate.target, why: drift } };
  return {
    ok: true,
    proposal: {
      candidate_id: id,
      reason: oneLine(a.reason),
      ...(a.confidence !== undefined ? { confidence: a.confidence } : {}),
      ...(nodes ? { inject_nodes: nodes } : {}),
    },
  };
}

/** Prices for a model: overrides, presets; a scripted model without a `model` to price as costs nothing. */
export function pricingForModel(model: LanguageModel, overrides: readonly ModelPricing[] = []): ModelPricing {
  const id = model.pricingModelId ?? model.modelId;
  const found = findPricing(id, overrides);
  if (found) return found;
  if (model.provider === 'scripted' && !model.pricingModelId) return { model_name: id, input_per_million: 0, output_per_million: 0 };
  throw new NavkernelError('LLM_UNPRICED', `no price known for model ${id}: add it to the pricing table (input_per_million, output_per_million)`);
}

/** Upper estimate of a request's input tokens: cl100k_base tokens over the messages and the schema, times a margin. */
export async function estimateInputTokens(req: Pick<LlmGenerateRequest, 'messages' | 'answer'>, margin = 1.25): Promise<number> {
  const text = req.messages.map((m) => m.content).join('\n') + JSON.stringify(req.answer);
  return Math.ceil((await countTokens(text)) * margin) + 8 * req.messages.length;
}

/** The persona a tier-3 call loads for this input: `auto` chooses from the charter's goal and key question. */
export function arbiterPersona(input: Pick<ArbiterInput, 'charter'>, choice: PersonaChoice | undefined): PersonaName | undefined {
  return resolvePersona(choice, `${input.charter.goal}\n${input.charter.key_question}`);
}

/**
 * The first request of a tier-3 call: the candidates offered (those the charter allows), the answer spec, the
 * messages. The persona is applied last, to the messages only: `offered` and `answer` never depend on it.
 */
export function prepareArbiterCall(
  input: ArbiterInput,
  limits: PromptLimits = DEFAULT_PROMPT_LIMITS,
  persona?: PersonaName,
): { offered: CandidateMove[]; answer: LlmAnswerSpec; messages: LlmMessage[] } {
  const offered = input.candidates.filter((c) => !charterViolation(c, input.charter));
  const answer: LlmAnswerSpec = { kind: 'object', name: ARBITER_TOOL_NAME, description: 'Choose the next move of the flow from the candidates.', schema: arbiterAnswerSchema(input, offered) };
  return { offered, answer, messages: withPersona(buildArbiterMessages(input, offered, limits), persona) };
}

/** The pre-call USD estimate of the first tier-3 call for `input` (input tokens × margin + the output cap), as the budget check computes it. */
export async function estimateArbiterCallUsd(model: LanguageModel, input: ArbiterInput, options: LlmArbiterOptions = {}): Promise<number> {
  const { answer, messages } = prepareArbiterCall(input, { ...DEFAULT_PROMPT_LIMITS, ...options.promptLimits }, arbiterPersona(input, options.persona));
  const tokens = await estimateInputTokens({ messages, answer }, options.estimateMargin ?? 1.25);
  return costUsd(pricingForModel(model, options.pricing), tokens, options.maxOutputTokens ?? 300);
}

/**
 * Tier 3 on a language model. The model sees only whitelisted measurements, the charter, the iteration
 * counts and the legal candidates; it must answer with one candidate id (an enum in the answer schema).
 * Each call is checked against the run's USD budget first; invalid answers are refused and asked again once;
 * timeouts, 429 and 5xx are retried within a bounded time. The promise never rejects for model trouble.
 */
export function createLlmArbiter(model: LanguageModel, options: LlmArbiterOptions = {}): ArbiterPort {
  const pricing = pricingForModel(model, options.pricing);
  const budgetUsd = options.budgetUsd ?? DEFAULT_BUDGET_USD;
  const maxOutputTokens = options.maxOutputTokens ?? 300;
  const temperature = options.temperature ?? 0;
  const limits: PromptLimits = { ...DEFAULT_PROMPT_LIMITS, ...options.promptLimits };
  const margin = options.estimateMargin ?? 1.25;
  const invalidRetries = Math.max(0, Math.min(1, options.invalidAnswerRetries ?? 1));
  const now = options.retryEnv?.now ?? (() => performance.now());

  return async function arbitrate(input: ArbiterInput): Promise<ArbiterAnswer> {
    const secrets = [...environmentSecrets(), ...(options.secrets ?? [])];
    const clean = (s: string): string => redactSecrets(s, secrets);
    const calls: LlmCallRecord[] = [];
    const rejected: Rejection[] = [];
    let cost = 0;
    const persona = arbiterPersona(input, options.persona);
    try {
      const { offered, answer, messages: firstMessages } = prepareArbiterCall(input, limits, persona);
      let messages: LlmMessage[] = firstMessages;
      for (let round = 0; round <= invalidRetries; round++) {
        const request = { messages, answer, maxOutputTokens, temperature };
        const hash = promptHash(request);
        const estimate = costUsd(pricing, await estimateInputTokens(request, margin), maxOutputTokens);
        const spent = input.run_spent_usd + cost;
        if (spent + estimate > budgetUsd + 1e-12) {
          const reason = `this call could cost up to $${estimate.toFixed(6)} and the run has spent $${spent.toFixed(6)} of its $${budgetUsd.toFixed(2)} budget`;
          if (calls.length === 0) return { rejected, skipped: { rule: 'budget_exceeded', reason }, calls, cost_usd: 0 };
          calls.push(record({ attempt: calls.length + 1, prompt_hash: hash, raw_answer: null, outcome: 'budget_exceeded', error: reason, input_tokens: 0, output_tokens: 0, usd: 0, latency_ms: 0 }));
          break;
        }
        const attempts = await generateWithRetry(model, request, { ...(options.retry ? { policy: options.retry } : {}), signal: input.signal, env: { ...options.retryEnv, now } });
        let last: LlmGenerateResult | undefined;
        for (const at of attempts) {
          if (at.ok) {
            const usd = costUsd(pricing, at.result.usage.inputTokens, at.result.usage.outputTokens);
            cost = Math.round((cost + usd) * 1e9) / 1e9;
            last = at.result;
            calls.push(
              record({
                attempt: calls.length + 1,
                prompt_hash: hash,
                raw_answer: clean(at.result.rawAnswer).slice(0, MAX_RAW_CHARS),
                outcome: 'ok',
                input_tokens: at.result.usage.inputTokens,
                output_tokens: at.result.usage.outputTokens,
                usd,
                latency_ms: ms(at.latencyMs),
              }),
            );
          } else {
            calls.push(
              record({ attempt: calls.length + 1, prompt_hash: hash, raw_answer: null, outcome: at.error.outcome, error: clean(at.error.message), input_tokens: 0, output_tokens: 0, usd: 0, latency_ms: ms(at.latencyMs) }),
            );
          }
        }
        if (!last) {
          const final = attempts[attempts.length - 1];
          const why = final && !final.ok ? clean(final.error.message) : 'no attempt made';
          return { rejected, skipped: { rule: 'llm_unavailable', reason: `${attempts.length} attempt(s) failed; last: ${why}` }, calls, cost_usd: cost };
        }
        const verdict = judgeArbiterAnswer(last, input, offered);
        const rec = calls[calls.length - 1]!;
        if (verdict.ok) {
          rec.parsed = verdict.proposal;
          return { proposal: verdict.proposal, rejected, calls, cost_usd: cost };
        }
        rec.outcome = 'invalid_answer';
        rec.error = clean(`${verdict.rejected.rule}: ${verdict.rejected.why}`);
        if (last.object !== undefined) rec.parsed = redactValue(last.object, secrets);
        rejected.push({ ...verdict.rejected, decision: clean(verdict.rejected.decision), why: clean(verdict.rejected.why) });
        messages = [
          ...messages,
          { role: 'assistant', content: clean(last.rawAnswer) || '(empty answer)' },
          { role: 'user', content: `That answer was refused: ${verdict.rejected.why}. Answer again with the ${ARBITER_TOOL_NAME} tool and exactly one id from candidates.` },
        ];
      }
      return { rejected, calls, cost_usd: cost };
    } catch (err) {
      // Only a bug can land here (the retry loop never throws): still, the kernel must not fail because of tier 3.
      return { rejected, skipped: { rule: 'llm_error', reason: clean(err instanceof Error ? err.message : String(err)) }, calls, cost_usd: cost };
    }

    function record(r: Omit<LlmCallRecord, 'provider' | 'model' | 'purpose'>): LlmCallRecord {
      return { provider: model.provider, model: model.modelId, purpose: 'route', ...(persona ? { persona } : {}), ...r };
    }
  };
}

function ms(x: number): number {
  return Math.round(x * 1000) / 1000;
}

