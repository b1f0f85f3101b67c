import type { Forensics, SignatureRule } from '../contracts/index.js';
import { SIGNATURE_PRIORITY as P } from '../contracts/report-formats.js';

/**
 * Other names accepted for a built-in signature id, mapped to the id the kernel records. Seed 003's detour table
 * says `type_mismatch`; earlier navkernel versions said `type_error`, which flows and runners may still send.
 */
export const SIGNATURE_ALIASES: Readonly<Record<string, string>> = { type_error: 'type_mismatch' };

/** The id a signature name stands for: its canonical id when it is an alias, else itself. */
export function canonicalSignature(id: string): string {
  return Object.hasOwn(SIGNATURE_ALIASES, id) ? SIGNATURE_ALIASES[id]! : id;
}

/**
 * A failure signature the kernel can recognise: text patterns over the forensic text fields and,
 * for some, a structured test on measured values (more reliable than text).
 */
export interface SignatureMatcher {
  id: string;
  priority: number;
  max_attempts?: number;
  patterns: RegExp[];
  structured?: (f: Forensics) => boolean;
}

const rx = (s: string) => new RegExp(s, 'im');

/** Whether the forensics list `id` among the signatures their reports show (`navkernel forensics` fills it in). */
const listed = (f: Forensics, id: string) => Array.isArray(f.signatures) && f.signatures.includes(id);

/**
 * Default matcher table. Pattern lists follow flow-studio-swarm's detour matcher
 * (see shared/reference/detour-signatures.sample.json); ids are the snake_case names flows use in `detours`.
 */
export const DEFAULT_SIGNATURES: readonly SignatureMatcher[] = [
  {
    id: 'merge_conflict',
    priority: P.merge_conflict,
    patterns: ['CONFLICT.*Merge conflict', '^<<<<<<< ', '^>>>>>>> ', 'Automatic merge failed', 'fix conflicts and then commit', 'unmerged paths'].map(rx),
    structured: (f) => (f.git_status?.conflicts?.length ?? 0) > 0 || listed(f, 'merge_conflict'),
  },
  {
    id: 'upstream_diverged',
    priority: P.upstream_diverged,
    max_attempts: 1,
    patterns: ['Your branch is behind', 'diverged.*commits', 'cannot be fast-forwarded', 'have diverged', 'branch.*is behind.*by\\s+\\d+\\s+commit'].map(rx),
    structured: (f) => (f.git_status?.behind_upstream ?? 0) > 0 || f.git_status?.diverged === true || listed(f, 'upstream_diverged'),
  },
  {
    id: 'lint_errors',
    priority: P.lint_errors,
    patterns: ['error:\\s+.*lint', '\\d+\\s+errors?\\s+found', 'eslint.*error', 'flake8.*E\\d{3}', 'clippy.*error', 'ruff.*error', 'black.*would reformat', 'isort.*ERROR', 'pylint.*E\\d{4}'].map(rx),
    structured: (f) => (f.lint?.errors ?? 0) > 0 || listed(f, 'lint_errors'),
  },
  {
    id: 'missing_import',
    priority: P.missing_import,
    // tsc's TS2307 / TS2305 and Go's `cannot find package "x" in any of` are what real tools print.
    patterns: ['error TS230[57]\\b', 'cannot find package\\s+"[^"]+"\\s+in any of', 'ImportError:\\s+cannot import name', "No module named\\s+'\\.", 'Cannot find module\\s+[\'"]\\.', 'Module not found:.*[\'"]\\.', 'import\\s+error', 'cannot import name\\s+\'[^\']+\'', 'is not exported by', 'has no exported member'].map(rx),
    structured: (f) => listed(f, 'missing_import'),
  },
  {
    id: 'type_mismatch',
    priority: P.type_mismatch,
    patterns: ['error TS23(22|45)\\b', '\\[(arg-type|assignment|return-value)\\]', 'TypeError:', 'type.*mismatch', 'error TS\\d{4}', 'mypy.*error', 'Argument.*has incompatible type', 'Incompatible types', 'Type\\s+error', 'pyright.*error', 'is not assignable to'].map(rx),
    structured: (f) => listed(f, 'type_mismatch'),
  },
  {
    id: 'test_fixture_error',
    priority: P.test_fixture_error,
    patterns: ['failed on setup with', 'ERROR at setup of', "fixture\\s+'[^']+'\\s+not found", 'FixtureNotFoundError', 'fixture.*does not exist', 'Unknown fixture', 'conftest.*fixture'].map(rx),
    structured: (f) => (f.tests?.failures ?? []).some((t) => /fixture/i.test(t.type ?? '')) || listed(f, 'test_fixture_error'),
  },
  {
    id: 'dependency_error',
    priority: P.dependency_error,
    patterns: ["ModuleNotFoundError:\\s+No module named\\s+'(?!\\.)", 'Could not find a version that satisfies', 'No matching distribution found', 'npm ERR!.*(not found|404)', 'ERESOLVE', 'cannot resolve.*dependency', "Cannot find module\\s+'(?!\\.)[^']+'", 'Cannot find package'].map(rx),
  },
];

/** The default table extended (or overridden, by id) by a flow's `signatures`. Highest priority first, ties by id. */
export function buildSignatureTable(extra: readonly SignatureRule[]): SignatureMatcher[] {
  const byId = new Map<string, SignatureMatcher>(DEFAULT_SIGNATURES.map((m) => [m.id, m]));
  for (const rule of extra) {
    const id = canonicalSignature(rule.id);
    const base = byId.get(id);
    const patterns = rule.patterns.map(rx);
    byId.set(id, {
      id,
      priority: rule.priority,
      ...(rule.max_attempts !== undefined ? { max_attempts: rule.max_attempts } : base?.max_attempts !== undefined ? { max_attempts: base.max_attempts } : {}),
      patterns: base ? [...patterns, ...base.patterns] : patterns,
      ...(base?.structured ? { structured: base.structured } : {}),
    });
  }
  return [...byId.values()].sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The forensic text the patterns search: only measured output fields, never the agent's prose. */
function searchText(f: Forensics): string {
  const parts: string[] = [];
  if (f.error_output) parts.push(f.error_output);
  if (f.lint?.output) parts.push(f.lint.output);
  if (f.git_status?.output) parts.push(f.git_status.output);
  for (const c of f.git_status?.conflicts ?? []) parts.push(c);
  for (const t of f.tests?.failures ?? []) {
    if (t.type) parts.push(t.type);
    if (t.message) parts.push(t.message);
  }
  // Pattern matching cost is linear in this; a runner sending megabytes gets the last 64 KiB looked at.
  const text = parts.join('\n');
  return text.length > 65_536 ? text.slice(-65_536) : text;
}

/**
 * The failure signature of a step's forensics: the runner's own `failure_signature` when given,
 * otherwise the highest-priority matcher that fits (structured test first, then text). Deterministic.
 */
export function deriveSignature(f: Forensics | undefined, table: readonly SignatureMatcher[]): string | undefined {
  if (!f) return undefined;
  if (f.failure_signature) return canonicalSignature(f.failure_signature);
  let text: string | undefined;
  for (const m of table) {
    if (m.structured?.(f)) return m.id;
    if (m.patterns.length === 0) continue;
    text ??= searchText(f);
    if (text.length > 0 && m.patterns.some((p) => p.test(text!))) return m.id;
  }
  return undefined;
}
