import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CompressionReport, ContextLoadReceipt, NavigationMap } from '../contracts/index.js';
import { FORBIDDEN_STATES } from './types.js';
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

/**
 * Rung 641 on artifacts already written in `dir`: navigation_map.json parseable with every required key
 * (validated against the published schema), trunk_first_compliance, compression_ratio >= 2.0, every
 * loaded file listed with a magic_word_match, null checks performed, no forbidden state entered.
 */
export async function checkRung641(dir: string): Promise<RungCheck> {
  // ajv (the JSON Schema validator) is imported for this check only: a navigation never loads it.
  const { compileValidator } = await import('../contracts/validate.js');
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
      problems.push(...r.issues.map((i) => `${name}: ${i.path}: ${i.message}`));
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
    if (receipt && map.total_files_loaded !== receipt.files_loaded.length) problems.push('navigation_map.json: total_files_loaded differs from the receipt');
  }
  if (receipt) {
    if (!receipt.null_checks_performed) problems.push('context_load_receipt.json: null_checks_performed is not true');
    for (const f of receipt.files_loaded) if (!f.magic_word_match) problems.push(`context_load_receipt.json: ${f.path} has no magic_word_match`);
  }
  if (report && report.compression_ratio < 2.0) problems.push(`compression_report.json: compression_ratio ${report.compression_ratio} < 2.0`);
  if (!existsSync(path.join(dir, 'context.md'))) problems.push('context.md is missing');
  else if (report && map && receipt && receipt.files_loaded.length > 0 && readFileSync(path.join(dir, 'context.md'), 'utf8').length === 0) problems.push('context.md is empty although files were loaded');
  return { rung: 641, passed: problems.length === 0, problems };
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
