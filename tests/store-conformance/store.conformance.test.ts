// The store contract (src/contracts/ports.ts: KernelStore, LedgerReader), run against every store factory.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotencyConflictError,
  LedgerConflictError,
  type Decision,
  type Ledger,
  type RouteRecord,
  type RouteRequest,
  type RunState,
} from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, emptyRunState, type FlowSet } from '../../src/kernel/index.js';
import { verifyLedger } from '../../src/ledger/index.js';
import { auditRun, listRuns, replayRun, resolveEscalation, whyStep } from '../../src/runs/index.js';
import { sampleFlows, scriptedArbiter, steppingClock } from '../ledger/helpers.js';
import { runCli } from '../support/cli.js';
import { STORE_FACTORIES, type StoreLocation } from './factories.js';

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

  describe('with a kernel', () => {
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
      expect(runs.length).toBe(HARSH_SCENARIO.runs);
      for (const run of runs) {
        const replay = await replayRun(r, run.run_id, flows);
        expect(replay.divergences).toEqual([]);
        const audit = await auditRun(r, run.run_id);
        expect(audit.run.steps).toBe(ref.filter((x) => x.request.run_id === run.run_id).length);
      }
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
        const d = await k.route({ run_id: 'both', flow: 'build', step_completed: 'build-step-1', status: 'UNVERIFIED', forensics: { tests: { passed: 0, failed: 1 } } });
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
});
