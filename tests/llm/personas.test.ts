import { describe, expect, it } from 'vitest';
import type { Decision, ArbiterInput } from '../../src/contracts/index.js';
import {
  DEFAULT_PROMPT_LIMITS,
  PERSONA_NAMES,
  buildArbiterMessages,
  choosePersona,
  createLlmArbiter,
  createScriptedModel,
  arbiterPersona,
  parsePersonaChoice,
  personaLayer,
  prepareArbiterCall,
  type PersonaChoice,
} from '../../src/llm/index.js';
import { req, ruleKernel, testFlows } from '../support/kernel-fixtures.js';
import { arbiterInput } from './arbiter-fixture.js';

const CHOICES: PersonaChoice[] = ['none', 'auto', ...PERSONA_NAMES];

describe('persona priors (seed 002): style only, loaded last', () => {
  it('chooses by task domain under auto: knuth for algorithms, feynman for first principles, shannon otherwise', () => {
    expect(choosePersona('Speed up the B-tree index search algorithm')).toBe('knuth');
    expect(choosePersona('Which data structures back the job queue?')).toBe('knuth');
    expect(choosePersona('Derive the simulation energy equation from first principles')).toBe('feynman');
    expect(choosePersona('Compress the token encoding of the wire protocol')).toBe('shannon');
    expect(choosePersona('Fix the login redirect bug')).toBe('shannon');
    expect(parsePersonaChoice(undefined)).toBe('auto');
    expect(parsePersonaChoice('Knuth')).toBe('knuth');
    expect(() => parsePersonaChoice('turing')).toThrow(/--persona must be one of shannon, knuth, feynman, auto, none/);
  });

  it('adds the style block after the safety rules and changes nothing else of the tier-3 request', () => {
    const input = arbiterInput();
    const base = prepareArbiterCall(input, DEFAULT_PROMPT_LIMITS, undefined);
    const system = buildArbiterMessages(input, base.offered)[0]!.content;
    for (const choice of CHOICES) {
      const persona = arbiterPersona(input, choice);
      const call = prepareArbiterCall(input, DEFAULT_PROMPT_LIMITS, persona);
      expect(call.offered).toEqual(base.offered); // the candidates
      expect(call.answer).toEqual(base.answer); // the schema (enum of ids)
      expect(call.messages.slice(1)).toEqual(base.messages.slice(1)); // the measurements
      const sys = call.messages[0]!.content;
      expect(sys.startsWith(system)).toBe(true); // safety rules first, untouched
      if (persona) expect(sys.endsWith(personaLayer(persona))).toBe(true); // persona last
      else expect(sys).toBe(system);
    }
  });

  it('never changes the legal answers or lets an answer past a gate, and each call records its persona', async () => {
    // The same model answers, per persona: an illegal id, a charter-violating detour, a legal loop.
    const script = [
      { answer: { candidate_id: 'terminate', reason: 'done' } },
      { answer: { candidate_id: 'detour:refactor-auth', reason: 'while we are here' } },
      { answer: { candidate_id: 'loop:implement', reason: 'two tests fail' } },
    ];
    const outcomes = [];
    for (const choice of CHOICES) {
      const navigate = createLlmArbiter(createScriptedModel(script), { persona: choice, invalidAnswerRetries: 1 });
      const first = await navigate(arbiterInput());
      const second = await createLlmArbiter(createScriptedModel(script.slice(1)), { persona: choice, invalidAnswerRetries: 0 })(arbiterInput());
      outcomes.push({ first: { proposal: first.proposal, rejected: first.rejected }, second: { proposal: second.proposal, rejected: second.rejected } });
      const expected = arbiterPersona(arbiterInput(), choice);
      for (const c of [...first.calls, ...second.calls]) expect(c.persona).toBe(expected);
    }
    for (const o of outcomes) expect(o).toEqual(outcomes[0]);
    expect(outcomes[0]!.first.proposal).toBeUndefined();
    expect(outcomes[0]!.first.rejected.map((r) => r.rule)).toEqual(['llm_unknown_candidate', 'llm_charter_violation']);
    expect(outcomes[0]!.second.rejected.map((r) => r.rule)).toEqual(['llm_charter_violation']);
  });

  it('keeps the budget gate: a call that could overrun is not made, whatever the persona', async () => {
    for (const choice of CHOICES) {
      const a = await createLlmArbiter(createScriptedModel([{ answer: { candidate_id: 'loop:implement', reason: 'r' } }], { name: 'claude-haiku-4-5' }), { persona: choice, budgetUsd: 1e-9 })(
        arbiterInput({ run_spent_usd: 0 } as Partial<ArbiterInput>),
      );
      expect(a.skipped?.rule, choice).toBe('budget_exceeded');
      expect(a.calls).toEqual([]);
    }
  });

  it('routes the same decisions through the kernel under every persona (goal and graph gates included)', async () => {
    const script = [
      { answer: { candidate_id: 'inject_nodes', reason: 'refactor the auth module', inject_nodes: [{ id: 'refactor-auth', agent: 'implementer', purpose: 'refactor the auth module' }] } },
      { answer: { candidate_id: 'loop:linear', reason: 'tests fail; make it work' } },
      { answer: { candidate_id: 'continue:done', reason: 'the plan works' } },
    ];
    const runs: Decision[][] = [];
    for (const choice of CHOICES) {
      // The first route escalates (the goal gate refuses the proposal): a person lets the run go on (ruleKernel).
      const flows = testFlows();
      const k = ruleKernel({ flows, clock: () => 0, arbiter: createLlmArbiter(createScriptedModel(script), { persona: choice, invalidAnswerRetries: 0 }) });
      const out: Decision[] = [];
      out.push(await k.route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 } })));
      out.push(await k.route(req('linear', 'FAILED', { iteration: { current: 1, max: 3 } })));
      out.push(await k.route(req('linear', 'FAILED', { iteration: { current: 2, max: 3 } })));
      runs.push(out);
    }
    for (const r of runs) expect(r).toEqual(runs[0]);
    expect(runs[0]![0]!.rejected).toEqual([expect.objectContaining({ tier: 3, rule: 'llm_goal_misaligned' })]);
  });
});
