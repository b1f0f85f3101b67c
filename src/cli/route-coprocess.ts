// The co-process protocol of `navkernel route` (docs/coprocess.md):
//
//   - framing: one JSON document per line (LF or CRLF, UTF-8, a leading BOM ignored); blank lines are skipped;
//   - every other line gets exactly one answer line on stdout, in input order: the decision (with the request's
//     run_id and request_id), or an error line {"error":{"code","message","path"?,"line"},"request_id"?,"run_id"?};
//   - a bad line is that line's error, never glued onto the next one, and the co-process keeps serving;
//   - lines are read ahead and routed concurrently across runs (in order within a run); each answer is written
//     once the kernel resolved it (after its commit, with a ledger) and only after every earlier line's answer.
import type { Writable } from 'node:stream';
import type { Decision } from '../contracts/decision.js';
import type { ErrorCode } from '../contracts/error-codes.js';
import type { IssuePath } from '../contracts/errors.js';
import { DEFAULT_LIMITS } from '../contracts/limits.js';
import { NOT_UTF8, classifyRouteError, idsFromText, jsonSyntaxMessage, tooLargeMessage, type RouteRefusal } from '../contracts/request-input.js';
import type { RouteErrorLine } from '../contracts/route-answer.js';
import { readJsonDocuments, readLines, type ReadLine } from './read-documents.js';

/** What the co-process needs of a kernel. */
export interface RoutingKernel {
  route(request: unknown): Promise<Decision>;
}

export interface CoProcessOptions {
  /** Stop at the first line that gets an error (it is answered, nothing after it is read). Default false. */
  failFast?: boolean;
  /** Longest line read, in bytes; a longer one is answered INPUT_TOO_LARGE without being held. Default 1 MiB. */
  maxLineBytes?: number;
  /** Lines read ahead of the oldest unanswered one (default 1,024; 1 with failFast). */
  maxInFlight?: number;
  /** Accept pretty-printed JSON documents spanning lines (each answered as one line; a syntax error ends the input). */
  multiline?: boolean;
  /** Applied to every error message before it is written (the CLI redacts secrets with it). */
  scrub?: (message: string) => string;
  /** Stops reading (e.g. on SIGTERM): lines already read are still routed and answered, then it resolves. */
  signal?: AbortSignal;
  /** Told about every error line written (the CLI logs it on stderr). */
  onError?: (answer: RouteErrorLine) => void;
}

export interface CoProcessOutcome {
  /** Lines answered (decisions and errors). */
  answered: number;
  /** Of which errors. */
  errors: number;
  /** Whether it stopped early because of --fail-fast. */
  stoppedEarly: boolean;
  /** Whether the signal stopped the reading before the input ended. */
  interrupted?: boolean;
  /** Set when writing an answer failed (the reader closed its end): the co-process stopped there. */
  outputError?: string;
}

// The input rule and the wording of refusals are shared with `navkernel serve` (src/contracts/request-input.ts).
export { classifyRouteError, idsFromText, jsonSyntaxMessage };

/** Longest error message written (characters). */
const MAX_MESSAGE = 2000;

/** An id worth echoing: a string of reasonable length. */
function echo(v: unknown): string | undefined {
  return typeof v === 'string' && v.length <= 1024 ? v : undefined;
}

function errorLine(line: number, e: { code: ErrorCode; message: string; path?: IssuePath }, doc?: unknown): RouteErrorLine {
  const out: RouteErrorLine = { error: { code: e.code, message: e.message, ...(e.path !== undefined ? { path: e.path } : {}), line } };
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
    const d = doc as Record<string, unknown>;
    const request_id = echo(d.request_id);
    const run_id = echo(d.run_id);
    if (request_id !== undefined) out.request_id = request_id;
    if (run_id !== undefined) out.run_id = run_id;
  }
  return out;
}

function decisionLine(decision: Decision, doc: Record<string, unknown>): string {
  const run_id = echo(doc.run_id);
  const request_id = echo(doc.request_id);
  // The decision's own JSON with the ids appended (no copy of the decision).
  const json = JSON.stringify(decision);
  const ids = (run_id !== undefined ? `,"run_id":${JSON.stringify(run_id)}` : '') + (request_id !== undefined ? `,"request_id":${JSON.stringify(request_id)}` : '');
  return ids ? json.slice(0, -1) + ids + '}' : json;
}

interface Slot {
  /** The answer line (without newline) once known. */
  text?: string;
  error?: RouteErrorLine;
}

/**
 * Serves the co-process protocol: reads `input` to its end (or to the first error with failFast), writes one
 * answer line per non-blank input line to `output` in input order, and resolves with what it did. Never rejects
 * because of a line's content.
 */
export async function serveCoProcess(
  kernel: RoutingKernel,
  input: AsyncIterable<Buffer | string>,
  output: Writable,
  options: CoProcessOptions = {},
): Promise<CoProcessOutcome> {
  const failFast = options.failFast ?? false;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_LIMITS.maxBytes;
  const maxInFlight = failFast ? 1 : Math.max(1, options.maxInFlight ?? 1024);
  const outcome: CoProcessOutcome = { answered: 0, errors: 0, stoppedEarly: false };

  // Answers in input order: slots[head..] are waiting; a settled head is written with every settled one after it.
  const slots: Slot[] = [];
  let head = 0;
  let stop = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let pendingWrite = '';
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    while (head < slots.length && slots[head]!.text !== undefined && !stop) {
      const s = slots[head]!;
      pendingWrite += s.text + '\n';
      outcome.answered++;
      slots[head] = undefined as unknown as Slot;
      head++;
      if (s.error) {
        outcome.errors++;
        options.onError?.(s.error);
        if (failFast) {
          stop = true;
          outcome.stoppedEarly = true;
        }
      }
    }
    if (head > 4096 && head * 2 > slots.length) {
      slots.splice(0, head);
      head = 0;
    }
    if (pendingWrite) {
      if (!outcome.outputError) output.write(pendingWrite);
      pendingWrite = '';
    }
    signal();
  };
  // Answers settled while one chunk of input is being routed go out in one write: the flush runs in the event
  // loop's check phase, right after the read that brought the lines (no timer, so no added latency to speak of).
  const settle = (slot: Slot, text: string, error?: RouteErrorLine) => {
    slot.text = text;
    if (error) slot.error = error;
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  };
  const scrub = options.scrub;
  const answerError = (slot: Slot, e: RouteErrorLine) => {
    // Messages may quote the input (an unknown flow's name): redacted first, then kept to a readable size.
    if (scrub) e.error.message = scrub(e.error.message);
    if (e.error.message.length > MAX_MESSAGE) e.error.message = `${e.error.message.slice(0, MAX_MESSAGE)}… (cut)`;
    settle(slot, JSON.stringify(e), e);
  };

  // Routes of one run go in input order: each waits for the previous one of its run.
  const tails = new Map<string, Promise<unknown>>();
  const dispatch = (slot: Slot, line: number, doc: unknown) => {
    const run_id = doc !== null && typeof doc === 'object' ? (doc as { run_id?: unknown }).run_id : undefined;
    const go = (): Promise<unknown> => {
      let p: Promise<Decision>;
      try {
        p = kernel.route(doc);
      } catch (e) {
        p = Promise.reject(e);
      }
      return p.then(
        (d) => settle(slot, decisionLine(d, doc as Record<string, unknown>)),
        (e) => {
          const { issues: _issues, ...refusal } = classifyRouteError(e);
          answerError(slot, errorLine(line, refusal, doc));
        },
      );
    };
    if (typeof run_id !== 'string') return void go();
    const prev = tails.get(run_id);
    const p = prev ? prev.then(go) : go();
    tails.set(run_id, p);
    void p.then(() => {
      if (tails.get(run_id) === p) tails.delete(run_id);
    });
  };

  const room = async () => {
    while (!stop && (slots.length - head >= maxInFlight || (output as { writableNeedDrain?: boolean }).writableNeedDrain)) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        if ((output as { writableNeedDrain?: boolean }).writableNeedDrain) output.once('drain', signal);
      });
    }
  };

  // The reader of the answers went away (EPIPE): nobody can be answered any more, so stop reading.
  const onOutputError = (e: Error) => {
    outcome.outputError = e.message;
    stop = true;
    signal();
  };
  output.on('error', onOutputError);

  const iterator = options.multiline ? multilineLines(input, maxLineBytes) : readLines(input, maxLineBytes);
  try {
    // A stop signal (SIGTERM) ends the reading at once, even while it waits for input; lines already read are
    // still answered below.
    const signal = options.signal;
    const aborted = signal ? new Promise<'aborted'>((resolve) => (signal.aborted ? resolve('aborted') : signal.addEventListener('abort', () => resolve('aborted'), { once: true }))) : undefined;
    for (;;) {
      const next = aborted ? await Promise.race([iterator.next(), aborted]) : await iterator.next();
      if (next === 'aborted') {
        outcome.interrupted = true;
        break;
      }
      if (next.done) break;
      const r = next.value;
      if (stop) break;
      if ('text' in r && r.text.trim() === '') continue;
      const slot: Slot = {};
      slots.push(slot);
      if ('tooLarge' in r) answerError(slot, errorLine(r.line, { code: 'INPUT_TOO_LARGE', path: [], message: `line ${r.line}: ${tooLargeMessage('the line', r.tooLarge, maxLineBytes)}` }));
      else if ('notUtf8' in r) answerError(slot, errorLine(r.line, { code: 'INVALID_JSON', message: `line ${r.line}: ${NOT_UTF8}` }, r.ids));
      else if ('syntax' in r) answerError(slot, errorLine(r.line, { code: r.oversized ? 'INPUT_TOO_LARGE' : 'INVALID_JSON', message: r.syntax }));
      else {
        let doc: unknown;
        let parsed = false;
        try {
          doc = 'value' in r ? r.value : JSON.parse((r as { text: string }).text);
          parsed = true;
        } catch (e) {
          answerError(slot, errorLine(r.line, { code: 'INVALID_JSON', message: `line ${r.line}: not valid JSON: ${jsonSyntaxMessage(e)}` }, idsFromText((r as { text: string }).text)));
        }
        if (parsed) dispatch(slot, r.line, doc);
      }
      await room();
    }
  } finally {
    // Every line read gets its answer before the co-process ends.
    while (head < slots.length && !stop) await new Promise<void>((resolve) => (wake = resolve));
    flush();
    output.off('error', onOutputError);
  }
  return outcome;
}

/** Pretty-printed documents (`--multiline`): each one as a pseudo-line; a syntax error ends the input (framing is lost). */
async function* multilineLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<ReadLine | { line: number; value: unknown } | { line: number; syntax: string; oversized: boolean }> {
  try {
    for await (const doc of readJsonDocuments(input, maxBytes)) yield { line: doc.line, value: doc.value };
  } catch (e) {
    const line = (e as { line?: number }).line ?? 0;
    const message = (e as Error).message;
    yield { line: Math.max(1, line), syntax: message, oversized: / larger than the limit /.test(message) };
  }
}
