import { describe, expect, it } from 'vitest';
import type { ArbiterAnswer, ArbiterInput, ArbiterPort } from '../../src/contracts/index.js';
import { createKernel } from '../../src/kernel/index.js';
import { req, testFlows } from '../support/kernel-fixtures.js';

const answer = (a: Partial<ArbiterAnswer>): ArbiterAnswer => ({ rejected: [], calls: [], cost_usd: 0, ...a });
const failing = req('linear', 'FAILED', { forensics: { tests: { passed: 3, failed: 2 } }, iteration: { current: 1, max: 3 } });

describe('tier 3: the arbiter port', () => {
  it('is given only the request, charter, iteration and the closed list of legal candidates', async () => {
    let seen: ArbiterInput | undefined;
    const k = createKernel({ flows: testFlows(), arbiter: async (input) => ((seen = input), answer({ proposal: { candidate_id: 'loop:linear', reason: 'two tests fail; retry' } })) });
    const d = await k.route(failing);
    expect(d).toMatchObject({ decision: 'LOOP', next_step_id: 'linear', tier: 3, rule: 'arbiter', reason: 'two tests fail; retry' });
    expect(seen!.charter.goal).toBe('Implement the plan');
    expect(seen!.iteration).toEqual({ current: 1, max: 3 });
    expect(seen!.candidates.map((c) => c.id)).toEqual(['continue:done', 'loop:linear', 'detour:auto-linter', 'inject_flow:rebase', 'inject_nodes', 'escalate']);
    expect(seen!.inject_nodes).toEqual({ allowed: true, max_nodes: 2, roster: ['auto-linter', 'critic', 'implementer', 'reporter', 'reviewer'] });
  });

  it('is bounded by arbiterTimeoutMs; the former option names (navigator, navigatorTimeoutMs) are gone at 1.0', async () => {
    const former = { flows: testFlows(), navigator: async () => answer({ proposal: { candidate_id: 'loop:linear', reason: 'retry' } }) };
    expect((await createKernel(former as Parameters<typeof createKernel>[0]).route(failing)).tier).not.toBe(3);
    const slow = createKernel({ flows: testFlows(), arbiterTimeoutMs: 20, arbiter: () => new Promise(() => {}) });
    expect((await slow.route(failing)).skipped![0]!.reason).toMatch(/within 20 ms/);
    const none = await createKernel({ flows: testFlows() }).route(failing);
    expect(none.skipped).toContainEqual(expect.objectContaining({ tier: 3, rule: 'arbiter_unavailable' }));
  });

  it('is not consulted when tiers 1-2 decide', async () => {
    let calls = 0;
    const k = createKernel({ flows: testFlows(), arbiter: async () => (calls++, answer({})) });
    await k.route(req('write', 'VERIFIED'));
    await k.route(req('check', 'UNVERIFIED'));
    expect(calls).toBe(0);
  });

  it('rejects a proposal that is not a legal candidate and lets tier 4 decide', async () => {
    const k = createKernel({ flows: testFlows(), arbiter: async () => answer({ proposal: { candidate_id: 'continue:deploy-prod', reason: 'ship it' } }) });
    const d = await k.route({ ...failing, envelope: { recommendation: 'CONTINUE' } });
    expect(d).toMatchObject({ decision: 'CONTINUE', next_step_id: 'done', tier: 4 });
    expect(d.rejected).toContainEqual(expect.objectContaining({ tier: 3, decision: 'continue:deploy-prod', why: expect.stringMatching(/not a legal candidate/) }));
  });

  it('carries the rejected answers and skip reasons the port reports', async () => {
    const k = createKernel({
      flows: testFlows(),
      arbiter: async () => answer({ rejected: [{ rule: 'arbiter', decision: 'MAYBE', target: null, why: 'out of vocabulary' }], skipped: { rule: 'budget_exceeded', reason: 'would exceed $2.00' } }),
    });
    const d = await k.route(failing);
    expect(d.tier).toBe(5);
    expect(d.rejected[0]).toMatchObject({ tier: 3, decision: 'MAYBE' });
    expect(d.skipped).toEqual([{ tier: 3, rule: 'budget_exceeded', reason: 'would exceed $2.00' }]);
  });

  it('never fails the route when the port throws or hangs', async () => {
    const throwing = createKernel({ flows: testFlows(), arbiter: async () => Promise.reject(new Error('socket hang up')) });
    expect((await throwing.route(failing)).skipped).toContainEqual(expect.objectContaining({ rule: 'arbiter_error', reason: 'socket hang up' }));
    const hanging = createKernel({ flows: testFlows(), arbiterTimeoutMs: 50, arbiter: () => new Promise(() => {}) });
    const d = await hanging.route(failing);
    expect(d.tier).toBe(5);
    expect(d.skipped![0]!.reason).toMatch(/within 50 ms/);
  });

  it('validates injected nodes, and routes them in order before returning to the step', async () => {
    const nodes = [
      { id: 'add-retry', agent: 'implementer', purpose: 'add the retry wrapper the plan asks for' },
      { id: 'recheck', agent: 'critic', purpose: 'check that it works' },
    ];
    const k = createKernel({ flows: testFlows(), arbiter: async () => answer({ proposal: { candidate_id: 'inject_nodes', reason: 'needs a retry wrapper', inject_nodes: nodes } }) });
    expect(await k.route(failing)).toMatchObject({ decision: 'INJECT_NODES', next_step_id: 'add-retry', inject_nodes: nodes, return_to: 'linear' });
    expect(await k.route(req('add-retry', 'done'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'recheck', rule: 'injected_node' });
    expect(await k.route(req('recheck', 'done'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'linear', rule: 'injected_nodes_done' });
    await expect(k.route(req('add-retry', 'done'))).rejects.toThrow(/step_completed/);

    for (const [bad, why] of [
      [[{ id: 'x', agent: 'hacker' }], /roster/],
      [[{ id: 'a', agent: 'critic' }, { id: 'a', agent: 'critic' }], /twice/],
      [[{ id: 'write', agent: 'critic' }], /collides/],
      [[1, 2, 3].map((i) => ({ id: `n${i}`, agent: 'critic' })), /at most 2/],
    ] as const) {
      const k2 = createKernel({ flows: testFlows(), arbiter: async () => answer({ proposal: { candidate_id: 'inject_nodes', reason: 'r', inject_nodes: bad as never } }) });
      const d = await k2.route(failing);
      expect(d.decision).toBe('ESCALATE');
      expect(d.rejected[0]!.why).toMatch(why);
    }
  });

  it('serialises routes of one run while tier 3 is in flight', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const arbiter: ArbiterPort = async (input) => {
      order.push(`nav-start:${input.seq}`);
      await gate;
      order.push(`nav-end:${input.seq}`);
      return answer({ proposal: { candidate_id: 'continue:done', reason: 'good enough' }, cost_usd: 0.001 });
    };
    const k = createKernel({ flows: testFlows(), arbiter });
    const first = k.route(failing);
    const second = k.route(req('done', 'x'));
    const other = await k.route({ ...req('write', 'VERIFIED'), run_id: 'run-2' });
    expect(other.seq).toBe(1);
    release();
    const [d1, d2] = await Promise.all([first, second]);
    expect([d1.seq, d2.seq]).toEqual([1, 2]);
    expect(order).toEqual(['nav-start:1', 'nav-end:1']);
    expect((await k.runState('run-1'))!.spent_usd).toBeCloseTo(0.001);
  });
});
