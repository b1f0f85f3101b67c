// Two versions of one flow, as a user changes it while runs are in flight (issue 39): `review` renamed `critique`, a
// `legal` step added, the review loop's cap lowered; and the ledgers both stores give, for tests that run on each.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FlowInput, RouteRequest } from '../../src/contracts/index.js';
import { openLedgerAt } from '../../src/ledger/index.js';
import { DATABASE_URL, adminQuery, freshSchemaUrl, schemaOf } from '../support/postgres.js';

const charter = { goal: 'Ship a post', key_question: 'Is it ready to publish?' };

export const SHIP_V1: FlowInput[] = [
  {
    flow: 'ship',
    charter,
    steps: [
      { id: 'draft', agent: 'writer', next: 'review' },
      { id: 'review', agent: 'editor', next: 'polish', loop: { to: 'draft', max_iterations: 4, exit_when: ['APPROVED'] } },
      { id: 'polish', agent: 'writer', next: 'publish' },
      { id: 'publish', agent: 'publisher', terminal: true },
      { id: 'fact-check', agent: 'checker', returns: true },
    ],
    detours: { source_missing: 'fact-check', upstream_diverged: { flow: 'sync', max_attempts: 1 } },
    inject_flows: ['sync'],
  },
  {
    flow: 'sync',
    charter: { goal: 'Sync the draft with upstream', key_question: 'Is it current?' },
    steps: [
      { id: 'pull', agent: 'operator', next: 'merge' },
      { id: 'merge', agent: 'operator', terminal: true },
    ],
  },
];

/** `review` renamed `critique` (same agent, same predecessor), `polish` removed and `legal` added, the loop's cap 4 → 2, `sync`'s `merge` renamed `apply`. */
export const SHIP_V2: FlowInput[] = [
  {
    flow: 'ship',
    charter,
    steps: [
      { id: 'draft', agent: 'writer', next: 'critique' },
      { id: 'critique', agent: 'editor', next: 'legal', loop: { to: 'draft', max_iterations: 2, exit_when: ['APPROVED'] } },
      { id: 'legal', agent: 'lawyer', next: 'publish' },
      { id: 'publish', agent: 'publisher', terminal: true },
      { id: 'fact-check', agent: 'checker', returns: true },
    ],
    detours: { source_missing: 'fact-check', upstream_diverged: { flow: 'sync', max_attempts: 1 } },
    inject_flows: ['sync'],
  },
  {
    flow: 'sync',
    charter: { goal: 'Sync the draft with upstream', key_question: 'Is it current?' },
    steps: [
      { id: 'pull', agent: 'operator', next: 'apply' },
      { id: 'apply', agent: 'operator', terminal: true },
    ],
  },
];

/** v1 with only the review loop's cap lowered to 1: a change whose effect on recorded runs is known. */
export const SHIP_V1_CAP1: FlowInput[] = SHIP_V1.map((f) =>
  f.flow !== 'ship' ? f : { ...f, steps: f.steps.map((s) => (s.id === 'review' ? { ...s, loop: { ...s.loop!, max_iterations: 1 } } : s)) },
);

export function ship(run_id: string, step: string, status: string, extra: Partial<RouteRequest> = {}): RouteRequest {
  return { run_id, flow: 'ship', step_completed: step, status, ...extra };
}

/** A temp folder with `v1/` and `v2/` flow folders (one JSON file per flow); `rm()` removes it. */
export function flowFolders(): { dir: string; v1: string; v2: string; cap1: string; rm: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'nk-versions-'));
  const write = (name: string, flows: FlowInput[]) => {
    const d = path.join(dir, name);
    mkdirSync(d, { recursive: true });
    for (const f of flows) writeFileSync(path.join(d, `${f.flow}.json`), JSON.stringify(f, null, 2));
    return d;
  };
  return { dir, v1: write('v1', SHIP_V1), v2: write('v2', SHIP_V2), cap1: write('cap1', SHIP_V1_CAP1), rm: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The stores every versions test runs on: a SQLite file under `dir`, and a fresh PostgreSQL schema when the server runs. */
export const STORES: { name: string; location: (dir: string) => string }[] = [
  { name: 'SQLite', location: (dir) => path.join(dir, 'runs', 'ledger.sqlite') },
  ...(DATABASE_URL ? [{ name: 'PostgreSQL', location: () => freshSchemaUrl('ver') }] : []),
];

/** Drops a PostgreSQL schema a test made (nothing for a SQLite file: its folder goes with the temp folder). */
export async function dropStore(location: string): Promise<void> {
  if (/^postgres(ql)?:\/\//.test(location)) await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(location)} CASCADE`);
}

export { openLedgerAt };
export const tmp = (): string => mkdtempSync(path.join(tmpdir(), 'nk-versions-'));
