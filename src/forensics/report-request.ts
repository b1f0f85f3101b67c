import { realpath } from 'node:fs/promises';
import { ValidationError, type IssuePath } from '../contracts/errors.js';
import { REPORT_FORMATS, type ReportFormat } from '../contracts/report-formats.js';
import type { Forensics } from '../contracts/route-request.js';
import { collectForensics, type CollectOptions } from './collect-forensics.js';
import { ReportError } from './report-error.js';
import { resolveUnderRoot } from './root-path.js';

/** Where a long-lived transport (co-process, serve) may read a request's report files from. */
export interface ReportRoot extends Omit<CollectOptions, 'baseDir'> {
  /** The folder every report path must resolve inside (symbolic links followed). Undefined: reports refused. */
  root: string | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (p: IssuePath, message: string) => new ValidationError('INVALID_FORENSICS', 'route()', [{ path: p, code: 'invalid_reports', message }]);

/**
 * A route request with `reports` turned into one without: its report files (and git tree) read under the
 * root into `forensics`, the measured values the request already holds winning over the reports'. A request
 * without `reports` is returned as it is. Throws ReportError (INVALID_REPORT) or a ValidationError (INVALID_FORENSICS).
 */
export async function resolveReportRequest(request: unknown, where: ReportRoot): Promise<unknown> {
  if (!isObj(request) || request.reports === undefined) return request;
  const { reports, ...rest } = request;
  if (!where.root) throw new ReportError('reports', 'not_enabled', 'this server does not read report files: start it with --reports-root DIR');
  if (!isObj(reports)) throw bad(['reports'], 'expected an object {files?, git?, as?}');
  const files = reports.files ?? [];
  if (!Array.isArray(files) || files.length > 32 || files.some((f) => typeof f !== 'string' || !f)) throw bad(['reports', 'files'], 'expected at most 32 non-empty paths');
  if (reports.git !== undefined && (typeof reports.git !== 'string' || !reports.git)) throw bad(['reports', 'git'], 'expected a path');
  if (reports.as !== undefined && !(REPORT_FORMATS as readonly unknown[]).includes(reports.as)) throw bad(['reports', 'as'], `expected one of ${REPORT_FORMATS.join(', ')}`);
  const extra = Object.keys(reports).filter((k) => k !== 'files' && k !== 'git' && k !== 'as');
  if (extra.length) throw bad(['reports', extra[0]!], 'unknown field');
  const realRoot = await realpath(where.root).catch(() => {
    throw new ReportError('reports', 'not_enabled', 'the reports root of this server cannot be read');
  });
  const resolved = await Promise.all((files as string[]).map(async (f) => ({ real: await resolveUnderRoot(realRoot, f, false), given: f })));
  const git = typeof reports.git === 'string' ? await resolveUnderRoot(realRoot, reports.git, true) : undefined;
  const { root: _root, ...options } = where;
  let collected: Forensics;
  try {
    collected = await collectForensics(
      { files: resolved.map((r) => r.real), ...(git ? { git } : {}), ...(reports.as ? { as: reports.as as ReportFormat } : {}) },
      { ...options, baseDir: realRoot, gitCeiling: realRoot },
    );
  } catch (e) {
    // Name the file as the request named it, not by its real path on this host.
    if (e instanceof ReportError) {
      const given = resolved.find((r) => r.real === e.file)?.given ?? (e.file === git ? String(reports.git) : 'a report');
      throw new ReportError(given, e.problem, e.message.slice(e.file.length + 2));
    }
    throw e;
  }
  const given = isObj(rest.forensics) ? rest.forensics : {};
  const merged: Record<string, unknown> = { ...collected };
  for (const [k, v] of Object.entries(given)) merged[k] = isObj(v) && isObj(merged[k]) ? { ...(merged[k] as object), ...v } : v;
  return { ...rest, forensics: merged };
}
