import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { readLines } from '../../src/cli/read-documents.js';
import { serveCoProcess, type RoutingKernel } from '../../src/cli/route-coprocess.js';

const decision = (seq: number): Decision => ({ decision: 'CONTINUE', next_step_id: 'x', tier: 1, rule: 'success', reason: 'r', confidence: 1, needs_human: false, warnings: [], rejected: [], seq });

function sink() {
  const chunks: string[] = [];
  return { stream: new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c.toString()), cb()) }), lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

/** A kernel whose routes settle after a delay chosen per request, recording when each run's routes start and end. */
function slowKernel(delay: (req: { run_id: string; n: number }) => number) {
  const log: string[] = [];
  const busy = new Set<string>();
  let overlapWithinRun = false;
  let maxConcurrent = 0;
  let running = 0;
  const kernel: RoutingKernel = {
    route(request) {
      const req = request as { run_id: string; n: number };
      if (busy.has(req.run_id)) overlapWithinRun = true;
      busy.add(req.run_id);
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      log.push(`start ${req.run_id}:${req.n}`);
      return new Promise((resolve) =>
        setTimeout(() => {
          busy.delete(req.run_id);
          running--;
          log.push(`end ${req.run_id}:${req.n}`);
          resolve(decision(req.n));
        }, delay(req)),
      );
    },
  };
  return { kernel, log, stats: () => ({ overlapWithinRun, maxConcurrent }) };
}

describe('the co-process pipeline', () => {
  it('routes runs concurrently, one run in input order, and writes answers in input order', async () => {
    // Run a is slow, b fast: b's answers are ready long before a's, and must still wait for them.
    const { kernel, log, stats } = slowKernel((r) => (r.run_id === 'a' ? 30 : 1));
    const input = new PassThrough();
    const out = sink();
    const served = serveCoProcess(kernel, input, out.stream);
    const reqs = Array.from({ length: 12 }, (_, i) => ({ run_id: i % 3 === 0 ? 'a' : i % 3 === 1 ? 'b' : 'c', n: i + 1 }));
    input.end(reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const outcome = await served;
    expect(outcome).toEqual({ answered: 12, errors: 0, stoppedEarly: false });
    expect(out.lines().map((d) => d.seq)).toEqual(reqs.map((r) => r.n));
    expect(out.lines().map((d) => d.run_id)).toEqual(reqs.map((r) => r.run_id));
    expect(stats().overlapWithinRun).toBe(false);
    expect(stats().maxConcurrent).toBe(3);
    // Within run a, each route starts only after the previous one ended.
    const a = log.filter((l) => l.includes(' a:'));
    expect(a).toEqual(['start a:1', 'end a:1', 'start a:4', 'end a:4', 'start a:7', 'end a:7', 'start a:10', 'end a:10']);
  });

  it('bounds the read-ahead, and answers every line read even when input ends mid-flight', async () => {
    const { kernel, stats } = slowKernel(() => 2);
    const input = new PassThrough();
    const out = sink();
    const served = serveCoProcess(kernel, input, out.stream, { maxInFlight: 4 });
    input.end(Array.from({ length: 40 }, (_, i) => JSON.stringify({ run_id: `r${i}`, n: i + 1 })).join('\n'));
    await served;
    expect(out.lines()).toHaveLength(40);
    expect(stats().maxConcurrent).toBeLessThanOrEqual(4);
  });

  it('stops reading on its signal and still answers every line already read', async () => {
    const { kernel } = slowKernel(() => 30);
    const input = new PassThrough();
    const out = sink();
    const stop = new AbortController();
    const served = serveCoProcess(kernel, input, out.stream, { signal: stop.signal });
    input.write(['a', 'b', 'c'].map((run_id, i) => JSON.stringify({ run_id, n: i + 1 })).join('\n') + '\n');
    await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    input.write(JSON.stringify({ run_id: 'late', n: 4 }) + '\n'); // after the stop: not read
    const outcome = await served;
    expect(outcome).toMatchObject({ answered: 3, errors: 0, interrupted: true });
    expect(out.lines().map((d) => d.seq)).toEqual([1, 2, 3]);
  });

  it('--multiline: a document that never closes is refused at the size limit, not held', async () => {
    const { kernel } = slowKernel(() => 0);
    const input = new PassThrough();
    const out = sink();
    const served = serveCoProcess(kernel, input, out.stream, { multiline: true, maxLineBytes: 100 });
    input.end(`{"run_id": "a",\n"n": 1}\n{"open": [\n${'"x",\n'.repeat(50)}`);
    await served;
    expect(out.lines()).toEqual([expect.objectContaining({ seq: 1 }), { error: { code: 'INPUT_TOO_LARGE', message: 'line 3: the document is larger than the limit of 100 bytes', line: 3 } }]);
  });

  it('splits lines on bytes: CRLF, BOM, a multi-byte character cut across chunks, invalid UTF-8, an over-long line skipped unheld', async () => {
    const input = new PassThrough();
    const got: unknown[] = [];
    const reading = (async () => {
      for await (const l of readLines(input, 16)) got.push(l);
    })();
    const bytes = Buffer.concat([Buffer.from('\uFEFF{"a":1}\r\n'), Buffer.from('"é"\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(`"${'x'.repeat(40)}"\n`), Buffer.from('tail')]);
    for (let i = 0; i < bytes.length; i += 3) input.write(bytes.subarray(i, i + 3));
    input.end();
    await reading;
    expect(got).toEqual([{ line: 1, text: '{"a":1}' }, { line: 2, text: '"é"' }, { line: 3, notUtf8: true }, { line: 4, tooLarge: 42 }, { line: 5, text: 'tail' }]);
  });
});
