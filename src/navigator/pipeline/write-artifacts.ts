import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CompressionReport, ContextLoadReceipt, NavigationMap } from '../../contracts/index.js';
import { NavkernelError, formatIssue } from '../../contracts/errors.js';
import { resolveInsideRoot } from '../../repomap/index.js';
import { FORBIDDEN_STATES } from './types.js';
import { receiptTotals } from './invariants.js';
import { fileLines, rangeSha256 } from '../retrieval/line-ranges.js';
import { staleContextLines } from './context-lines.js';
import type { NavigationOutcome } from './create-navigator.js';

/** The files a navigation writes, in a fixed order. */
export const ARTIFACT_FILES = ['navigation_map.json', 'context_load_receipt.json', 'compression_report.json', 'context.md'] as const;
export type ArtifactFile = (typeof ARTIFACT_FILES)[number];

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** The bytes of each artifact: pretty JSON with the seed's key order, and the context as is. */
export function artifactBytes(outcome: Pick<NavigationOutcome, 'artifacts'>): Record<ArtifactFile, string> {
  const a = outcome.artifacts;
  return {
    'navigation_map.json': `${JSON.stringify(a.navigation_map, null, 2)}\n`,
    'context_load_receipt.json': `${JSON.stringify(a.context_load_receipt, null, 2)}\n`,
    'compression_report.json': `${JSON.stringify(a.compression_report, null, 2)}\n`,
    'context.md': a.context_md,
  };
}

/** Writes the artifacts into `dir` (each atomically) and returns their sha256. */
export function writeArtifacts(dir: string, outcome: Pick<NavigationOutcome, 'artifacts'>): Record<ArtifactFile, string> {
  mkdirSync(dir, { recursive: true });
  const bytes = artifactBytes(outcome);
  const hashes = {} as Record<ArtifactFile, string>;
  for (const name of ARTIFACT_FILES) {
    const file = path.join(dir, name);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes[name]);
    renameSync(tmp, file);
    hashes[name] = sha(bytes[name]);
  }
  return hashes;
}

/** sha256 of each artifact's bytes. */
export function artifactHashes(outcome: Pick<NavigationOutcome, 'artifacts'>): Record<ArtifactFile, string> {
  const bytes = artifactBytes(outcome);
  return Object.fromEntries(ARTIFACT_FILES.map((n) => [n, sha(bytes[n])])) as Record<ArtifactFile, string>;
}

export interface RungCheck {
  rung: number;
  passed: boolean;
  problems: string[];
}

export interface CheckOptions {
  /** The repository the artifacts name files of. Without it nothing can be re-read, and the check fails saying so. */
  repoRoot?: string;
}

/**
 * Rung 641 on artifacts already written in `dir` (`navkernel navigate --check`): navigation_map.json
 * parseable with every required key (validated against the published schema), trunk_first_compliance,
 * compression_ratio >= 2.0, every loaded file listed with a magic_word_match, null checks performed, no
 * forbidden state entered — and against the files they name: every file named exists in `repoRoot`, each
 * loaded range still hashes to its `range_sha256`, context.md's lines are still the files' lines, and the
 * totals add up (receipt sums, the map's file count, the map's files a subset of the receipt's).
 */
export async function checkRung641(dir: string, options: CheckOptions = {}): Promise<RungCheck> {
  // ajv (the JSON Schema validator) is imported for this check only: a navigation never loads it.
  const { compileValidator } = await import('../../contracts/validate.js');
  const problems: string[] = [];
  const read = <T>(name: string, schema: string): T | undefined => {
    const file = path.join(dir, name);
    if (!existsSync(file)) {
      problems.push(`${name} is missing`);
      return undefined;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      problems.push(`${name} is not JSON: ${(err as Error).message}`);
      return undefined;
    }
    const r = compileValidator<T>(schema)(doc);
    if (!r.success) {
      problems.push(...r.issues.map((i) => `${name}: ${formatIssue(i)}`));
      return undefined;
    }
    return r.data;
  };
  const map = read<NavigationMap>('navigation_map.json', 'navigation-map');
  const receipt = read<ContextLoadReceipt>('context_load_receipt.json', 'context-load-receipt');
  const report = read<CompressionReport>('compression_report.json', 'compression-report');
  if (map) {
    if (!map.trunk_first_compliance) problems.push('navigation_map.json: trunk_first_compliance is not true');
    if (!map.null_checks_performed) problems.push('navigation_map.json: null_checks_performed is not true');
    if (map.stop_reason !== 'PASS') problems.push(`navigation_map.json: stop_reason is ${map.stop_reason}`);
    const forbidden = FORBIDDEN_STATES.find((s) => map.stop_reason.includes(s));
    if (forbidden) problems.push(`forbidden state entered: ${forbidden}`);
    if (receipt && map.total_files_loaded !== receipt.files_loaded.length) problems.push(`navigation_map.json: total_files_loaded ${map.total_files_loaded} differs from the receipt's ${receipt.files_loaded.length} files`);
    if (receipt) {
      const listed = new Set(receipt.files_loaded.map((f) => f.path));
      for (const e of map.tier_path_traversed) for (const f of e.files_loaded) if (!listed.has(f)) problems.push(`navigation_map.json: ${f} (tier ${e.tier}) is not in the receipt's files_loaded`);
    }
    if (map.rung_target === 65537 && receipt) {
      const failed = (receipt.rung_checks ?? []).filter((c) => !c.passed);
      if (!receipt.rung_checks?.length) problems.push('navigation_map.json: rung_target 65537 but the receipt records no rung_checks');
      for (const c of failed) problems.push(`rung 65537 check ${c.check} failed: ${c.detail}`);
    }
  }
  if (receipt) {
    if (!receipt.null_checks_performed) problems.push('context_load_receipt.json: null_checks_performed is not true');
    for (const f of receipt.files_loaded) if (!f.magic_word_match) problems.push(`context_load_receipt.json: ${f.path} has no magic_word_match`);
    problems.push(...receiptTotals(receipt).map((p) => `context_load_receipt.json: ${p}`));
  }
  if (report && report.compression_ratio < 2.0) problems.push(`compression_report.json: compression_ratio ${report.compression_ratio} < 2.0`);
  const contextFile = path.join(dir, 'context.md');
  const contextMd = existsSync(contextFile) ? readFileSync(contextFile, 'utf8') : undefined;
  if (contextMd === undefined) problems.push('context.md is missing');
  else if (report && map && receipt && receipt.files_loaded.length > 0 && contextMd.length === 0) problems.push('context.md is empty although files were loaded');
  if (receipt) problems.push(...checkNamedFiles(receipt, contextMd, options.repoRoot));
  return { rung: 641, passed: problems.length === 0, problems };
}

/** The files a receipt names, against the repository: each exists, and each loaded range still reads the same. */
function checkNamedFiles(receipt: ContextLoadReceipt, contextMd: string | undefined, root: string | undefined): string[] {
  const named = [...receipt.files_loaded.map((f) => f.path), ...(receipt.files_read_not_loaded ?? []).map((f) => f.path)];
  if (!named.length) return [];
  if (root === undefined) return [`the ${named.length} file(s) the receipt names were not re-read: no repository given (navigate --check --repo DIR)`];
  if (!existsSync(root)) return [`the repository ${root} does not exist`];
  const problems: string[] = [];
  const lines = new Map<string, string[]>();
  for (const rel of named) {
    try {
      lines.set(rel, fileLines(readFileSync(resolveInsideRoot(root, rel), 'utf8')));
    } catch (err) {
      problems.push(`${rel}: ${err instanceof NavkernelError && err.code === 'PATH_NOT_FOUND' ? 'named in the receipt but missing from the repository' : (err as Error).message}`);
    }
  }
  for (const f of receipt.files_loaded) {
    const text = lines.get(f.path);
    if (!text) continue;
    f.ranges.forEach((r, i) => {
      const now = rangeSha256(text, r);
      if (now === undefined) problems.push(`${f.path}: lines ${r[0]}-${r[1]} are past the end of the file (${text.length} lines now)`);
      else if (now !== f.range_sha256[i]) problems.push(`${f.path}: lines ${r[0]}-${r[1]} no longer read the same (sha256 ${now.slice(0, 12)}, the receipt says ${String(f.range_sha256[i]).slice(0, 12)})`);
    });
  }
  if (contextMd !== undefined && problems.length === 0) problems.push(...staleContextLines(root, contextMd).map((p) => `context.md: ${p}`));
  return problems;
}

/** Rung 274177: two runs on the same repo state and query give the same bytes, words, and ratio (within 5%). */
export function compareRuns(a: NavigationOutcome, b: NavigationOutcome): RungCheck {
  const problems: string[] = [];
  const ha = artifactHashes(a);
  const hb = artifactHashes(b);
  for (const n of ARTIFACT_FILES) if (ha[n] !== hb[n]) problems.push(`${n}: sha256 ${ha[n].slice(0, 12)} ≠ ${hb[n].slice(0, 12)}`);
  const wa = a.magic_words.map((w) => w.word).join(',');
  const wb = b.magic_words.map((w) => w.word).join(',');
  if (wa !== wb) problems.push(`magic words differ: [${wa}] vs [${wb}]`);
  const ra = a.artifacts.compression_report.compression_ratio;
  const rb = b.artifacts.compression_report.compression_ratio;
  if (Math.abs(ra - rb) > 0.05 * Math.max(ra, rb)) problems.push(`compression ratio ${ra} vs ${rb} differs by more than 5%`);
  return { rung: 274177, passed: problems.length === 0, problems };
}
