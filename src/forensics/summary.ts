import path from 'node:path';
import type { Forensics, GitStatusForensics } from '../contracts/route-request.js';
import { SIGNATURE_PRIORITY, type ReportFormat } from '../contracts/report-formats.js';
import { signatureOfCode, signatureOfTest } from './signature-hints.js';

/** The caps that keep a summary bounded whatever the report's size (the totals still count everything). */
export const CAPS = Object.freeze({
  /** `tests.failures` entries kept. */
  failures: 20,
  /** `lint.findings` / `types.diagnostics` entries kept (errors first). */
  findings: 20,
  /** Rule ids / diagnostic codes listed with their counts (the most frequent). */
  codes: 50,
  /** Distinct rule ids / codes counted at all (the rest are counted under `other`). */
  distinctCodes: 10_000,
  /** Conflicted paths listed. */
  conflicts: 50,
  /** Characters kept of a message, a name or a path. */
  text: 300,
});

/** One test that did not pass. */
export interface TestFailure {
  name?: string;
  file?: string;
  line?: number;
  type?: string;
  message?: string;
  kind: 'failure' | 'error';
  /** More of the failure's text (a traceback), looked at for its signature and then dropped. */
  detail?: string;
}

/** One linter or compiler finding. */
export interface Finding extends Record<string, unknown> {
  rule?: string;
  severity: 'error' | 'warning';
  file?: string;
  line?: number;
  message?: string;
}

/** The first line of a text, cut to the cap. */
export function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  const nl = t.indexOf('\n');
  const line = (nl < 0 ? t : t.slice(0, nl)).trimEnd();
  return line.length > CAPS.text ? `${line.slice(0, CAPS.text - 1)}…` : line || undefined;
}

const cut = (s: string | undefined) => (s === undefined ? undefined : s.length > CAPS.text ? `${s.slice(0, CAPS.text - 1)}…` : s);

/** Counts per key, with at most `CAPS.distinctCodes` distinct keys. */
class Tally {
  readonly counts = new Map<string, number>();
  add(key: string, n = 1): void {
    const k = this.counts.has(key) || this.counts.size < CAPS.distinctCodes ? key : 'other';
    this.counts.set(k, (this.counts.get(k) ?? 0) + n);
  }
  /** The most frequent keys (ties by key), and how many keys were left out. */
  top(): { top: Record<string, number>; omitted: number } {
    const sorted = [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return { top: Object.fromEntries(sorted.slice(0, CAPS.codes)), omitted: Math.max(0, sorted.length - CAPS.codes) };
  }
}

/** Findings (lint or types): counts by severity and code, the first errors and warnings kept. */
class Findings {
  errors = 0;
  warnings = 0;
  fixable = 0;
  readonly codes = new Tally();
  private readonly firstErrors: Finding[] = [];
  private readonly firstWarnings: Finding[] = [];
  add(f: Finding): void {
    if (f.severity === 'error') this.errors++;
    else this.warnings++;
    if (f.rule) this.codes.add(f.rule);
    const keep = f.severity === 'error' ? this.firstErrors : this.firstWarnings;
    if (keep.length < CAPS.findings) keep.push({ ...f, ...(f.message !== undefined ? { message: firstLine(f.message) } : {}), ...(f.file !== undefined ? { file: cut(f.file) } : {}) });
  }
  get any(): boolean {
    return this.errors + this.warnings > 0;
  }
  kept(): { list: Finding[]; omitted: number } {
    const list = [...this.firstErrors, ...this.firstWarnings].slice(0, CAPS.findings);
    return { list, omitted: this.errors + this.warnings - list.length };
  }
}

/**
 * What every report adds to: tests, lint findings, type diagnostics, git state and the signatures seen.
 * Memory is bounded by the caps, not by the reports' size.
 */
export class ForensicsCollector {
  readonly tests = { passed: 0, failed: 0, errored: 0, skipped: 0, seen: false };
  private readonly failures: TestFailure[] = [];
  readonly lint = new Findings();
  lintSeen = false;
  readonly types = new Findings();
  typesSeen = false;
  git: GitStatusForensics | undefined;
  private gitConflictsTotal = 0;
  private readonly signatures = new Set<string>();
  private readonly sources: { file: string; format: ReportFormat }[] = [];

  constructor(private readonly baseDir?: string) {}

  /** A path as shown: relative to the base folder when it lies inside it, `file://` URIs read as paths. */
  path(p: string | undefined): string | undefined {
    if (!p) return undefined;
    let out = p;
    if (p.startsWith('file://')) {
      try {
        out = decodeURIComponent(p.slice(7));
      } catch {
        out = p.slice(7); // a malformed %-escape: shown as written
      }
    }
    if (this.baseDir && path.isAbsolute(out)) {
      const rel = path.relative(this.baseDir, out);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) out = rel;
    }
    return cut(out);
  }

  source(file: string, format: ReportFormat): void {
    this.sources.push({ file: this.path(file) ?? file, format });
  }

  signature(id: string): void {
    this.signatures.add(id);
  }

  testPassed(): void {
    this.tests.seen = true;
    this.tests.passed++;
  }

  /** Tests counted without details (a report's totals beyond what it lists). */
  addCounts(c: { passed?: number; failed?: number; errored?: number; skipped?: number }): void {
    this.tests.seen = true;
    this.tests.passed += c.passed ?? 0;
    this.tests.failed += c.failed ?? 0;
    this.tests.errored += c.errored ?? 0;
    this.tests.skipped += c.skipped ?? 0;
  }

  testSkipped(): void {
    this.tests.seen = true;
    this.tests.skipped++;
  }

  testFailed(f: TestFailure): void {
    this.tests.seen = true;
    if (f.kind === 'error') this.tests.errored++;
    else this.tests.failed++;
    const sig = signatureOfTest(f);
    if (sig) this.signatures.add(sig);
    if (this.failures.length < CAPS.failures) {
      const kept: TestFailure = { kind: f.kind };
      if (f.name) kept.name = cut(f.name)!;
      const file = this.path(f.file);
      if (file) kept.file = file;
      if (f.line !== undefined && Number.isSafeInteger(f.line) && f.line >= 0) kept.line = f.line;
      if (f.type) kept.type = cut(f.type)!;
      const message = firstLine(f.message);
      if (message) kept.message = message;
      this.failures.push(kept);
    }
  }

  /** Whether another failure would still be kept in full (below the cap): past it, details need not be read. */
  wantsFailureDetail(): boolean {
    return this.failures.length < CAPS.failures;
  }

  lintFinding(f: Finding): void {
    this.lintSeen = true;
    this.lint.add({ ...f, ...(f.file !== undefined ? { file: this.path(f.file) } : {}) } as Finding);
  }

  typeDiagnostic(f: Finding): void {
    this.typesSeen = true;
    const sig = f.severity === 'error' ? signatureOfCode(f.rule) : undefined;
    if (sig) this.signatures.add(sig);
    this.types.add({ ...f, ...(f.file !== undefined ? { file: this.path(f.file) } : {}) } as Finding);
  }

  gitStatus(g: GitStatusForensics, conflictsTotal: number): void {
    this.git = g;
    this.gitConflictsTotal = conflictsTotal;
  }

  /** The forensics of everything collected, signatures highest priority first (the first is `failure_signature`). */
  result(): Forensics {
    const out: Forensics = {};
    if (this.tests.seen) {
      const { passed, failed, errored, skipped } = this.tests;
      out.tests = { passed, failed, errored, skipped };
      if (this.failures.length) out.tests.failures = this.failures.map((f) => ({ ...f }));
      const omitted = failed + errored - this.failures.length;
      if (omitted > 0) out.tests.failures_omitted = omitted;
    }
    if (this.lintSeen) {
      const rules = this.lint.codes.top();
      const kept = this.lint.kept();
      out.lint = { errors: this.lint.errors, warnings: this.lint.warnings };
      if (this.lint.fixable) out.lint.fixable = this.lint.fixable;
      if (Object.keys(rules.top).length) out.lint.rules = rules.top;
      if (rules.omitted) out.lint.rules_omitted = rules.omitted;
      if (kept.list.length) out.lint.findings = kept.list.map(stripUndefined);
      if (kept.omitted) out.lint.findings_omitted = kept.omitted;
    }
    if (this.typesSeen) {
      const codes = this.types.codes.top();
      const kept = this.types.kept();
      out.types = { errors: this.types.errors, warnings: this.types.warnings };
      if (Object.keys(codes.top).length) out.types.by_code = codes.top;
      if (codes.omitted) out.types.codes_omitted = codes.omitted;
      if (kept.list.length) out.types.diagnostics = kept.list.map(stripUndefined);
      if (kept.omitted) out.types.diagnostics_omitted = kept.omitted;
    }
    if (this.git) {
      out.git_status = { ...this.git };
      if (this.gitConflictsTotal > (this.git.conflicts?.length ?? 0)) out.git_status.conflicts_omitted = this.gitConflictsTotal - (this.git.conflicts?.length ?? 0);
    }
    if (this.lint.errors > 0) this.signatures.add('lint_errors');
    if ((this.git?.behind_upstream ?? 0) > 0) this.signatures.add('upstream_diverged');
    if (this.gitConflictsTotal > 0) this.signatures.add('merge_conflict');
    const sigs = [...this.signatures].sort(bySignaturePriority);
    if (sigs.length) {
      out.failure_signature = sigs[0]!;
      out.signatures = sigs;
    }
    if (this.sources.length) out.read_from = this.sources.map((s) => ({ ...s }));
    return out;
  }
}

const prio = (id: string) => (SIGNATURE_PRIORITY as Record<string, number>)[id] ?? 0;
/** Highest priority first, ties by id. */
export const bySignaturePriority = (a: string, b: string) => prio(b) - prio(a) || (a < b ? -1 : a > b ? 1 : 0);

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
