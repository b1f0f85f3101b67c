import { rmSync } from 'node:fs';
import { afterEach, beforeAll } from 'vitest';
import path from 'node:path';
import { sha256 } from '../../src/contracts/index.js';
import type { LlmCallRecord, ArbiterPort, RouteRequest, Decision } from '../../src/contracts/index.js';
import { createKernel, loadFlows, type FlowSet, type Kernel } from '../../src/kernel/index.js';
import { openLedger, type LedgerOptions, type SqliteLedger } from '../../src/ledger/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** A fresh folder under the OS tmp dir; remove it with `cleanup` (else it goes after the test file). */
export function tmpDir(): { dir: string; file: string; cleanup: () => void } {
  const dir = tempDir('navkernel-ledger-');
  return { dir, file: path.join(dir, 'ledger.sqlite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const sampleFlows = (): Promise<FlowSet> => loadFlows(CHARTERS);

/**
 * The setup many ledger test files share: the sample flows, loaded once before the file's tests, and a list of
 * cleanups run (last first) after each test. Call at the top level of a test file.
 */
export function ledgerFixtures(): { readonly flows: FlowSet; cleanups: (() => void)[] } {
  let flows: FlowSet | undefined;
  const cleanups: (() => void)[] = [];
  beforeAll(async () => {
    flows = await sampleFlows();
  });
  afterEach(() => {
    while (cleanups.length) cleanups.pop()!();
  });
  return {
    get flows(): FlowSet {
      if (!flows) throw new Error('ledgerFixtures: the flows are loaded in beforeAll; read them inside a test');
      return flows;
    },
    cleanups,
  };
}

/** A clock that ticks one second per call from a fixed instant, so recorded timestamps are reproducible. */
export function steppingClock(start = Date.UTC(2025, 0, 1)): () => Date {
  let n = 0;
  return () => new Date(start + 1000 * n++);
}

/**
 * A deterministic stand-in for the LLM arbiter: picks the first candidate that is not CONTINUE when the step
 * failed (else the first), and records one model call per answer, as the real arbiter would.
 */
export function scriptedArbiter(): ArbiterPort {
  return async (input) => {
    const failed = /unverified|fail/i.test(input.request.status);
    const pick = (failed ? input.candidates.find((c) => c.decision === 'LOOP' || c.decision === 'DETOUR') : undefined) ?? input.candidates[0]!;
    const raw = JSON.stringify({ candidate_id: pick.id, reason: `scripted: ${pick.description}` });
    const call: LlmCallRecord = {
      provider: 'scripted',
      model: 'scripted-1',
      purpose: 'route',
      attempt: 1,
      prompt_hash: sha256({ step: input.step, candidates: input.candidates.map((c) => c.id), seq: input.seq }),
      raw_answer: raw,
      outcome: 'ok',
      input_tokens: 420,
      output_tokens: 24,
      usd: 0.00051,
      latency_ms: 12,
    };
    return { proposal: { candidate_id: pick.id, reason: `scripted: ${pick.description}`, confidence: 0.7 }, rejected: [], calls: [call], cost_usd: call.usd };
  };
}

export function ledgerKernel(file: string, flows: FlowSet, options: LedgerOptions & { arbiter?: ArbiterPort; clock?: () => Date } = {}): { ledger: SqliteLedger; kernel: Kernel } {
  const { arbiter, clock, ...ledgerOptions } = options;
  const ledger = openLedger(file, ledgerOptions);
  const kernel = createKernel({ flows, store: ledger, clock: clock ?? steppingClock(), ...(arbiter ? { arbiter } : {}) });
  return { ledger, kernel };
}

export type Step = { request: RouteRequest; decision: Decision };
