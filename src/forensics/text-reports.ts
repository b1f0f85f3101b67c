import type { ForensicsCollector } from './summary.js';

// Line-oriented reports: each line is read once and dropped (memory bounded by the longest line kept).

/** `tsc --pretty false` (`file(l,c): error TS2322: …`) or `--pretty` (`file:l:c - error TS2322: …`). */
export async function readTsc(lines: AsyncIterable<string[]>, sink: ForensicsCollector): Promise<void> {
  for await (const batch of lines) for (const raw of batch) {
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '');
    const m = /^(.*?)\((\d+),\d+\): (error|warning) (TS\d+): (.*)$/.exec(line) ?? /^(.*?):(\d+):\d+ - (error|warning) (TS\d+): (.*)$/.exec(line);
    if (m) {
      sink.typeDiagnostic({ file: m[1]!, line: Number(m[2]), severity: m[3] as 'error' | 'warning', rule: m[4]!, message: m[5]! });
      continue;
    }
    const g = /^(error|warning) (TS\d+): (.*)$/.exec(line);
    if (g) sink.typeDiagnostic({ severity: g[1] as 'error' | 'warning', rule: g[2]!, message: g[3]! });
  }
  sink.typesSeen = true;
}

/** mypy's default output: `file:line[:col]: error: message  [code]` (notes skipped). */
export async function readMypy(lines: AsyncIterable<string[]>, sink: ForensicsCollector): Promise<void> {
  for await (const batch of lines) for (const line of batch) {
    const m = /^([^\s:][^:]*):(\d+)(?::\d+)?: (error|warning): (.*?)(?:\s+\[([A-Za-z0-9_-]+)\])?$/.exec(line);
    if (m) sink.typeDiagnostic({ file: m[1]!, line: Number(m[2]), severity: m[3] as 'error' | 'warning', rule: m[5] ?? 'misc', message: m[4]! });
  }
  sink.typesSeen = true;
}

/** One traceback block of pytest's FAILURES / ERRORS sections. */
interface PytestBlock {
  kind: 'failure' | 'error';
  phase?: string;
  eLines: string[];
  where?: { file: string; line: number };
}

/**
 * pytest's plain output: counts from its final line (`1 failed, 2 passed, 1 error in 0.9s`), failures from the
 * short test summary (`FAILED a.py::t - msg`, `ERROR b.py`), each matched with its traceback block for the
 * exception line (`E   ModuleNotFoundError: …`) and the file and line.
 */
export async function readPytest(lines: AsyncIterable<string[]>, sink: ForensicsCollector): Promise<void> {
  const blocks = new Map<string, PytestBlock>();
  let block: PytestBlock | undefined;
  let inSummary = false;
  let totals: Record<string, number> | undefined;
  const listed: { kind: 'failure' | 'error'; id: string; message?: string }[] = [];
  let failedSeen = 0;
  for await (const batch of lines) for (const line of batch) {
    // `-q` prints the final line bare: `1 failed, 1 passed, 2 errors in 0.99s`.
    const section = /^={3,} (.+?) ={3,}$/.exec(line) ?? /^((?:\d+ [a-z]+(?:, )?)+ in [\d.]+s\b.*)$/.exec(line);
    if (section) {
      block = undefined;
      inSummary = section[1] === 'short test summary info';
      const counts = [...section[1]!.matchAll(/(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)\b/g)];
      if (counts.length && / in [\d.]+s\b/.test(section[1]!)) totals = Object.fromEntries(counts.map((c) => [c[2]!.replace(/s$/, '').replace(/^error$/, 'error'), Number(c[1])]));
      continue;
    }
    const head = /^_{3,} (?:(ERROR) (collecting|at setup of|at teardown of) )?(.+?) _{3,}$/.exec(line);
    if (head) {
      block = { kind: head[1] ? 'error' : 'failure', ...(head[2] ? { phase: head[2] } : {}), eLines: [] };
      if (blocks.size < 1000) blocks.set(head[3]!, block);
      continue;
    }
    if (block) {
      if (/^E\s{1,}/.test(line) && block.eLines.length < 4) block.eLines.push(line.replace(/^E\s+/, ''));
      const at = /^([^\s:]+\.py):(\d+): /.exec(line);
      if (at) block.where = { file: at[1]!, line: Number(at[2]) };
      continue;
    }
    if (inSummary) {
      const s = /^(FAILED|ERROR) (\S+)(?: - (.*))?$/.exec(line);
      if (s) {
        if (s[1] === 'FAILED') failedSeen++;
        if (listed.length < 10_000) listed.push({ kind: s[1] === 'FAILED' ? 'failure' : 'error', id: s[2]!, ...(s[3] ? { message: s[3] } : {}) });
      }
    }
  }
  for (const l of listed) {
    const name = l.id.includes('::') ? l.id.slice(l.id.lastIndexOf('::') + 2) : l.id;
    const b = blocks.get(name) ?? blocks.get(l.id) ?? blocks.get(l.id.split('::')[0]!);
    const exception = b?.eLines.find((e) => /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b/.test(e)) ?? b?.eLines[0];
    const message = l.message ?? exception ?? (b?.phase === 'collecting' ? 'collection failure' : undefined);
    const file = b?.where?.file ?? (l.id.includes('::') || l.id.endsWith('.py') ? l.id.split('::')[0] : undefined);
    sink.testFailed({
      kind: l.kind,
      name: l.id,
      ...(file ? { file } : {}),
      ...(b?.where ? { line: b.where.line } : {}),
      ...(exception ? { type: /^([A-Za-z_][\w.]*)/.exec(exception)![1]! } : {}),
      ...(message ? { message } : {}),
      detail: [b?.phase ? `error ${b.phase}` : '', ...(b?.eLines ?? [])].join('\n'),
    });
  }
  // The final line's totals are the truth; failures only listed are counted by the loop above.
  const t = totals ?? {};
  const unlisted = { failure: Math.max(0, (t.failed ?? failedSeen) - failedSeen), error: Math.max(0, (t.error ?? 0) - (listed.length - failedSeen)) };
  sink.addCounts({ failed: unlisted.failure, errored: unlisted.error, passed: (t.passed ?? 0) + (t.xpassed ?? 0), skipped: (t.skipped ?? 0) + (t.xfailed ?? 0) });
}
