import { ReportError } from './report-error.js';
import type { ForensicsCollector } from './summary.js';

// JSON reports (ESLint, Ruff, pyright, SARIF) are parsed whole, within their own smaller size limit: JSON.parse
// is several times faster than any streaming JSON parser (bench "forensics"), and these reports stay small.

/** JSON.parse with a typed error: `truncated` when the text ends early, `malformed` otherwise (with V8's position). */
export function parseJsonReport(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const m = (e as Error).message.replace(/, ".*" is not valid JSON$/s, '');
    const at = /at position (\d+)/.exec(m);
    const atEnd = at !== null && Number(at[1]) >= text.trimEnd().length;
    if (atEnd || /Unexpected end of JSON input|Unterminated string/.test(m) || text.trim() === '') throw new ReportError(file, 'truncated', `the JSON ends early (${m})`);
    throw new ReportError(file, 'malformed', `not valid JSON: ${m}`);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function expectArray(file: string, v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new ReportError(file, 'malformed', `expected ${what} (a JSON array)`);
  return v;
}

/** ESLint's `-f json`: one entry per file, `messages[]` with severity 2 (error) or 1 (warning). */
export function readEslintJson(file: string, doc: unknown, sink: ForensicsCollector): void {
  for (const entry of expectArray(file, doc, "ESLint's JSON output")) {
    if (!isObj(entry)) throw new ReportError(file, 'malformed', 'expected an object per linted file');
    const path = str(entry.filePath);
    for (const m of Array.isArray(entry.messages) ? entry.messages : []) {
      if (!isObj(m)) continue;
      const rule = str(m.ruleId) ?? (m.fatal ? 'parse-error' : undefined);
      sink.lintFinding({ ...(rule ? { rule } : {}), severity: m.severity === 2 ? 'error' : 'warning', ...(path ? { file: path } : {}), ...(num(m.line) !== undefined ? { line: num(m.line)! } : {}), ...(str(m.message) ? { message: str(m.message)! } : {}) });
      if (m.severity === 2 && isObj(m.fix)) sink.lint.fixable++;
    }
  }
  sink.lintSeen = true;
}

/** Ruff's `--output-format json`: every entry is a violation (Ruff has no warning level). */
export function readRuffJson(file: string, doc: unknown, sink: ForensicsCollector): void {
  for (const v of expectArray(file, doc, "Ruff's JSON output")) {
    if (!isObj(v)) throw new ReportError(file, 'malformed', 'expected an object per violation');
    const loc = isObj(v.location) ? v.location : {};
    sink.lintFinding({ ...(str(v.code) ? { rule: str(v.code)! } : {}), severity: 'error', ...(str(v.filename) ? { file: str(v.filename)! } : {}), ...(num(loc.row) !== undefined ? { line: num(loc.row)! } : {}), ...(str(v.message) ? { message: str(v.message)! } : {}) });
    if (isObj(v.fix)) sink.lint.fixable++;
  }
  sink.lintSeen = true;
}

/** pyright's `--outputjson`: `generalDiagnostics[]` with severity, rule and a 0-based range. */
export function readPyrightJson(file: string, doc: unknown, sink: ForensicsCollector): void {
  if (!isObj(doc)) throw new ReportError(file, 'malformed', "expected pyright's JSON output (an object)");
  for (const d of expectArray(file, doc.generalDiagnostics ?? [], 'generalDiagnostics')) {
    if (!isObj(d) || (d.severity !== 'error' && d.severity !== 'warning')) continue;
    const start = isObj(d.range) && isObj(d.range.start) ? num(d.range.start.line) : undefined;
    sink.typeDiagnostic({ rule: str(d.rule) ?? 'pyright', severity: d.severity, ...(str(d.file) ? { file: str(d.file)! } : {}), ...(start !== undefined ? { line: start + 1 } : {}), ...(str(d.message) ? { message: str(d.message)! } : {}) });
  }
  sink.typesSeen = true;
}

// The parts of SARIF 2.1.0 read here (the OASIS schema's names).
interface SarifResult {
  ruleId?: string;
  rule?: { id?: string };
  level?: 'none' | 'note' | 'warning' | 'error';
  kind?: string;
  message?: { text?: string };
  locations?: { physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number } } }[];
}
interface SarifRun {
  tool?: { driver?: { name?: string; rules?: { id?: string; defaultConfiguration?: { level?: string } }[] } };
  results?: SarifResult[];
}

/** SARIF 2.1.0 (ESLint's SARIF formatter, CodeQL, Ruff, Semgrep): results at level error or warning are findings. */
export function readSarif(file: string, doc: unknown, sink: ForensicsCollector): void {
  if (!isObj(doc) || !Array.isArray(doc.runs)) throw new ReportError(file, 'malformed', 'expected a SARIF log (an object with runs[])');
  if (doc.version !== undefined && doc.version !== '2.1.0') throw new ReportError(file, 'malformed', `SARIF version ${String(doc.version)} is not supported (2.1.0 is)`);
  for (const run of doc.runs as SarifRun[]) {
    if (!isObj(run as unknown)) continue;
    const defaults = new Map<string, string>();
    for (const r of run.tool?.driver?.rules ?? []) if (r?.id && r.defaultConfiguration?.level) defaults.set(r.id, r.defaultConfiguration.level);
    for (const r of Array.isArray(run.results) ? run.results : []) {
      if (!isObj(r as unknown) || (r.kind !== undefined && r.kind !== 'fail')) continue;
      const rule = r.ruleId ?? r.rule?.id;
      const level = r.level ?? (rule ? defaults.get(rule) : undefined) ?? 'warning';
      if (level !== 'error' && level !== 'warning') continue;
      const loc = r.locations?.[0]?.physicalLocation;
      sink.lintFinding({ ...(rule ? { rule } : {}), severity: level, ...(loc?.artifactLocation?.uri ? { file: loc.artifactLocation.uri } : {}), ...(typeof loc?.region?.startLine === 'number' ? { line: loc.region.startLine } : {}), ...(r.message?.text ? { message: r.message.text } : {}) });
    }
  }
  sink.lintSeen = true;
}
