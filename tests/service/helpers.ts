import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RouteRequest } from '../../src/contracts/index.js';
import { loadFlows } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { createService, serviceLedger, type Service, type ServiceOptions } from '../../src/service/index.js';
import { CHARTERS } from '../support/kernel-fixtures.js';

export interface TestServer {
  base: string;
  service: Service;
  file: string;
  dir: string;
  close(): Promise<void>;
}

/** A clock that ticks one second per call from a fixed instant. */
export function steppingClock(start = Date.UTC(2026, 0, 1, 9)): () => Date {
  let n = 0;
  return () => new Date(start + 1000 * n++);
}

/** The service on the sample charters and a fresh SQLite ledger, listening on 127.0.0.1 (any free port). */
export async function startServer(options: Partial<ServiceOptions> & { file?: string } = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-serve-'));
  const file = options.file ?? path.join(dir, 'ledger.sqlite');
  const service = createService({
    flows: await loadFlows(CHARTERS),
    ledger: serviceLedger(openLedger(file)),
    clock: steppingClock(),
    ...options,
  });
  const base = await service.listen('127.0.0.1', 0);
  return {
    base,
    service,
    file,
    dir,
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** fetch with a JSON body. */
export function post(base: string, p: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** A short gate run that ends in an open escalation (gate-decide answers a status no branch knows). */
export const GATE_RUN: RouteRequest[] = [
  { run_id: 'gate-1', flow: 'gate', step_completed: 'gate-receipts', status: 'VERIFIED' },
  { run_id: 'gate-1', flow: 'gate', step_completed: 'gate-contracts', status: 'VERIFIED' },
  { run_id: 'gate-1', flow: 'gate', step_completed: 'gate-security', status: 'VERIFIED' },
  { run_id: 'gate-1', flow: 'gate', step_completed: 'gate-decide', status: 'HOLD' },
];

/** A build run with a microloop: build-step-3 fails twice, then passes. */
export const BUILD_RUN: RouteRequest[] = [
  { run_id: 'build-1', flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' },
  { run_id: 'build-1', flow: 'build', step_completed: 'build-step-2', status: 'VERIFIED' },
  { run_id: 'build-1', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { tests: { passed: 40, failed: 2 } }, iteration: { current: 1, max: 3 } },
  { run_id: 'build-1', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { tests: { passed: 41, failed: 1 } }, iteration: { current: 2, max: 3 } },
  { run_id: 'build-1', flow: 'build', step_completed: 'build-step-3', status: 'VERIFIED', forensics: { tests: { passed: 42, failed: 0 } }, iteration: { current: 3, max: 3 } },
];

/** Routes requests one after another over HTTP; returns the decisions. */
export async function routeAll(base: string, requests: RouteRequest[], headers: Record<string, string> = {}): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const r of requests) {
    const res = await post(base, '/v1/route', r, headers);
    if (res.status !== 200) throw new Error(`route ${JSON.stringify(r)}: ${res.status} ${await res.text()}`);
    out.push((await res.json()) as Record<string, unknown>);
  }
  return out;
}
