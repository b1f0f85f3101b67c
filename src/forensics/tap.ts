import { ReportError } from './report-error.js';
import type { ForensicsCollector } from './summary.js';

/** A failing test point waiting for its YAML diagnostics block. */
interface Pending {
  indent: number;
  name: string;
  parent: boolean;
  yaml: string[] | undefined;
  yamlIndent: number;
}

const POINT = /^( *)(not )?ok\b(?:\s+\d+)?(?:\s*-\s*|\s+)?(.*)$/;
const DIRECTIVE = /\s#\s*(SKIP|TODO)\b/i;

/** A YAML scalar as node --test and tap write them: 'single', "double", a `|-` block's first line, or plain. */
function yamlValue(lines: readonly string[], i: number, raw: string): string {
  const v = raw.trim();
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'");
  if (v.startsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (/^[|>][-+]?$/.test(v)) return (lines[i + 1] ?? '').trim();
  return v;
}

/** The keys read from a diagnostics block: where the test is, what was thrown, how it failed. */
function diagnostics(lines: readonly string[], indent: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const m = /^( *)(location|error|message|name|failureType|at|file|line):\s?(.*)$/.exec(lines[i]!);
    if (m && m[1]!.length === indent && !(m[2]! in out)) out[m[2]!] = yamlValue(lines, i, m[3]!);
  }
  return out;
}

/**
 * TAP 13/14 (node --test, prove, tap), streamed line by line by a small reader of its own (tap-parser measured
 * 20-30 times slower on node's output, which carries a YAML block on every test: bench "forensics"). Leaf tests
 * are counted; a parent point (it has subtests, indented below it) counts only when it failed on its own (a hook:
 * an error), not when only its subtests did. No plan, or fewer top-level tests than planned: `truncated`. A
 * bail-out counts as an error.
 */
export async function readTap(file: string, lines: AsyncIterable<string[]>, sink: ForensicsCollector): Promise<void> {
  let plan: number | undefined;
  let skipAll = false;
  let topCount = 0;
  let lineNo = 0;
  let sawTap = false;
  /** Indents below which a test point was seen since the last point at that indent (their points are parents). */
  const childrenAt = new Set<number>();
  /** `# Subtest: NAME` headers by indent: a point's full name is theirs above it, joined with ` > `. */
  const subtests = new Map<number, string>();
  let pending: Pending | undefined;
  const flush = () => {
    if (!pending) return;
    const p = pending;
    pending = undefined;
    const d = p.yaml ? diagnostics(p.yaml, p.yamlIndent) : {};
    const failureType = d.failureType;
    if (p.parent && (failureType === 'subtestsFailed' || failureType === undefined)) return;
    const location = d.location ? /^(.*):(\d+):\d+$/.exec(d.location) : null;
    const error = d.error ?? d.message;
    const type = d.name && /^[A-Za-z_$][\w$.]*$/.test(d.name) ? d.name : undefined;
    sink.testFailed({
      kind: failureType === 'hookFailed' || p.parent ? 'error' : 'failure',
      ...(p.name ? { name: p.name } : {}),
      ...(location ? { file: location[1]!, line: Number(location[2]) } : d.file ? { file: d.file, ...(d.line && /^\d+$/.test(d.line) ? { line: Number(d.line) } : {}) } : {}),
      ...(type ? { type } : {}),
      ...(error ? { message: type && !error.startsWith(type) ? `${type}: ${error}` : error } : p.name ? { message: p.name } : {}),
      detail: failureType === 'hookFailed' ? 'before hook failed' : '',
    });
  };
  for await (const batch of lines) for (const line of batch) {
    lineNo++;
    if (pending) {
      if (pending.yaml === undefined) {
        const open = /^( *)---\s*$/.exec(line);
        if (open && open[1]!.length > pending.indent) {
          pending.yaml = [];
          pending.yamlIndent = open[1]!.length;
          continue;
        }
        flush();
      } else {
        if (line.trim() === '...' && line.length - line.trimStart().length === pending.yamlIndent) {
          flush();
          continue;
        }
        if (pending.yaml.length < 256) pending.yaml.push(line);
        continue;
      }
    }
    const point = POINT.exec(line);
    if (point) {
      sawTap = true;
      const indent = point[1]!.length;
      const parent = childrenAt.has(indent);
      childrenAt.delete(indent);
      for (let d = 0; d < indent; d++) childrenAt.add(d);
      if (indent === 0) topCount++;
      let name = point[3] ?? '';
      const directive = DIRECTIVE.exec(name);
      if (directive) name = name.slice(0, directive.index).trim();
      if (directive) {
        if (!parent) sink.testSkipped();
      } else if (!point[2]) {
        if (!parent) sink.testPassed();
      } else {
        const above = [...subtests].filter(([d]) => d < indent).sort((a, b) => a[0] - b[0]).map(([, n]) => n);
        pending = { indent, name: [...above, name.replace(/\\#/g, '#')].join(' > '), parent, yaml: undefined, yamlIndent: 0 };
      }
      continue;
    }
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const d = subtest[1]!.length;
      for (const k of [...subtests.keys()]) if (k >= d) subtests.delete(k);
      subtests.set(d, subtest[2]!.trim());
      continue;
    }
    const planLine = /^( *)(\d+)\.\.(\d+)(?:\s*#\s*(.*))?$/.exec(line);
    if (planLine) {
      sawTap = true;
      if (planLine[1] === '') {
        plan = Number(planLine[3]) - Number(planLine[2]) + 1;
        skipAll = plan <= 0;
      }
      continue;
    }
    const bail = /^\s*Bail out!\s*(.*)$/.exec(line);
    if (bail) {
      flush();
      // A bail-out is a result (the run stopped), not a broken report.
      sink.testFailed({ kind: 'error', name: 'Bail out!', message: `Bail out! ${bail[1] ?? ''}`.trim() });
      return;
    }
    if (/^TAP version 1[34]\s*$/.test(line)) sawTap = true;
  }
  flush();
  if (!sawTap) throw new ReportError(file, 'malformed', 'no TAP test point, plan or version line');
  if (plan === undefined) throw new ReportError(file, 'truncated', `no TAP plan (\`1..N\`) after ${lineNo} lines: the report was cut off or is not TAP`);
  if (!skipAll && topCount < plan) throw new ReportError(file, 'truncated', `the plan says ${plan} tests, the report has ${topCount}`);
  sink.tests.seen = true;
}
