import type { ReportFormat } from '../contracts/report-formats.js';

/** A report's format told from its first few kilobytes, or undefined when none fits. */
export function detectFormat(head: string): ReportFormat | undefined {
  const t = head.trimStart();
  if (t.startsWith('<')) return /<testsuites?[\s>/]/.test(t) || /<!DOCTYPE/i.test(t) ? 'junit' : undefined;
  if (t.startsWith('{')) {
    if (/"runs"\s*:/.test(t) && (/sarif/i.test(t) || /"version"\s*:\s*"2\.1\.0"/.test(t))) return 'sarif';
    if (/"generalDiagnostics"\s*:/.test(t) || (/"version"\s*:/.test(t) && /"summary"\s*:\s*\{[^}]*"errorCount"/.test(t))) return 'pyright-json';
    return undefined;
  }
  if (t.startsWith('[')) {
    if (/^\[\s*\]\s*$/.test(t) || /"filePath"\s*:/.test(t)) return 'eslint-json';
    if (/"filename"\s*:/.test(t) && /"location"\s*:/.test(t) && /"code"\s*:/.test(t)) return 'ruff-json';
    return undefined;
  }
  const lines = t.split('\n', 64).map((l) => l.replace(/\r$/, ''));
  if (/^TAP version 1[34]\b/.test(lines[0] ?? '') || lines.some((l) => /^\s*(?:not ok|ok)\b(?:\s+\d+)?/.test(l)) && lines.some((l) => /^\s*(?:\d+\.\.\d+|# Subtest:|TAP version)/.test(l))) return 'tap';
  if (lines.some((l) => /^# branch\.(?:oid|head|upstream|ab) /.test(l)) || lines.length > 0 && lines.filter(Boolean).every((l) => /^(?:[12u] [.A-Z?!]{2} |\? |! |# )/.test(l))) return 'git-status';
  if (/={3,} (?:test session starts|FAILURES|ERRORS|short test summary info) ={3,}/.test(t) || lines.some((l) => /^=+ .*\b(?:passed|failed|error|errors|no tests ran)\b.* in [\d.]+s.* =+$/.test(l))) return 'pytest';
  if (lines.some((l) => /^(?:.*\(\d+,\d+\): |.*:\d+:\d+ - |)(?:error|warning) TS\d+: /.test(l))) return 'tsc';
  if (lines.some((l) => /^[^\s:][^:]*:\d+(?::\d+)?: (?:error|warning|note): /.test(l)) || /^Success: no issues found/.test(t) || /^Found \d+ errors? in \d+ files?/m.test(t)) return 'mypy';
  return undefined;
}
