// Attack class (or accident): a secret in free text a person writes. SECURITY.md promises that detected secrets never
// reach the ledger. Every free-text field a person writes is tried with real-looking secrets of each common shape:
// the resolution's reason and `by` (library, CLI, MCP all go through resolveEscalation) and the route request's
// free text (status, agent, forensics, envelope). Neither the stored rows, the answer, nor an export holds them.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/contracts/index.js';
import { HARSH_SCENARIO, simulate } from '../../src/demo/index.js';
import { resolveEscalation } from '../../src/runs/index.js';
import { runCli } from '../support/cli.js';
import { CHARTERS } from '../support/kernel-fixtures.js';
import { ledgerKernel, sampleFlows, tmpDir } from './helpers.js';

/** One secret of each shape people paste: GitHub, navkernel bearer, AWS, Anthropic, a private key, URL credentials. */
const SECRETS = [
  'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'Bearer nk_' + 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
  'AKIA' + 'IOSFODNN7EXAMPLQ',
  'sk-ant-' + 'api03-abcdefghijklmnopqrstuvwxyz012345',
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----',
  'https://deploy:' + 'hunter2hunter2@example.com/repo.git',
];
/** The part of each secret that must not survive anywhere. */
const CORE = SECRETS.map((s) => s.replace(/^(Bearer |-----BEGIN PRIVATE KEY-----\n|https:\/\/deploy:)/, '').slice(0, 20));

const t = tmpDir();
let escalations: string[] = [];

beforeAll(async () => {
  const flows = await sampleFlows();
  const { kernel } = ledgerKernel(t.file, flows);
  await simulate(kernel, HARSH_SCENARIO);
  // Free text of a route request: status, agent, forensics and the envelope.
  for (const [i, secret] of SECRETS.entries()) {
    await kernel.route({
      run_id: `secret-request-${i}`,
      flow: 'build',
      step_completed: 'build-step-1',
      status: `VERIFIED ${secret}`,
      agent: `agent with ${secret}`,
      forensics: { error_output: `failed: ${secret}`, tests: { failures: [{ kind: 'failure', message: secret }] } },
      envelope: { purpose: `done; token ${secret}` },
    });
  }
  await kernel.close();
  const audits = HARSH_SCENARIO.runs;
  for (let r = 1; r <= audits; r++) {
    const a = JSON.parse(runCli(['audit', `harsh-run-${r}`, '--json', '--ledger', t.file]).stdout) as AuditReport;
    escalations.push(...a.escalations.filter((e) => !e.resolution).map((e) => e.escalation_id));
  }
  escalations = escalations.slice(0, SECRETS.length + 1);
  expect(escalations.length).toBeGreaterThanOrEqual(2);
}, 120_000);
afterAll(() => t.cleanup());

/** Every text the SQLite file holds, and its decisions.jsonl files: nothing may contain a secret's core. */
function expectNowhere(where: string): void {
  const db = new Database(t.file, { readonly: true });
  const dump: string[] = [];
  for (const table of ['routes', 'escalations', 'runs', 'run_register']) {
    for (const row of db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]) dump.push(JSON.stringify(row));
  }
  db.close();
  const text = dump.join('\n') + readFileSync(t.file).toString('latin1');
  for (const core of CORE) expect(text.includes(core), `${where}: ${core} found in the ledger`).toBe(false);
}

describe('secrets in what a person writes never reach the ledger', () => {
  it("a route request's status, agent, forensics and envelope", () => {
    expectNowhere('route requests');
  });

  it('a resolution reason and `by`, through the library: redacted in the stored row and in the answer', async () => {
    const flows = await sampleFlows();
    const { ledger } = ledgerKernel(t.file, flows);
    try {
      const e = await resolveEscalation(ledger, flows, { escalation_id: escalations[0]!, decision: 'TERMINATE', by: `ops ${SECRETS[0]}`, reason: `closing; used ${SECRETS.join(' and ')}` });
      for (const core of CORE) expect(JSON.stringify(e)).not.toContain(core);
      expect(e.resolution!.reason).toContain('[REDACTED]');
      expect(e.resolution!.by).toBe('ops [REDACTED]');
    } finally {
      await ledger.close();
    }
    expectNowhere('resolution through the library');
  });

  it('a resolution reason and --by through the CLI, each shape on its own; the JSON answer holds none', () => {
    for (const [i, secret] of SECRETS.slice(0, escalations.length - 1).entries()) {
      const out = runCli(['resolve', escalations[i + 1]!, '--decision', 'TERMINATE', '--by', `${secret}`, '--reason', `see ${secret}`, '--flows', CHARTERS, '--ledger', t.file, '--json']);
      expect(out.code, out.stderr).toBe(0);
      for (const core of CORE) expect(out.stdout).not.toContain(core);
      const { by, reason } = JSON.parse(out.stdout).resolution as { by: string; reason: string };
      expect(by.startsWith('[REDACTED]'), by).toBe(true);
      expect(reason.startsWith('see [REDACTED]'), reason).toBe(true);
    }
    expectNowhere('resolution through the CLI');
  });
});
