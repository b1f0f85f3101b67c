// The store contract (src/contracts/ports.ts), run against every store factory, one describe per part of the port:
// KernelStore (the kernel), RunReader (audit, replay, verify, export), StatsReader (listing, /v1/stats), EscalationStore.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotencyConflictError,
  LedgerConflictError,
  type Decision,
  type Ledger,
  type ReplayTuple,
  type RouteRecord,
  type RouteRequest,
  type RunState,
} from '../../src/contracts/index.js';
import { DEMO_SCENARIO, HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, emptyRunState, type FlowSet } from '../../src/kernel/index.js';
import { verifyLedger } from '../../src/ledger/index.js';
import { auditRun, listRuns, listedSummary, replayRun, resolveEscalation, whyStep } from '../../src/runs/index.js';
import type { LedgerStats, RunPageKey, RunPageQuery, RunSummary } from '../../src/contracts/index.js';
import { serviceLedger } from '../../src/service/index.js';
import { legacyListRuns, legacyStats } from '../../bench/runs-listing.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { runCli } from '../support/cli.js';
import { STORE_FACTORIES, type StoreLocation } from './factories.js';
import { ESCALATION_READER, STORE_PORTS } from './ports.js';

let flows: FlowSet;
beforeAll(async () => {
  flows = await sampleFlows();
});

function record(run_id: string, seq: number, over: Partial<RouteRecord> = {}): RouteRecord {
  const request: RouteRequest = { run_id, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' };
  const decision = { decision: 'CONTINUE', next_step_id: 'build-step-2', tier: 1, rule: 'happy_path', reason: 'ok', needs_human: false, seq, rejected: [] } as unknown as Decision;
  return {
    run_id, seq, flow: 'build', step: 'build-step-1', request_id: null, request_hash: '', request, decision, latency_us: 1, cost_usd: 0,
    kernel_version: 'test', flows_hash: 'f'.repeat(64), ts: `2025-01-01T00:00:${String(seq % 60).padStart(2, '0')}.000Z`, llm_calls: [], ...over,
  };
}
const stateAt = (run_id: string, seq: number): RunState => ({ ...emptyRunState(run_id), seq });

/** A gate run that ends in an open escalation (gate-decide answers a status no branch knows). */
const gateRun = (run_id: string): RouteRequest[] => [
  { run_id, flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-contracts', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-security', status: 'VERIFIED' },
  { run_id, flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' },
];

/** Every page of a listing, `limit` runs at a time, following `next`; checks `total` is the same on every page. */
async function allPages(s: Ledger, q: Omit<RunPageQuery, 'limit' | 'after'>, limit: number): Promise<{ runs: RunSummary[]; total: number; pages: number }> {
  const runs: RunSummary[] = [];
  let total: number | undefined;
  let pages = 0;
  for (let after: RunPageKey | undefined; ; ) {
    const page = await s.runPage({ ...q, limit, ...(after ? { after } : {}) });
    pages++;
    expect(page.runs.length).toBeLessThanOrEqual(limit);
    if (total === undefined) total = page.total;
    else expect(page.total).toBe(total);
    runs.push(...page.runs.map(listedSummary));
    if (!page.next) break;
    expect(page.runs.length).toBe(limit);
    expect(page.next).toEqual({ created_ts: page.runs[limit - 1]!.created_ts, run_id: page.runs[limit - 1]!.run_id });
    after = page.next;
  }
  return { runs, total: total!, pages };
}

/** /v1/stats answers: equal, except USD sums, which may differ in their last bits with the order of summation. */
function expectSameStats(actual: LedgerStats, expected: LedgerStats): void {
  const strip = (x: LedgerStats) => ({ ...x, cost_over_time: x.cost_over_time.map((b) => ({ ...b, usd: 0 })) });
  expect(strip(actual)).toEqual(strip(expected));
  actual.cost_over_time.forEach((b, i) => expect(b.usd).toBeCloseTo(expected.cost_over_time[i]!.usd, 9));
}

describe.each(STORE_FACTORIES)('store conformance: $name', (factory) => {
  let loc: StoreLocation;
  const open: Ledger[] = [];
  async function handle(): Promise<Ledger> {
    const l = await loc.open();
    open.push(l);
    return l;
  }
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close().catch(() => undefined);
    await loc?.cleanup();
  });
  async function fresh(): Promise<Ledger> {
    loc = await factory.create();
    return handle();
  }

  it('implements every part of the store port, each a separate interface (KernelStore, RunReader, StatsReader, EscalationStore)', async () => {
    const s = await fresh();
    const all = Object.values(STORE_PORTS).flat();
    expect(new Set(all).size).toBe(all.length); // the parts do not overlap
    for (const [port, names] of Object.entries(STORE_PORTS)) {
      for (const m of names) expect(typeof (s as unknown as Record<string, unknown>)[m], `${port}.${m}`).toBe('function');
    }
    expect(ESCALATION_READER.every((m) => (STORE_PORTS.EscalationStore as readonly string[]).includes(m))).toBe(true);
    expect(typeof s.location).toBe('string');
  });

  describe('KernelStore', () => {
    it('knows nothing of a run never seen', async () => {
      const s = await fresh();
      expect(await s.loadRun('nobody')).toBeUndefined();
      expect(await s.findByRequestId('nobody', 'r1')).toBeUndefined();
      expect(await s.run('nobody')).toBeUndefined();
    });

    it('appends in seq order and loads the last state; findByRequestId returns the decision and request hash', async () => {
      const s = await fresh();
      await s.append(record('r', 1), stateAt('r', 1));
      await s.append(record('r', 2, { request_id: 'q2', request_hash: 'ab'.repeat(32) }), stateAt('r', 2));
      expect((await s.loadRun('r'))?.seq).toBe(2);
      const found = await s.findByRequestId('r', 'q2');
      expect(found?.decision.seq).toBe(2);
      expect(found?.request_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('rejects an append whose seq does not follow the head with LedgerConflictError, recording nothing', async () => {
      const s = await fresh();
      await s.append(record('r', 1), stateAt('r', 1));
      for (const seq of [1, 3]) {
        const err = await s.append(record('r', seq), stateAt('r', seq)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(LedgerConflictError);
        expect((err as LedgerConflictError).code).toBe('LEDGER_CONFLICT');
      }
      expect((await s.loadRun('r'))?.seq).toBe(1);
      expect((await s.routes('r', 0, 10)).map((r) => r.seq)).toEqual([1]);
    });

    it('settles concurrent appends of many runs independently: a conflicting one fails alone', async () => {
      const s = await fresh();
      const ok = Array.from({ length: 40 }, (_, i) => s.append(record(`run-${i}`, 1), stateAt(`run-${i}`, 1)));
      const bad = s.append(record('run-0', 5), stateAt('run-0', 5));
      const results = await Promise.allSettled([...ok, bad]);
      expect(results.slice(0, 40).every((r) => r.status === 'fulfilled')).toBe(true);
      expect(results[40]!.status).toBe('rejected');
      expect((await s.runIds()).length).toBe(40);
      expect((await verifyLedger(s)).issues).toEqual([]);
    });

    it('resolves each of many concurrent appends only once it is committed: another handle sees it at once', async () => {
      const s = await fresh();
      const other = await handle();
      const seen = await Promise.all(
        Array.from({ length: 30 }, (_, i) => s.append(record(`c-${i}`, 1), stateAt(`c-${i}`, 1)).then(() => other.loadRun(`c-${i}`))),
      );
      expect(seen.map((st) => st?.seq)).toEqual(Array.from({ length: 30 }, () => 1));
    });

    it('a second handle (another process) sees what the first committed, and a stale writer gets a conflict', async () => {
      const a = await fresh();
      const b = await handle();
      await a.append(record('shared', 1), stateAt('shared', 1));
      expect((await b.loadRun('shared'))?.seq).toBe(1);
      await b.append(record('shared', 2), stateAt('shared', 2));
      await expect(a.append(record('shared', 2), stateAt('shared', 2))).rejects.toBeInstanceOf(LedgerConflictError);
      await a.append(record('shared', 3), stateAt('shared', 3));
      expect((await verifyLedger(a)).issues).toEqual([]);
    });
  });

  describe('RunReader, with a kernel (audit, replay, verify, export)', () => {
    it('records what an in-memory kernel decides, survives a restart, and verifies and replays', async () => {
      const s = await fresh();
      const ref: { request: RouteRequest; decision: Decision }[] = [];
      const mem = createKernel({ flows, store: new MemoryStore(), clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(mem, HARSH_SCENARIO, { onStep: (x) => ref.push(structuredClone(x)) });
      await mem.close();
      const clock = steppingClock();
      const half = Math.floor(ref.length / 2);
      let k = createKernel({ flows, store: s, clock, arbiter: scriptedArbiter() });
      for (let i = 0; i < half; i++) expect(await k.route(ref[i]!.request)).toEqual(ref[i]!.decision);
      await k.close();
      const s2 = await handle();
      k = createKernel({ flows, store: s2, clock, arbiter: scriptedArbiter() });
      for (let i = half; i < ref.length; i++) expect(await k.route(ref[i]!.request)).toEqual(ref[i]!.decision);
      await k.close();
      const r = await handle();
      const report = await verifyLedger(r);
      expect(report.issues).toEqual([]);
      expect(report.routes).toBe(ref.length);
      const runs = await listRuns(r);
      // The simulator routes each flow of its sequence as a run of its own.
      expect(runs.length).toBe(new Set(ref.map((x) => x.request.run_id)).size);
      expect(runs.length).toBeGreaterThan(HARSH_SCENARIO.runs);
      for (const run of runs) {
        const replay = await replayRun(r, run.run_id, flows);
        expect(replay.divergences).toEqual([]);
        const audit = await auditRun(r, run.run_id);
        expect(audit.run.steps).toBe(ref.filter((x) => x.request.run_id === run.run_id).length);
      }
    });

    it('reads each route with its flows_hash for replay, which learns the run’s flow definitions from the rows it reads', async () => {
      const s = await fresh();
      const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(64));
      // Another run uses c and then b first, so the ledger meets b before a; run 'f' uses a, b, a, c.
      await s.append(record('other', 1, { flows_hash: c! }), stateAt('other', 1));
      await s.append(record('other', 2, { flows_hash: b! }), stateAt('other', 2));
      const used = [a, a, b, a, c];
      for (const [i, h] of used.entries()) await s.append(record('f', i + 1, { flows_hash: h! }), stateAt('f', i + 1));
      const tuples: ReplayTuple[] = [];
      for await (const chunk of s.replayChunks('f', 0, 2)) tuples.push(...chunk);
      expect(tuples.map((t) => [t[0], t[5]])).toEqual(used.map((h, i) => [i + 1, h]));
      expect(await s.runFlowsHashes('f')).toEqual([a, b, c]);
      // The recorded decisions here are not what the sample flows decide: a whole replay diverges and still reads every
      // row; a replay stopped at its first divergence asks the ledger.
      const whole = await replayRun(s, 'f', flows);
      expect(whole.identical).toBe(false);
      expect(whole.routes).toBe(used.length);
      expect(whole.flows_hashes_recorded).toEqual([a, b, c]);
      const first = await replayRun(s, 'f', flows, { maxDivergences: 1 });
      expect(first.routes).toBeLessThan(used.length);
      expect(first.flows_hashes_recorded).toEqual([a, b, c]);
    });

    it('answers a repeated request_id with the recorded decision, and refuses the same id with another body', async () => {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock() });
      const req: RouteRequest = { run_id: 'idem', flow: 'build', step_completed: 'build-step-1', status: 'UNVERIFIED', request_id: 'req-1', forensics: { tests: { passed: 1, failed: 3 } } };
      const first = await k.route(req);
      expect(await k.route(structuredClone(req))).toEqual(first);
      const err = await k.route({ ...req, status: 'VERIFIED' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdempotencyConflictError);
      expect((err as IdempotencyConflictError).code).toBe('IDEMPOTENCY_CONFLICT');
      await k.close();
      expect((await (await handle()).routes('idem', 0, 10)).length).toBe(1);
    });

    it('two kernels on one run (two handles) route it alternately without a gap, a duplicate or a broken chain', async () => {
      const a = await fresh();
      const b = await handle();
      const ka = createKernel({ flows, store: a, clock: steppingClock() });
      const kb = createKernel({ flows, store: b, clock: steppingClock() });
      const seqs: number[] = [];
      for (let i = 0; i < 12; i++) {
        const k = i % 2 === 0 ? ka : kb;
        // The runner restarts from build-step-1, -2 and -3 in turn (restart: docs/run-states.md), so every route is routed.
        const step = `build-step-${(i % 3) + 1}`;
        const d = await k.route({ run_id: 'both', flow: 'build', step_completed: step, status: 'VERIFIED', forensics: { tests: { passed: 1, failed: 0 } }, restart: { reason: 'alternating kernels' } });
        seqs.push(d.seq!);
      }
      await ka.close();
      await kb.close();
      expect(seqs).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const r = await handle();
      expect((await verifyLedger(r)).issues).toEqual([]);
    });

    it('keeps a run register with one chained entry per run, and verify (and the CLI) notice a run deleted whole', async () => {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(k, HARSH_SCENARIO, {});
      await k.close();
      let r = await handle();
      const ids = await r.runIds();
      const register = await r.runRegister();
      expect(register.map((e) => e.run_id).sort()).toEqual(ids);
      expect(new Set(register.map((e) => e.ordinal)).size).toBe(register.length);
      for (const e of register) expect(e.first_hash).toBe(await r.routeHash(e.run_id, 1));
      expect((await verifyLedger(r, { repair: false })).issues).toEqual([]);
      // Deleting every row of one run (not the first, not the last) leaves a ledger whose every remaining chain is intact.
      const victim = register[1]!.run_id;
      await r.close();
      await loc.deleteRunRows(victim);
      r = await handle();
      expect((await r.runs()).some((x) => x.run_id === victim)).toBe(false);
      const report = await verifyLedger(r, { repair: false });
      expect(report.ok).toBe(false);
      expect(report.issues).toContainEqual(expect.objectContaining({ run_id: victim, kind: 'run_missing' }));
      expect(report.issues.filter((i) => i.run_id !== victim && !i.kind.startsWith('jsonl'))).toEqual([]);
      const cli = runCli(['verify', '--ledger', loc.cliArg, '--no-repair']);
      expect(cli.code).toBe(1);
      expect(cli.stdout).toContain(`BAD run ${victim}`);
      expect(cli.stdout).toMatch(/run_missing/);
    });

  });

  describe('EscalationStore', () => {
    it('holds whole runs: a refused route leaves the store as it was; a resolution sends the run on from another handle', async () => {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock() });
      const req = (step: string, status: string) => ({ run_id: 'held', flow: 'build', step_completed: step, status });
      const snapshot = async () => ({ state: await s.loadRun('held'), routes: (await s.routes('held', 0, 100)).length });
      await k.route(req('build-step-1', 'VERIFIED'));
      let before = await snapshot();
      await expect(k.route(req('build-review', 'APPROVED'))).rejects.toMatchObject({ code: 'STEP_MISMATCH', expected: { flow: 'build', step: 'build-step-2' } });
      expect(await snapshot()).toEqual(before);
      await k.route(req('build-step-2', 'VERIFIED'));
      // At its loop's cap with a HIGH concern open, build-step-3 escalates.
      const esc = await k.route({ ...req('build-step-3', 'UNVERIFIED'), iteration: { current: 3 }, forensics: { concerns: [{ severity: 'HIGH', description: 'no tests' }] } });
      expect(esc).toMatchObject({ decision: 'ESCALATE', rule: 'iteration_cap_open_concern' });
      before = await snapshot();
      expect(before.state).toMatchObject({ lifecycle: 'awaiting_person', escalation_id: esc.escalation_id, at: null });
      await expect(k.route(req('build-review', 'APPROVED'))).rejects.toMatchObject({ code: 'ESCALATION_OPEN', escalation_id: esc.escalation_id });
      expect(await snapshot()).toEqual(before);
      // A person resolves it through another handle on the same store; the kernel learns it at the next route.
      const other = await handle();
      await resolveEscalation(other, flows, { escalation_id: esc.escalation_id!, decision: 'CONTINUE', next: 'build-review', by: 'ada', reason: 'checked' });
      await other.close();
      await expect(k.route(req('build-done', 'DONE'))).rejects.toMatchObject({ code: 'STEP_MISMATCH', expected: { step: 'build-review' } });
      expect(await k.route(req('build-review', 'APPROVED'))).toMatchObject({ decision: 'CONTINUE', next_step_id: 'build-done', seq: 4 });
      expect(await k.route(req('build-done', 'DONE'))).toMatchObject({ decision: 'TERMINATE', seq: 5 });
      before = await snapshot();
      await expect(k.route(req('build-done', 'DONE'))).rejects.toMatchObject({ code: 'RUN_ENDED' });
      expect(await snapshot()).toEqual(before);
      await k.close();
      // A kernel started afresh on the store restores the run ended.
      const again = createKernel({ flows, store: await handle(), clock: steppingClock() });
      await expect(again.route(req('build-step-1', 'VERIFIED'))).rejects.toMatchObject({ code: 'RUN_ENDED' });
      await again.close();
    });

    it('resolves an escalation once, and shows it in audit and why', async () => {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock() });
      await simulate(k, HARSH_SCENARIO, {});
      await k.close();
      const r = await handle();
      const run = (await listRuns(r)).find((x) => x.open_escalations > 0)!;
      expect(run).toBeDefined();
      const esc = (await auditRun(r, run.run_id)).escalations.find((e) => e.status === 'open')!;
      const resolved = await resolveEscalation(r, flows, { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'ada', reason: 'enough' }, steppingClock());
      expect(resolved.status).toBe('resolved');
      await expect(resolveEscalation(r, flows, { escalation_id: esc.escalation_id, decision: 'TERMINATE', by: 'bob', reason: 'again' })).rejects.toMatchObject({ code: 'ESCALATION_ALREADY_RESOLVED' });
      expect((await whyStep(r, run.run_id, esc.step)).escalations.some((e) => e.escalation_id === esc.escalation_id)).toBe(true);
      expect((await verifyLedger(r)).issues).toEqual([]);
    });
  });

  describe('StatsReader: the run listing and ledger stats (runPage, ledgerTotals, ledgerTierRuleCounts, costBuckets)', () => {
    /**
     * The demo and the harsh simulation (loops, detours, rebase injected into build, escalations), plus three gate
     * runs ending in an escalation: one resolved with TERMINATE (terminated), one with LOOP (active), one left open.
     */
    async function listingLedger(): Promise<Ledger> {
      const s = await fresh();
      const k = createKernel({ flows, store: s, clock: steppingClock(), arbiter: scriptedArbiter() });
      await simulate(k, HARSH_SCENARIO, {});
      await simulate(k, DEMO_SCENARIO, { runPrefix: 'demo' });
      await k.close();
      // No arbiter: the gate's stray status goes to tier 5 (ESCALATE).
      const g = createKernel({ flows, store: await handle(), clock: steppingClock(Date.UTC(2025, 0, 2)) });
      for (const id of ['gate-x', 'gate-y', 'gate-z']) for (const req of gateRun(id)) await g.route(req);
      await g.close();
      const r = await handle();
      const open = (id: string) => r.runEscalations(id).then((es) => es.find((e) => e.status === 'open')!.escalation_id);
      await resolveEscalation(r, flows, { escalation_id: await open('gate-x'), decision: 'TERMINATE', by: 'ada', reason: 'enough' }, steppingClock());
      await resolveEscalation(r, flows, { escalation_id: await open('gate-y'), decision: 'LOOP', by: 'ada', reason: 'again' }, steppingClock());
      return r;
    }

    it('lists every run in the order of runs(), as the former per-run computation did, in pages with no gap or duplicate', async () => {
      const r = await listingLedger();
      const reference = await legacyListRuns(r);
      expect(reference.map((x) => x.run_id)).toEqual((await r.runs()).map((x) => x.run_id));
      // The simulator routes each flow of its sequence as a run of its own.
      expect(reference.length).toBe((await r.runIds()).length);
      expect(reference.length).toBeGreaterThan(HARSH_SCENARIO.runs + DEMO_SCENARIO.runs + 3);
      // The cases the status rule has: a resolved escalation that ended the run with TERMINATE counts as terminated.
      const byId = new Map(reference.map((x) => [x.run_id, x]));
      expect(byId.get('gate-x')).toMatchObject({ last_decision: 'ESCALATE', open_escalations: 0, status: 'terminated' });
      expect(byId.get('gate-y')).toMatchObject({ last_decision: 'ESCALATE', open_escalations: 0, status: 'active' });
      expect(byId.get('gate-z')).toMatchObject({ last_decision: 'ESCALATE', open_escalations: 1, status: 'escalated' });
      expect(reference.some((x) => x.last_decision === 'TERMINATE' && x.status === 'terminated')).toBe(true);
      expect(reference.some((x) => x.flows.includes('rebase'))).toBe(true);
      for (const limit of [1, 2, 5, reference.length - 1, reference.length, 500]) {
        const { runs, total, pages } = await allPages(r, {}, limit);
        expect(total).toBe(reference.length);
        expect(pages).toBe(Math.max(1, Math.ceil(reference.length / limit)));
        expect(runs).toEqual(reference);
      }
      expect(await listRuns(r)).toEqual(reference);
    });

    it('filters by status, flow (an injected one too) and open escalation, with totals, as the former code did', async () => {
      const r = await listingLedger();
      const reference = await legacyListRuns(r);
      const queries: Omit<RunPageQuery, 'limit'>[] = [
        { status: 'active' },
        { status: 'escalated' },
        { status: 'terminated' },
        { flow: 'rebase' },
        { flow: 'gate' },
        { flow: 'build' },
        { flow: 'no-such-flow' },
        { has_open_escalation: true },
        { has_open_escalation: false },
        { status: 'terminated', flow: 'gate' },
        { status: 'escalated', has_open_escalation: true },
        { status: 'active', has_open_escalation: false, flow: 'gate' },
      ];
      for (const q of queries) {
        const expected = reference.filter(
          (x) =>
            (q.status === undefined || x.status === q.status) &&
            (q.flow === undefined || x.flows.includes(q.flow)) &&
            (q.has_open_escalation === undefined || x.open_escalations > 0 === q.has_open_escalation),
        );
        for (const limit of [1, 3, 500]) {
          const { runs, total } = await allPages(r, q, limit);
          expect({ q, limit, ids: runs.map((x) => x.run_id) }).toEqual({ q, limit, ids: expected.map((x) => x.run_id) });
          expect(runs).toEqual(expected);
          expect(total).toBe(expected.length);
        }
      }
      // Each filter selects something and leaves something out on this ledger (so the comparison above says something).
      for (const q of queries.slice(0, 4)) {
        const n = (await r.runPage({ ...q, limit: 1 })).total;
        expect(n, JSON.stringify(q)).toBeGreaterThan(0);
        expect(n, JSON.stringify(q)).toBeLessThan(reference.length);
      }
      expect((await r.runPage({ status: 'terminated', limit: 500 })).runs.map((x) => x.run_id)).toContain('gate-x');
      expect((await r.runPage({ status: 'active', limit: 500 })).runs.map((x) => x.run_id)).toContain('gate-y');
    });

    it('skips `offset` matching runs (the former cursors)', async () => {
      const r = await listingLedger();
      const reference = (await legacyListRuns(r)).filter((x) => x.status === 'terminated');
      for (const offset of [0, 1, 4, reference.length - 1, reference.length, reference.length + 3]) {
        const page = await r.runPage({ status: 'terminated', limit: 3, offset });
        expect(page.runs.map(listedSummary)).toEqual(reference.slice(offset, offset + 3));
        expect(page.total).toBe(reference.length);
        expect(page.next === null).toBe(offset + 3 >= reference.length);
      }
    });

    it('pages stay gap- and duplicate-free while runs are created between pages (keyset: ties on created_ts by run_id)', async () => {
      const s = await fresh();
      // Five runs created at the same instant, two more a second apart.
      const ts = '2025-03-01T00:00:00.000Z';
      for (const id of ['t-c', 't-a', 't-e', 't-b', 't-d']) await s.append(record(id, 1, { ts }), stateAt(id, 1));
      for (const [id, t] of [['u-1', '2025-03-01T00:00:01.000Z'], ['u-2', '2025-03-01T00:00:02.000Z']] as const) await s.append(record(id, 1, { ts: t }), stateAt(id, 1));
      const before = (await s.runs()).map((x) => x.run_id);
      expect(before).toEqual(['t-a', 't-b', 't-c', 't-d', 't-e', 'u-1', 'u-2']);
      const seen: string[] = [];
      let after: RunPageKey | undefined;
      for (let i = 0; ; i++) {
        const page = await s.runPage({ limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.runs.map((x) => x.run_id));
        if (!page.next) break;
        after = page.next;
        // Between pages: a run created earlier than everything, one at the tied instant, one at the end, and an append to a listed run.
        await s.append(record(`early-${i}`, 1, { ts: '2024-01-01T00:00:00.000Z' }), stateAt(`early-${i}`, 1));
        await s.append(record(`t-${i}z`, 1, { ts }), stateAt(`t-${i}z`, 1));
        await s.append(record(`v-${i}`, 1, { ts: `2025-03-02T00:00:0${i}.000Z` }), stateAt(`v-${i}`, 1));
        if (i === 0) await s.append(record('t-a', 2, { ts: '2025-03-05T00:00:00.000Z' }), stateAt('t-a', 2));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => before.includes(id))).toEqual(before);
      // What was seen is in listing order: the ones created behind the cursor are not, the ones ahead of it are.
      const order = (await s.runs()).map((x) => x.run_id);
      expect(seen).toEqual(order.filter((id) => seen.includes(id)));
      expect(seen.some((id) => id.startsWith('early-'))).toBe(false);
      expect(seen.filter((id) => id.startsWith('v-')).length).toBeGreaterThan(0);
    });

    it('an empty ledger lists nothing and has empty stats', async () => {
      const s = await fresh();
      expect(await s.runPage({ limit: 50 })).toEqual({ runs: [], total: 0, next: null });
      expect(await s.runPage({ limit: 50, status: 'active', flow: 'x', has_open_escalation: false })).toEqual({ runs: [], total: 0, next: null });
      expect(await s.ledgerTotals()).toEqual({ runs: 0, routes: 0, first_ms: null, last_ms: null });
      expect(await s.ledgerTierRuleCounts()).toEqual([]);
      expect(await s.costBuckets(1000)).toEqual([]);
      expectSameStats(await serviceLedger(s).stats(), await legacyStats(s));
    });

    it('stats: totals, counts by tier/rule/decision and cost buckets as the former per-run computation gave them', async () => {
      const r = await listingLedger();
      const reference = await legacyStats(r);
      expect(reference.cost_over_time.length).toBeGreaterThan(1);
      expect(reference.by_tier.length).toBeGreaterThan(2);
      expectSameStats(await serviceLedger(r).stats(), reference);
      // Every route, each width: the buckets are what bucketing each route's ts in JS gives.
      const routes = (await Promise.all((await r.runs()).map((x) => r.routes(x.run_id, 0, 100_000)))).flat();
      expect(routes.some((x) => x.cost_usd > 0)).toBe(true);
      for (const width of [1_000, 60_000, 3_600_000, 86_400_000]) {
        const js = new Map<number, { routes: number; llm_calls: number; usd: number }>();
        for (const x of routes) {
          const h = Math.floor(Date.parse(x.ts) / width) * width;
          const b = js.get(h) ?? { routes: 0, llm_calls: 0, usd: 0 };
          js.set(h, { routes: b.routes + 1, llm_calls: b.llm_calls + x.llm_calls, usd: b.usd + x.cost_usd });
        }
        const got = await r.costBuckets(width);
        expect(got.map((b) => [b.bucket_ms, b.routes, b.llm_calls])).toEqual([...js].sort((a, b) => a[0] - b[0]).map(([h, b]) => [h, b.routes, b.llm_calls]));
        got.forEach((b) => expect(b.usd).toBeCloseTo(js.get(b.bucket_ms)!.usd, 9));
      }
      const totals = await r.ledgerTotals();
      const runs = await r.runs();
      expect(totals).toEqual({
        runs: runs.length,
        routes: routes.length,
        first_ms: Math.min(...runs.map((x) => Date.parse(x.created_ts))),
        last_ms: Math.max(...runs.map((x) => Date.parse(x.updated_ts))),
      });
    });
  });
});
