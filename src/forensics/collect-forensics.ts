import type { Forensics } from '../contracts/route-request.js';
import { REPORT_FORMATS, type ReportFormat } from '../contracts/report-formats.js';
import { createRedactor, type RedactOptions } from '../redact.js';
import { detectFormat } from './detect-format.js';
import { readGitDir, readGitStatus } from './git-status.js';
import { parseJsonReport, readEslintJson, readPyrightJson, readRuffJson, readSarif } from './json-reports.js';
import { readJunit } from './junit.js';
import { checkReportFile, linesOf, readHead, readWhole, reportChunks } from './read-report.js';
import { ReportError } from './report-error.js';
import { ForensicsCollector } from './summary.js';
import { readTap } from './tap.js';
import { readMypy, readPytest, readTsc } from './text-reports.js';

/** What to read: report files (each with an optional format), a git work tree read live, a format for them all. */
export interface ForensicsInputs {
  files?: readonly (string | { file: string; as?: ReportFormat })[];
  git?: string;
  as?: ReportFormat;
}

/** Options of collectForensics: the reports root and size limits. */
export interface CollectOptions {
  /** Paths inside this folder are shown relative to it (default: the current folder). */
  baseDir?: string;
  /** Largest report streamed (JUnit, TAP, text formats). Default 256 MiB. */
  maxReportBytes?: number;
  /** Largest JSON report (ESLint, Ruff, pyright, SARIF), which is parsed whole. Default 32 MiB. */
  maxJsonReportBytes?: number;
  /**
   * The highest folder searched for the `git` work tree's repository (a real path; a transport passes its reports
   * root): a repository enclosing it is not read, and the repository's git folders must lie inside it.
   */
  gitCeiling?: string;
  /** Secret redaction of everything kept (on by default, as for every request; `false` turns it off). */
  redact?: RedactOptions | false;
  /** Bytes of all the reports of one call together (default: `maxReportBytes`): one budget, however many files. */
  maxTotalBytes?: number;
  /** Bytes of all the JSON reports (parsed whole) of one call together (default: `maxJsonReportBytes`). */
  maxTotalJsonBytes?: number;
  /** Stops the reading (between chunks and files) when aborted: a request that timed out stops its work. */
  signal?: AbortSignal;
}

/** The largest report file read by default (256 MiB). */
export const DEFAULT_MAX_REPORT_BYTES = 256 * 1024 * 1024;
/** The largest JSON report file read by default (32 MiB). */
export const DEFAULT_MAX_JSON_REPORT_BYTES = 32 * 1024 * 1024;

type Lines = AsyncIterable<string[]>;
/** Formats read line by line, streamed. */
const LINE_READERS: Partial<Record<ReportFormat, (file: string, lines: Lines, sink: ForensicsCollector) => Promise<void>>> = {
  tap: readTap,
  tsc: (_, lines, sink) => readTsc(lines, sink),
  mypy: (_, lines, sink) => readMypy(lines, sink),
  pytest: (_, lines, sink) => readPytest(lines, sink),
  'git-status': (_, lines, sink) => readGitStatus(lines, sink),
};
/** JSON formats, parsed whole within their own size limit. */
const JSON_READERS: Partial<Record<ReportFormat, (file: string, doc: unknown, sink: ForensicsCollector) => void>> = {
  sarif: readSarif,
  'eslint-json': readEslintJson,
  'ruff-json': readRuffJson,
  'pyright-json': readPyrightJson,
};

/**
 * Reads test reports, linter and compiler output and git state into one `forensics` object (valid under
 * schemas/route-request.schema.json), every summary capped, secrets redacted, `failure_signature` set to the
 * highest-priority signature the reports show and `signatures` listing them all. Throws ReportError
 * (INVALID_REPORT) naming the file and what is wrong with it.
 */
export async function collectForensics(inputs: ForensicsInputs, options: CollectOptions = {}): Promise<Forensics> {
  const sink = new ForensicsCollector(options.baseDir ?? process.cwd());
  // Every file is sized and its format detected first, and each distinct file planned once: the budget is checked
  // for all of them together before any is read whole (a request naming one big report 16 times reads it once).
  const planned: Planned[] = [];
  const seen = new Set<string>();
  for (const entry of inputs.files ?? []) {
    const file = typeof entry === 'string' ? entry : entry.file;
    if (seen.has(file)) continue;
    seen.add(file);
    options.signal?.throwIfAborted();
    planned.push(await planReport(file, typeof entry === 'string' ? inputs.as : (entry.as ?? inputs.as), options));
  }
  checkBudget(planned, options);
  for (const p of planned) {
    options.signal?.throwIfAborted();
    await readPlanned(p, sink, options.signal);
  }
  if (inputs.git !== undefined) {
    options.signal?.throwIfAborted();
    await readGitDir(inputs.git, sink, options.gitCeiling !== undefined ? { ceiling: options.gitCeiling } : {});
    sink.source(inputs.git, 'git-status');
  }
  const out = sink.result();
  return options.redact === false ? out : createRedactor(options.redact ?? {}).value(out);
}

interface Planned {
  file: string;
  format: ReportFormat;
  size: number;
}

/** A report's size (refused over its own limit) and format (given, or detected from its first bytes). */
async function planReport(file: string, as: ReportFormat | undefined, options: CollectOptions): Promise<Planned> {
  if (as !== undefined && !(REPORT_FORMATS as readonly string[]).includes(as)) throw new ReportError(file, 'unknown_format', `unknown format "${String(as)}" (one of ${REPORT_FORMATS.join(', ')})`);
  const size = await checkReportFile(file, options.maxReportBytes ?? DEFAULT_MAX_REPORT_BYTES);
  let format = as;
  if (!format) {
    const head = await readHead(file);
    if (!head.trim()) throw new ReportError(file, 'empty', 'the report is empty: say its format (--as) if empty means "no findings" for it');
    format = detectFormat(head);
    if (!format) throw new ReportError(file, 'unknown_format', `not a format navkernel reads (${REPORT_FORMATS.join(', ')}); name it with --as if it is one of them`);
  }
  const maxJson = options.maxJsonReportBytes ?? DEFAULT_MAX_JSON_REPORT_BYTES;
  if (JSON_READERS[format] && size > maxJson) throw new ReportError(file, 'too_large', `a ${format} report is parsed whole: ${size} bytes is over its limit of ${maxJson} bytes`);
  return { file, format, size };
}

/** The reports together within one budget: the file that crosses it is named. */
function checkBudget(planned: readonly Planned[], options: CollectOptions): void {
  const maxTotal = options.maxTotalBytes ?? options.maxReportBytes ?? DEFAULT_MAX_REPORT_BYTES;
  const maxJson = options.maxTotalJsonBytes ?? options.maxJsonReportBytes ?? DEFAULT_MAX_JSON_REPORT_BYTES;
  let total = 0;
  let json = 0;
  for (const p of planned) {
    total += p.size;
    if (JSON_READERS[p.format]) json += p.size;
    if (total > maxTotal) throw new ReportError(p.file, 'too_large', `the reports together reach ${total} bytes with this one, over the budget of ${maxTotal} bytes for one request`);
    if (json > maxJson) throw new ReportError(p.file, 'too_large', `the JSON reports (parsed whole) together reach ${json} bytes with this one, over the budget of ${maxJson} bytes for one request`);
  }
}

/** One planned report into the collector. */
async function readPlanned({ file, format }: Planned, sink: ForensicsCollector, signal: AbortSignal | undefined): Promise<void> {
  const lineReader = LINE_READERS[format];
  const jsonReader = JSON_READERS[format];
  if (format === 'junit') await readJunit(file, reportChunks(file, signal), sink);
  else if (lineReader) await lineReader(file, linesOf(reportChunks(file, signal)), sink);
  else if (jsonReader) jsonReader(file, parseJsonReport(file, await readWhole(file, signal)), sink);
  sink.source(file, format);
}
