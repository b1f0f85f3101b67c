import { PassThrough, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/contracts/index.js';
import { DocumentSyntaxError, readJsonDocuments, readLines, type ReadDocument } from '../../src/cli/read-documents.js';
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

/** Every document `readJsonDocuments` yields for these chunks, and the error that ended the reading (if any). */
async function readAll(chunks: Iterable<Buffer | string>, maxBytes?: number): Promise<{ docs: ReadDocument[]; error?: DocumentSyntaxError }> {
  const docs: ReadDocument[] = [];
  async function* source() {
    yield* chunks;
  }
  try {
    for await (const d of readJsonDocuments(source(), maxBytes)) docs.push(d);
  } catch (e) {
    expect(e).toBeInstanceOf(DocumentSyntaxError);
    return { docs, error: e as DocumentSyntaxError };
  }
  return { docs };
}

/** The bytes cut in two at `at`. */
const cut = (bytes: Buffer, at: number) => [bytes.subarray(0, at), bytes.subarray(at)];

describe('readJsonDocuments (--multiline framing)', () => {
  it('ignores braces, brackets and quotes inside strings', async () => {
    const text = '{"a": "}{][", "b": ["]", "{", "}}}"], "c": {"d": "[[["}}\n["\\"}", "\\\\", "\\\\\\"]"]\n';
    const { docs, error } = await readAll([text]);
    expect(error).toBeUndefined();
    expect(docs).toEqual([
      { line: 1, value: { a: '}{][', b: [']', '{', '}}}'], c: { d: '[[[' } } },
      { line: 2, value: ['"}', '\\', '\\"]'] },
    ]);
  });

  it('ends a string at a quote after escaped backslashes, not at an escaped quote', async () => {
    // "x\\" ends at its last quote; "y\"" holds a quote; a top-level string ending in a backslash is followed by another.
    const text = '{"a": "x\\\\"}\n{"b": "y\\""}\n"z\\\\" "w"\n{"c": "\\\\\\\\"}';
    const { docs, error } = await readAll([text]);
    expect(error).toBeUndefined();
    expect(docs.map((d) => d.value)).toEqual([{ a: 'x\\' }, { b: 'y"' }, 'z\\', 'w', { c: '\\\\' }]);
    expect(docs.map((d) => d.line)).toEqual([1, 2, 3, 3, 4]);
  });

  it('frames the same documents however the bytes are cut into chunks (inside a UTF-8 character, inside an escape)', async () => {
    const values = [{ run_id: 'é-1', note: 'snowman ☃, emoji 😀, quote \\" and backslash \\\\ and \\u00e9', nested: { list: [1, [2, { x: '}]' }]], empty: {} } }, 'top "string" 😀', 42, [true, null, -1.5e3], { last: '\\' }];
    const text = '\uFEFF' + values.map((v, i) => (i % 2 ? JSON.stringify(v, null, 2) : JSON.stringify(v))).join('\n\n') + '\n';
    const bytes = Buffer.from(text, 'utf8');
    const expected = (await readAll([bytes])).docs;
    expect(expected.map((d) => d.value)).toEqual(values);
    for (let at = 0; at <= bytes.length; at++) {
      const { docs, error } = await readAll(cut(bytes, at));
      expect(error, `cut at byte ${at}`).toBeUndefined();
      expect(docs, `cut at byte ${at}`).toEqual(expected);
    }
    // And one byte at a time.
    expect((await readAll(Array.from(bytes, (b) => Buffer.from([b])))).docs).toEqual(expected);
  });

  it('frames random pretty-printed documents cut into random chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), fc.constantFrom('\n', ' ', '\r\n\r\n', ''), async (values, cuts, sep) => {
        // Numbers next to each other need a separator; everything else may touch.
        const text = values.map((v, i) => JSON.stringify(v, null, i % 3)).join(sep || ' ');
        const bytes = Buffer.from(text, 'utf8');
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i, all) => bytes.subarray(p, all[i + 1] ?? bytes.length));
        const { docs, error } = await readAll(chunks);
        expect(error).toBeUndefined();
        expect(docs.map((d) => d.value)).toEqual(values.map((v) => JSON.parse(JSON.stringify(v))));
      }),
      { numRuns: 200, seed: 31 },
    );
  });

  it('reads several documents on one line, and skips whitespace and blank lines between documents', async () => {
    const text = '{"a":1}{"b":2} [3]"s" 4 true null\n\n  \t\r\n   {\n  "c": [\n    1\n  ]\n}\r\n\r\n\n7\n';
    const { docs, error } = await readAll([text]);
    expect(error).toBeUndefined();
    expect(docs).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 1, value: { b: 2 } },
      { line: 1, value: [3] },
      { line: 1, value: 's' },
      { line: 1, value: 4 },
      { line: 1, value: true },
      { line: 1, value: null },
      { line: 4, value: { c: [1] } },
      { line: 11, value: 7 },
    ]);
  });

  it('yields a document as soon as its last byte is read, without waiting for a newline or more input', async () => {
    const input = new PassThrough();
    const docs = readJsonDocuments(input);
    input.write('{"a":\n');
    const first = docs.next();
    input.write('1}');
    expect(await first).toEqual({ done: false, value: { line: 1, value: { a: 1 } } });
    input.end();
    expect(await docs.next()).toEqual({ done: true, value: undefined });
  });

  it('refuses a document cut off at the end of the input, naming the line it started on', async () => {
    for (const tail of ['{"b": [1,\n2', '{"b": "abc', '{"b": "abc\\', '[[{}]', '"abc']) {
      const { docs, error } = await readAll([`{"a":1}\n\n${tail}`]);
      expect(docs.map((d) => d.value)).toEqual([{ a: 1 }]);
      expect(error?.message, tail).toBe('line 3: the input ended in the middle of a JSON document');
      expect(error?.line).toBe(3);
    }
  });

  it('refuses trailing garbage and stray closers after a document, without quoting the input', async () => {
    const garbage = await readAll(['{"a":1}\n{"b":2} secret-token-value\n{"c":3}\n']);
    expect(garbage.docs.map((d) => d.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(garbage.error?.line).toBe(2);
    expect(garbage.error?.message).toMatch(/^line 2: not valid JSON: /);
    expect(garbage.error?.message).not.toContain('secret-token');

    const closer = await readAll(['{"a":1}\n\n{"b":2}}\n{"c":3}']);
    expect(closer.docs.map((d) => d.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(closer.error?.message).toBe("line 3: not valid JSON: '}' closes nothing (no object or array is open)");

    const comma = await readAll(['{"a":1},\n{"b":2}']);
    expect(comma.docs.map((d) => d.value)).toEqual([{ a: 1 }]);
    expect(comma.error?.message).toMatch(/^line 1: not valid JSON: /);
  });

  it('ends the reading at a syntax error inside a document, at the line it started on, without quoting it', async () => {
    const bad = await readAll(['{"a":1}\n{\n  "password": "hunter2-secret" "x": 1\n}\n{"c":3}\n']);
    expect(bad.docs.map((d) => d.value)).toEqual([{ a: 1 }]);
    expect(bad.error?.line).toBe(2);
    expect(bad.error?.message).toMatch(/^line 2: not valid JSON: /);
    expect(bad.error?.message).not.toContain('hunter2');
    // Brackets that do not match are framed by depth, then refused by the parser.
    expect((await readAll(['{"a": [1}]\n'])).error?.message).toMatch(/^line 1: not valid JSON: /);
    // A raw newline inside a string is refused at once, not read on to the size limit.
    const open = await readAll(['{\n"a": "no closing quote\n"b": 2}\n{"c": 3}\n']);
    expect(open.docs).toEqual([]);
    expect(open.error?.message).toBe('line 1: not valid JSON: a string is not closed at the end of line 2');
  });

  it('refuses a document over the byte limit as soon as it is passed (an endless one too), and invalid UTF-8', async () => {
    // 10 bytes is within a limit of 10 (whitespace between documents does not count), 11 is not.
    expect((await readAll(['   {"a":"12"}\n\n  {"a":"é"} '], 10)).docs.map((d) => d.value)).toEqual([{ a: '12' }, { a: 'é' }]);
    const over = await readAll(['{"a":"12"}\n{"a":"123"}\n'], 10);
    expect(over.docs).toHaveLength(1);
    expect(over.error?.message).toBe('line 2: the document is larger than the limit of 10 bytes');
    expect((await readAll(Array.from('{"a":"123"}', (c) => c), 10)).error?.message).toMatch(/ larger than the limit /);
    expect((await readAll(['12345678901'], 10)).error?.message).toMatch(/ larger than the limit /);
    // An array that never closes: refused once the limit is passed, the rest never read.
    let read = 0;
    function* endless() {
      yield '[';
      for (;;) {
        read++;
        yield '"xxxxxxxxxxxxxxx",\n';
      }
    }
    const endlessly = await readAll(endless(), 1000);
    expect(endlessly.error?.message).toBe('line 1: the document is larger than the limit of 1000 bytes');
    expect(read).toBeLessThan(100);

    const notUtf8 = await readAll([Buffer.from('{"a":1}\n{"b": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    expect(notUtf8.docs.map((d) => d.value)).toEqual([{ a: 1 }]);
    expect(notUtf8.error?.message).toBe('line 2: not valid UTF-8 (requests are UTF-8 encoded JSON)');
  });

  it('--multiline through the co-process: documents on one line each get their answer, then the error ends the input', async () => {
    const { kernel } = slowKernel(() => 0);
    const input = new PassThrough();
    const out = sink();
    const served = serveCoProcess(kernel, input, out.stream, { multiline: true });
    input.end('{"run_id": "a", "n": 1} {"run_id": "b",\n "n": 2}\n{"run_id": "c", "n": 3}}\n{"run_id": "d", "n": 4}\n');
    const outcome = await served;
    expect(outcome).toMatchObject({ answered: 4, errors: 1 });
    const lines = out.lines();
    expect(lines.slice(0, 3).map((d) => d.seq)).toEqual([1, 2, 3]);
    expect(lines[3]).toEqual({ error: { code: 'INVALID_JSON', message: "line 3: not valid JSON: '}' closes nothing (no object or array is open)", line: 3 } });
  });
});
