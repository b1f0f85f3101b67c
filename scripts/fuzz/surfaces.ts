// The fuzz surfaces of issue 12: route() requests, co-process lines, flow files. Each `fuzz*` function runs
// fast-check for `numRuns` cases and returns its figures; a property that fails throws with fast-check's
// counterexample. Used by `npm run fuzz` (10,000 cases per surface) and by tests/fuzz (a few hundred).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import fc from 'fast-check';
import { NavkernelError, isErrorCode, compileValidator, type Decision } from '../../src/contracts/index.js';
import { serveCoProcess } from '../../src/cli/route-coprocess.js';
import { buildFlowSet, createKernel, loadFlows, parseFlowText, type FlowSet, type Kernel } from '../../src/kernel/index.js';
import { openLedger, verifyLedger } from '../../src/ledger/index.js';
import { packageRoot } from '../../src/package-root.js';

export interface FuzzFigures {
  surface: string;
  cases: number;
  /** Outcomes by kind: `decision`, or the error code of a typed error. */
  outcomes: Record<string, number>;
  /** Errors that were not NavkernelErrors with a stable code (must be 0). */
  untyped: number;
  /** Cases that did not settle within the time limit (must be 0). */
  hangs: number;
  ms: number;
}

const CASE_TIMEOUT_MS = 10_000;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`HANG: ${what} did not settle within ${CASE_TIMEOUT_MS} ms`)), CASE_TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
}

const charters = () => path.join(packageRoot(), 'charters');

// ---------------------------------------------------------------------------------------------------------------
// route() requests

const LONE = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF'];
const loneString = fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...LONE), fc.string({ maxLength: 8 })).map(([a, b, c]) => a + b + c);
const text = fc.oneof({ weight: 12, arbitrary: fc.string({ maxLength: 40 }) }, { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) }, { weight: 1, arbitrary: loneString });

/** A value nested `depth` levels. */
const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 3 === 0 ? [v] : { n: v };
  return v;
};

function requestArb(flows: FlowSet, runIds: readonly string[]) {
  const steps = [...flows.flows.values()].flatMap((f) => [...f.steps.keys()].map((s) => [f.id, s] as const));
  const forensics = fc.record(
    {
      tests: fc.record({ passed: fc.integer({ min: -1, max: 50 }), failed: fc.integer({ min: 0, max: 5 }), failures: fc.array(fc.record({ type: text, message: text }), { maxLength: 3 }) }, { requiredKeys: [] }),
      lint: fc.record({ errors: fc.integer({ min: 0, max: 5 }), output: text }, { requiredKeys: [] }),
      concerns: fc.array(fc.record({ severity: fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'LOW', 'HIGH', 'huge'), description: text }), { maxLength: 3 }),
      failure_signature: fc.oneof(fc.constantFrom('lint_errors', 'upstream_diverged', 'merge_conflict', 'type_error'), text),
      error_output: fc.oneof(text, fc.constantFrom('ModuleNotFoundError: No module named x', 'CONFLICT (content): merge conflict in a.ts', 'TypeError: x is not a function')),
      git_status: fc.record({ behind_upstream: fc.integer({ min: 0, max: 3 }), conflicts: fc.array(text, { maxLength: 2 }) }, { requiredKeys: [] }),
      extra: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.integer({ min: 55, max: 66 }).map(nested)),
    },
    { requiredKeys: [] },
  );
  const valid = fc.record(
    {
      run_id: fc.oneof(fc.constantFrom(...runIds), text),
      step: fc.constantFrom(...steps),
      status: fc.oneof(fc.constantFrom('VERIFIED', 'UNVERIFIED', 'APPROVED', 'BOUNCE', 'MERGE', 'failed', 'passed'), text),
      request_id: fc.option(fc.string({ minLength: 1, maxLength: 12 }).map((s) => `fz-${s}`), { nil: undefined }),
      forensics: fc.option(forensics, { nil: undefined }),
      iteration: fc.option(fc.record({ current: fc.integer({ min: 0, max: 6 }), max: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ['current'] }), { nil: undefined }),
      envelope: fc.option(fc.record({ next_step_id: fc.oneof(fc.constantFrom(...steps.map((s) => s[1])), text, fc.constant(null)), recommendation: fc.oneof(fc.constantFrom('LOOP', 'CONTINUE', 'ESCALATE', 'TERMINATE', 'DETOUR'), text) }, { requiredKeys: [] }), { nil: undefined }),
    },
    { requiredKeys: ['run_id', 'step', 'status'] },
  ).map(({ step, ...r }) => {
    const out: Record<string, unknown> = { run_id: r.run_id, flow: step[0], step_completed: step[1], status: r.status };
    for (const k of ['request_id', 'forensics', 'iteration', 'envelope'] as const) if (r[k] !== undefined) out[k] = r[k];
    return out;
  });
  // Mutations of a valid request: a field replaced by anything, a field dropped, an unknown field, a huge string.
  const mutated = fc.tuple(valid, fc.constantFrom('run_id', 'flow', 'step_completed', 'status', 'forensics', 'iteration', 'envelope', 'request_id', 'agent', 'bogus'), fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant(undefined), fc.constantFrom<unknown>(NaN, -Infinity, 7n, () => 1, Symbol('s'), new Date(0), new Map([[1, 2]]), { toJSON: () => 'x' }), fc.integer({ min: 100, max: 120 }).map(nested), fc.integer({ min: 1, max: 3 }).map((n) => 'x'.repeat(n * 40_000)))).map(([r, k, v]) => {
    const out = { ...r };
    if (v === undefined) delete out[k];
    else out[k] = v;
    return out;
  });
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) });
}

const validateDecision = () => compileValidator<Decision>('decision');

/** Classifies a route outcome; returns the outcome key, or throws when it breaks the property. */
function classify(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }, checkDecision: (d: unknown) => boolean): string {
  if (outcome.ok) {
    if (!checkDecision(outcome.value)) throw new Error(`route() resolved with something that is not a valid decision: ${JSON.stringify(outcome.value).slice(0, 300)}`);
    return 'decision';
  }
  const e = outcome.error;
  if (e instanceof NavkernelError && isErrorCode(e.code)) return e.code;
  throw new Error(`UNTYPED: route() rejected with ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
}

/**
 * route() requests against a real ledger (SQLite file in a temp folder) that already holds recorded runs.
 * Properties: route() resolves with a schema-valid decision or rejects with a typed error of a stable code,
 * never hangs; afterwards the recorded routes answer exactly as before and `verify` passes.
 */
export async function fuzzRoute(numRuns: number, seed?: number): Promise<FuzzFigures> {
  const t0 = performance.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-fuzz-'));
  const figures: FuzzFigures = { surface: 'route() requests (SQLite ledger)', cases: 0, outcomes: {}, untyped: 0, hangs: 0, ms: 0 };
  try {
    const flows = await loadFlows(charters());
    const file = path.join(dir, 'ledger.sqlite');
    const ledger = openLedger(file);
    const kernel: Kernel = createKernel({ flows, store: ledger, limits: { maxBytes: 64 * 1024 } });
    // Recorded before the fuzz: three runs, each route with a request_id.
    const recorded: { request: Record<string, unknown>; decision: Decision }[] = [];
    const pre = ['pre-a', 'pre-b', 'pre-c'];
    for (const run_id of pre) {
      for (const [i, [step, status]] of [['build-step-1', 'VERIFIED'], ['build-step-2', 'UNVERIFIED'], ['build-step-3', 'UNVERIFIED'], ['build-step-3', 'VERIFIED']].entries()) {
        const request = { run_id, flow: 'build', step_completed: step, status, request_id: `pre-${run_id}-${i}`, forensics: { tests: { passed: 3, failed: status === 'VERIFIED' ? 0 : 1 } }, restart: { reason: 'fuzz setup' } };
        recorded.push({ request, decision: await kernel.route(request) });
      }
    }
    const check = validateDecision();
    const isDecision = (d: unknown) => check(d).success;
    await fc.assert(
      fc.asyncProperty(requestArb(flows, [...pre, 'fz-1', 'fz-2']), async (request) => {
        figures.cases++;
        const outcome = await withTimeout(
          kernel.route(request).then(
            (value) => ({ ok: true as const, value }),
            (error: unknown) => ({ ok: false as const, error }),
          ),
          'route()',
        );
        const key = classify(outcome, isDecision);
        figures.outcomes[key] = (figures.outcomes[key] ?? 0) + 1;
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}) },
    );
    for (const r of recorded) {
      const again = await kernel.route(r.request);
      if (JSON.stringify(again) !== JSON.stringify(r.decision)) throw new Error(`a recorded decision changed: ${JSON.stringify(r.request)}`);
    }
    await kernel.close();
    const reader = openLedger(file);
    const report = await verifyLedger(reader);
    await reader.close();
    if (!report.ok) throw new Error(`verify failed after the fuzz: ${JSON.stringify(report).slice(0, 500)}`);
    figures.outcomes.verify_ok = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  figures.ms = Math.round(performance.now() - t0);
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// co-process lines

// Runners that re-run steps in any order say so (restart, docs/run-states.md); many runs, as a run that escalated or
// ended takes no more routes.
const validLine = fc.record({ run_id: fc.nat(40).map((n) => `co-${n}`), step: fc.constantFrom('build-step-1', 'build-step-2', 'build-step-3', 'build-review'), status: fc.constantFrom('VERIFIED', 'UNVERIFIED', 'APPROVED') }).map((r) => JSON.stringify({ run_id: r.run_id, flow: 'build', step_completed: r.step, status: r.status, restart: { reason: 'fuzz' } }));

/** One raw line (bytes, without its newline): valid, truncated, random bytes, huge, with NUL / BOM / CR. */
const lineBytes = (maxLineBytes: number) =>
  fc.oneof(
    { weight: 4, arbitrary: validLine.map((s) => Buffer.from(s)) },
    { weight: 2, arbitrary: fc.tuple(validLine, fc.nat()).map(([s, n]) => Buffer.from(s.slice(0, n % s.length))) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 60 }).map((a) => Buffer.from(a.filter((b) => b !== 0x0a))) },
    { weight: 1, arbitrary: fc.tuple(validLine, fc.constantFrom('\u0000', '\uFEFF', '\r', '\r\r', '\u2028')).map(([s, c]) => Buffer.from(c === '\uFEFF' ? c + s : s.replace(',', `,${c}`) + (c.startsWith('\r') ? c : ''))) },
    { weight: 1, arbitrary: fc.integer({ min: maxLineBytes - 2, max: maxLineBytes * 3 }).map((n) => Buffer.from(`{"run_id":"big","x":"${'y'.repeat(n)}"}`)) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from(''), Buffer.from('   '), Buffer.from('\uFEFF'), Buffer.from('null'), Buffer.from('[]'), Buffer.from('{}'), Buffer.from('"x"'), Buffer.from('{"run_id":"\\ud800"}')) },
  );

/** Lines the co-process must answer: every line that is not blank once decoded (as the protocol says). */
function expectedAnswers(lines: Buffer[], maxLineBytes: number): number[] {
  const out: number[] = [];
  const dec = new TextDecoder('utf-8', { fatal: true });
  lines.forEach((raw, i) => {
    let b = raw;
    if (b.length && b[b.length - 1] === 0x0d) b = b.subarray(0, b.length - 1);
    if (raw.length > maxLineBytes) return void out.push(i + 1);
    try {
      if (dec.decode(b).trim() === '') return;
    } catch {
      // not UTF-8: answered
    }
    out.push(i + 1);
  });
  return out;
}

/** Collects what the co-process writes. */
function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Co-process lines, served in process by the same loop as `navkernel route`, in random chunkings. Properties:
 * every non-blank line gets exactly one answer line, in order, naming its line; each answer is a decision line
 * or an error line of the published schemas; the loop never rejects or hangs.
 */
export async function fuzzCoProcess(numRuns: number, seed?: number): Promise<FuzzFigures> {
  const t0 = performance.now();
  const maxLineBytes = 2048;
  const figures: FuzzFigures = { surface: 'co-process lines', cases: 0, outcomes: {}, untyped: 0, hangs: 0, ms: 0 };
  const flows = await loadFlows(charters());
  const kernel = createKernel({ flows, limits: { maxBytes: maxLineBytes } });
  const answerOk = compileValidator('route-answer-line');
  const errorOk = compileValidator<{ error: { code: string; line: number } }>('route-error-line');
  await fc.assert(
    fc.asyncProperty(fc.array(lineBytes(maxLineBytes), { minLength: 1, maxLength: 12 }), fc.boolean(), fc.integer({ min: 1, max: 64 }), async (lines, finalNewline, chunk) => {
      figures.cases++;
      const input = new PassThrough();
      const out = sink();
      const bytes = Buffer.concat(lines.flatMap((l, i) => (i < lines.length - 1 || finalNewline ? [l, Buffer.from('\n')] : [l])));
      const served = withTimeout(serveCoProcess(kernel, input, out.stream, { maxLineBytes }), 'the co-process');
      for (let at = 0; at < bytes.length; at += chunk) input.write(bytes.subarray(at, at + chunk));
      input.end();
      const outcome = await served;
      const answers = out.text().split('\n');
      if (answers.pop() !== '') throw new Error('the output does not end with a newline');
      const expected = expectedAnswers(lines, maxLineBytes);
      if (answers.length !== expected.length || outcome.answered !== expected.length) throw new Error(`expected ${expected.length} answers (lines ${expected.join(',')}), got ${answers.length}: ${answers.join(' | ').slice(0, 500)}`);
      answers.forEach((a, i) => {
        const v = JSON.parse(a) as { error?: { code: string; line: number } };
        if (v.error) {
          if (!errorOk(v).success) throw new Error(`error line off its schema: ${a}`);
          if (v.error.line !== expected[i]) throw new Error(`answer ${i} names line ${v.error.line}, expected ${expected[i]}`);
          figures.outcomes[v.error.code] = (figures.outcomes[v.error.code] ?? 0) + 1;
        } else {
          if (!answerOk(v).success) throw new Error(`decision line off its schema: ${a}`);
          figures.outcomes.decision = (figures.outcomes.decision ?? 0) + 1;
        }
      });
    }),
    { numRuns, ...(seed !== undefined ? { seed } : {}) },
  );
  await kernel.close();
  figures.ms = Math.round(performance.now() - t0);
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// flow files

/**
 * Flow files: random text, and the shipped charters mutated (cut, bytes replaced, lines dropped or doubled),
 * parsed as YAML or JSON and built into a FlowSet; one case in 50 goes through loadFlows on a real folder.
 * Property: a FlowSet, or a FlowValidationError (typed, with issues); nothing else, never a hang.
 */
export async function fuzzFlowFiles(numRuns: number, seed?: number): Promise<FuzzFigures> {
  const t0 = performance.now();
  const figures: FuzzFigures = { surface: 'flow files', cases: 0, outcomes: {}, untyped: 0, hangs: 0, ms: 0 };
  const { readFileSync, readdirSync } = await import('node:fs');
  const sources = readdirSync(charters()).filter((f) => /\.ya?ml$/.test(f)).map((f) => readFileSync(path.join(charters(), f), 'utf8'));
  const rebase = sources.find((s) => /^flow: rebase/m.test(s)) ?? '';
  const mutate = fc.tuple(fc.constantFrom(...sources), fc.array(fc.tuple(fc.constantFrom('cut', 'replace', 'drop', 'double', 'insert'), fc.nat(), fc.string({ unit: 'binary', maxLength: 6 })), { minLength: 1, maxLength: 4 })).map(([src, ops]) => {
    let s = src;
    for (const [op, n, junk] of ops) {
      const at = n % Math.max(1, s.length);
      const lines = s.split('\n');
      const li = n % lines.length;
      if (op === 'cut') s = s.slice(0, at);
      else if (op === 'replace') s = s.slice(0, at) + junk + s.slice(at + junk.length);
      else if (op === 'insert') s = s.slice(0, at) + junk + s.slice(at);
      else if (op === 'drop') s = [...lines.slice(0, li), ...lines.slice(li + 1)].join('\n');
      else s = [...lines.slice(0, li + 1), ...lines.slice(li)].join('\n');
    }
    return s;
  });
  const doc = fc.oneof({ weight: 6, arbitrary: mutate }, { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)) });
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-fuzz-flows-'));
  try {
    await fc.assert(
      fc.asyncProperty(doc, fc.boolean(), fc.nat(49), async (text, asJson, disk) => {
        figures.cases++;
        const name = asJson ? 'flow.json' : 'flow.yaml';
        try {
          if (disk === 0) {
            rmSync(path.join(dir, 'flow.json'), { force: true });
            rmSync(path.join(dir, 'flow.yaml'), { force: true });
            writeFileSync(path.join(dir, name), text);
            writeFileSync(path.join(dir, 'rebase.yaml'), rebase);
            await withTimeout(loadFlows(dir), 'loadFlows');
          } else {
            const parsed = parseFlowText(text, name);
            if ('issue' in parsed) {
              figures.outcomes.INVALID_FLOW = (figures.outcomes.INVALID_FLOW ?? 0) + 1;
              return;
            }
            const rebaseDoc = parseFlowText(rebase, 'rebase.yaml');
            buildFlowSet([{ file: name, value: parsed.value }, ...('value' in rebaseDoc ? [{ file: 'rebase.yaml', value: rebaseDoc.value }] : [])]);
          }
          figures.outcomes.flows = (figures.outcomes.flows ?? 0) + 1;
        } catch (e) {
          if (e instanceof NavkernelError && e.code === 'INVALID_FLOW') figures.outcomes.INVALID_FLOW = (figures.outcomes.INVALID_FLOW ?? 0) + 1;
          else throw new Error(`UNTYPED: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}\ninput: ${JSON.stringify(text).slice(0, 300)}`);
        }
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}) },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  figures.ms = Math.round(performance.now() - t0);
  return figures;
}

/** Lines for a real co-process child (what `npm run fuzz` and the test pipe through `navkernel route`). */
export function sampleCoProcessLines(n: number, seed: number, maxLineBytes: number): Buffer[] {
  return fc.sample(lineBytes(maxLineBytes), { numRuns: n, seed });
}
export { expectedAnswers };
