/** The report formats `navkernel forensics` reads (detected from content; `--as` / `reports.as` names one). */
export const REPORT_FORMATS = [
  'junit',
  'tap',
  'sarif',
  'eslint-json',
  'ruff-json',
  'pyright-json',
  'tsc',
  'mypy',
  'pytest',
  'git-status',
] as const;

/** A report format collectForensics reads. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * The built-in failure signatures and their priorities: when a step's forensics show several, the highest wins
 * (the kernel's matcher table and `navkernel forensics` both read this one list).
 */
export const SIGNATURE_PRIORITY = {
  // Unmerged paths come first: a conflicted `git pull` is also behind its upstream, and the conflict is what
  // stops the step (a sync cannot start until it is resolved); both detour to the rebase flow in the charters.
  merge_conflict: 100,
  upstream_diverged: 95,
  lint_errors: 90,
  missing_import: 85,
  type_mismatch: 80,
  test_fixture_error: 75,
  dependency_error: 70,
} as const;

export type BuiltinSignature = keyof typeof SIGNATURE_PRIORITY;
