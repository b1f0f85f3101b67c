// navkernel/forensics: real tools' reports (JUnit, TAP, SARIF, ESLint/Ruff JSON, tsc, mypy, pyright, pytest,
// git status) read into the `forensics` of a route request. Its own entry: the kernel does not load it.
export { collectForensics, DEFAULT_MAX_JSON_REPORT_BYTES, DEFAULT_MAX_REPORT_BYTES, type CollectOptions, type ForensicsInputs } from './collect-forensics.js';
export { detectFormat } from './detect-format.js';
export { ReportError, type ReportProblem } from './report-error.js';
export { CAPS } from './summary.js';
export { resolveReportRequest, type ReportRoot } from './report-request.js';
export { REPORT_FORMATS, type ReportFormat } from '../contracts/report-formats.js';
export { withReports, type Routes } from './with-reports.js';
