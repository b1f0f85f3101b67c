// The crash tests of both stores (tests/ledger/processes, tests/postgres/processes): the decisions a runner killed at
// random moments must still reproduce, and the kill-and-restart loop itself.
import { expect } from 'vitest';
import type { Decision, RouteRequest } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { MemoryStore, createKernel, type FlowSet } from '../../src/kernel/index.js';
import { parseAck, uninterruptedDecisions, type Child } from '../../scripts/crash/harness.js';

export interface ReferenceRun {
  /** Each request with the decision an uninterrupted kernel gives it, in routing order. */
  reference: { request: RouteRequest; decision: Decision }[];
  /** The same requests with ids `req-1`, `req-2`, … as the resuming child reads them. */
  requests: RouteRequest[];
}

/**
 * The harsh scenario's sequence `repeats` times, each flow a run of its own, routed in memory. Request i of a run is
 * decided at CLOCK_START + i seconds, as the resuming child decides it, so the decisions compare byte for byte.
 */
export async function referenceRun(flows: FlowSet, repeats: number): Promise<ReferenceRun> {
  const steps: { request: RouteRequest }[] = [];
  const memory = createKernel({ flows, store: new MemoryStore() });
  const sequence = Array.from({ length: repeats }, () => HARSH_SCENARIO.sequence).flat();
  await simulate(memory, { ...HARSH_SCENARIO, runs: 1, sequence }, { runPrefix: 'crash', maxStepsPerRun: 5000, onStep: (s) => steps.push(structuredClone(s)) });
  await memory.close();
  const requests = steps.map((s, i) => ({ ...s.request, request_id: `req-${i + 1}` }));
  const decisions = await uninterruptedDecisions(flows, requests);
  return { reference: steps.map((s, i) => ({ request: s.request, decision: decisions[i]! })), requests };
}

/**
 * Starts a child again and again, killing each with SIGKILL a few milliseconds after a random number (1…maxKillAfter)
 * of answered lines, until one finishes with DONE: every decision a child acknowledged, the kills, the last child.
 */
export async function killUntilDone(start: () => Child, rand: () => number, opts: { attempts: number; maxKillAfter: number }): Promise<{ acknowledged: { id: string; decision: Decision }[]; kills: number; finished: Child }> {
  const acknowledged: { id: string; decision: Decision }[] = [];
  let kills = 0;
  for (let attempt = 0; attempt < opts.attempts; attempt++) {
    const child = start();
    const killAfter = 1 + Math.floor(rand() * opts.maxKillAfter);
    const delayMs = Math.floor(rand() * 4);
    child.onLine((_line, count) => {
      if (count === killAfter) setTimeout(child.kill, delayMs);
    });
    const exit = await child.exit;
    for (const line of child.lines) {
      const ack = parseAck(line);
      if (ack) acknowledged.push(ack);
    }
    if (exit.signal === 'SIGKILL') {
      kills++;
      continue;
    }
    expect(exit.code, child.stderr).toBe(0);
    expect(child.lines[child.lines.length - 1]).toBe('DONE');
    return { acknowledged, kills, finished: child };
  }
  throw new Error(`no child finished in ${opts.attempts} attempts (${kills} killed)`);
}
