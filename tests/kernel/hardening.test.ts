import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputTooLargeError, ValidationError, issuePathText, type ArbiterInput, type RouteRequest } from '../../src/contracts/index.js';
import { createKernel } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { createRedactor } from '../../src/redact.js';
import { runCli } from '../support/cli.js';
import { req, testFlows } from '../support/kernel-fixtures.js';
import { NAMED_SECRETS, SECRET_CORPUS } from '../support/secret-corpus.js';
import { tmpDir } from '../ledger/helpers.js';

const nest = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('limits at the contract', () => {
  it('refuses a request nested 5,000 levels deep with a typed error naming the path, recording nothing', async () => {
    const { file, cleanup } = tmpDir();
    const kernel = createKernel({ flows: testFlows(), store: openLedger(file) });
    const err = await kernel.route(req('write', 'DONE', { forensics: { deep: nest(5000) } as RouteRequest['forensics'] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputTooLargeError);
    expect((err as InputTooLargeError).code).toBe('INPUT_TOO_LARGE');
    expect(issuePathText((err as InputTooLargeError).path)).toMatch(/^\$\.forensics\.deep(\[0\]\.a){31}$/);
    expect(await kernel.runState('run-1')).toBeUndefined();
    // The same run still routes afterwards, and the ledger holds exactly that one route.
    expect((await kernel.route(req('write', 'DONE'))).seq).toBe(1);
    await kernel.close();
    cleanup();
  });

  it('refuses a request over the size limit, and both limits are configurable', async () => {
    const kernel = createKernel({ flows: testFlows() });
    const big = await kernel.route(req('write', 'DONE', { forensics: { error_output: 'x'.repeat(1024 * 1024) } })).catch((e: unknown) => e);
    expect(big).toMatchObject({ code: 'INPUT_TOO_LARGE', limit: 'size' });
    const multibyte = await kernel.route(req('write', 'DONE', { forensics: { error_output: 'é'.repeat(600 * 1024) } })).catch((e: unknown) => e);
    expect(multibyte).toMatchObject({ code: 'INPUT_TOO_LARGE', path: [] });
    expect((await kernel.route(req('write', 'VERIFIED', { forensics: { error_output: 'x'.repeat(500 * 1024), deep: nest(60) } as RouteRequest['forensics'] }))).decision).toBe('CONTINUE');
    const small = createKernel({ flows: testFlows(), limits: { maxDepth: 3, maxBytes: 300 } });
    await expect(small.route(req('write', 'DONE', { forensics: { tests: { failures: [{ message: 'm' }] } } }))).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', path: ['forensics', 'tests', 'failures'] });
    await expect(small.route(req('write', 'DONE', { forensics: { error_output: 'y'.repeat(400) } }))).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', path: ['forensics', 'error_output'] });
    expect(() => createKernel({ flows: testFlows(), limits: { maxDepth: 0 } })).toThrow(/maxDepth must be a positive integer/);
  });

  it('refuses ill-formed Unicode (lone surrogates) in values and keys, so two run ids can never collide', async () => {
    const kernel = createKernel({ flows: testFlows() });
    for (const bad of [{ run_id: 'r\uD800' }, { run_id: 'r\uDFFF' }, { status: 'ok\uD83D' }, { forensics: { ['k\uDC00']: 1 } }]) {
      const err = await kernel.route({ ...req('write', 'DONE'), ...bad }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]!.code).toBe('ill_formed_unicode');
    }
    expect(kernel.liveRuns).toBe(0);
    // Well-formed astral characters are fine.
    expect((await kernel.route(req('write', 'DONE', { run_id: 'run-😀' }))).seq).toBe(1);
  });
});

describe('navkernel validate holds request files to the same contract', () => {
  it('reports ill-formed Unicode and a too-deep request with their paths', () => {
    const { dir, cleanup } = tmpDir();
    const file = path.join(dir, 'reqs.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...req('write', 'DONE'), run_id: 'r\uD800' })}\n${JSON.stringify(req('write', 'DONE', { forensics: { deep: nest(80) } as RouteRequest['forensics'] }))}\n`);
    const r = runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 1: \$\.run_id: expected well-formed Unicode/);
    expect(r.stderr).toMatch(/line 2: \$\.forensics\.deep[^:]*: nested deeper than the limit of 64 levels/);
    cleanup();
  });
});

describe('values that are not JSON (library callers)', () => {
  it('refuses NaN, Infinity, BigInt, functions, symbols, Dates, class instances and cycles with typed errors', async () => {
    const kernel = createKernel({ flows: testFlows() });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const [extra, path_] of [[NaN, '$.forensics.extra'], [Infinity, '$.forensics.extra'], [10n, '$.forensics.extra'], [() => 1, '$.forensics.extra'], [Symbol('s'), '$.forensics.extra'], [new Date(0), '$.forensics.extra'], [new Map(), '$.forensics.extra']] as const) {
      const err = await kernel.route(req('write', 'DONE', { forensics: { extra } as RouteRequest['forensics'] })).catch((e: unknown) => e);
      expect(err, String(typeof extra)).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]).toMatchObject({ path: path_.slice(2).split('.'), code: 'not_json' });
    }
    await expect(kernel.route(req('write', 'DONE', { forensics: { extra: cyclic } as RouteRequest['forensics'] }))).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
    expect(kernel.liveRuns).toBe(0);
  });
});

describe('refused proposals', () => {
  it('records an envelope next_step_id that is no edge in rejected[] even when tier 1 decides by another rule', async () => {
    const kernel = createKernel({ flows: testFlows() });
    const d = await kernel.route(req('review', 'APPROVED', { envelope: { next_step_id: 'polish' } }));
    expect(d).toMatchObject({ tier: 1, rule: 'branch', next_step_id: 'done' });
    expect(d.rejected).toEqual([{ tier: 2, rule: 'graph_constraint', decision: 'CONTINUE', target: 'polish', why: 'polish is not an edge from review' }]);
    const unknown = await kernel.route(req('write', 'VERIFIED', { run_id: 'r2', envelope: { next_step_id: 'nowhere' } }));
    expect(unknown).toMatchObject({ tier: 1, rule: 'success' });
    expect(unknown.rejected.map((r) => r.why)).toEqual(['nowhere is not a step of flow build']);
  });
});

describe('secret redaction', () => {
  it('redacts every corpus secret and every secret-named field, leaving other text alone', () => {
    const r = createRedactor();
    for (const s of SECRET_CORPUS) {
      const out = r.text(s.inText);
      expect(out, s.name).not.toContain(s.value);
      expect(out, s.name).toContain('[REDACTED]');
    }
    for (const plain of ['TypeError: cannot read foo of undefined at src/kernel/route-work.ts:42', 'Basic functionality works; Token expiry handled', 'task-runner-for-the-build-step-3 failed'])
      expect(r.text(plain)).toBe(plain);
    expect(r.text('curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA=="')).toBe('curl -H "[REDACTED]"');
    expect(r.text('authorization=opaque-session-value')).toBe('[REDACTED]');
    expect(r.value({ nested: { ...NAMED_SECRETS, tokens: 1234 } })).toEqual({ nested: { api_key: '[REDACTED]', auth_token: '[REDACTED]', client_secret: '[REDACTED]', password: '[REDACTED]', tokens: 1234 } });
    const extra = createRedactor({ patterns: ['ACME-[0-9]{6}'] });
    expect(extra.text('license ACME-123456 expired')).toBe('license [REDACTED] expired');
  });

  it('stores no corpus secret in SQLite or decisions.jsonl and sends none to tier 3', async () => {
    const { dir, file, cleanup } = tmpDir();
    const seen: ArbiterInput[] = [];
    const kernel = createKernel({
      flows: testFlows(),
      store: openLedger(file),
      arbiter: async (input) => {
        seen.push(input);
        return { proposal: { candidate_id: input.candidates.find((c) => c.decision === 'ESCALATE')?.id ?? input.candidates[0]!.id, reason: 'scripted' }, rejected: [], calls: [], cost_usd: 0 };
      },
    });
    let i = 0;
    for (const s of SECRET_CORPUS) {
      const run_id = `sec-${i++}`;
      // Three runs per secret (a run whose first route escalates takes no more routes until a person resolves it).
      await kernel.route(req('write', 'DONE', { run_id, forensics: { error_output: s.inText, concerns: [{ severity: 'HIGH', description: s.inText }], tests: { failed: 1, failures: [{ message: s.inText }] }, extra: { deep: [s.inText] } } as RouteRequest['forensics'] }));
      await kernel.route(req('check', 'UNVERIFIED', { run_id: `${run_id}-check`, forensics: { error_output: s.inText, ...NAMED_SECRETS } as RouteRequest['forensics'], envelope: { recommendation: s.inText } }));
      await kernel.route(req('review', 'WHATEVER', { run_id: `${run_id}-review`, forensics: { lint: { output: s.inText } }, envelope: { next_step_id: 'triage', recommendation: 'ESCALATE' } }));
    }
    await kernel.close();
    const blobs = filesUnder(dir).map((f) => readFileSync(f).toString('latin1'));
    expect(blobs.length).toBeGreaterThan(1);
    expect(blobs.join('\n')).toContain('[REDACTED]');
    const sent = JSON.stringify(seen);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of [...SECRET_CORPUS.map((c) => c.value), ...Object.values(NAMED_SECRETS)]) {
      for (const b of blobs) expect(b.includes(s), `stored: ${s.slice(0, 12)}…`).toBe(false);
      expect(sent.includes(s), `sent: ${s.slice(0, 12)}…`).toBe(false);
    }
  });

  it('writes no corpus secret to the co-process stdout or stderr, even from lines that fail', () => {
    const { dir, cleanup } = tmpDir();
    const lines = SECRET_CORPUS.flatMap((s, i) => [
      JSON.stringify({ run_id: `c${i}`, flow: 'build', step_completed: 'build-step-1', status: 'UNVERIFIED', forensics: { error_output: s.inText, ...NAMED_SECRETS } }),
      JSON.stringify({ run_id: `c${i}`, flow: s.inText, step_completed: 'x', status: 'x' }),
      `{"run_id": "c${i}", "broken": ${JSON.stringify(s.inText)}, oops}`,
    ]);
    const r = runCli(['route', '--flows', 'charters', '--ledger', path.join(dir, 'l.sqlite')], lines.join('\n'));
    expect(r.stdout.trim().split('\n')).toHaveLength(lines.length);
    expect(r.stderr.split('\n').length).toBeGreaterThan(SECRET_CORPUS.length);
    for (const s of [...SECRET_CORPUS.map((c) => c.value), ...Object.values(NAMED_SECRETS)]) {
      expect(r.stdout.includes(s), `stdout: ${s.slice(0, 12)}`).toBe(false);
      expect(r.stderr.includes(s), `stderr: ${s.slice(0, 12)}`).toBe(false);
    }
    cleanup();
  });
});
