// A run bundle: every row of one archived run in one gzip-compressed JSON file, self-contained (its register entry,
// summary row, routes, LLM calls, escalations and the flow hashes it was routed with) so that it verifies, replays
// and audits on its own, and restores byte for byte.
//
// gzip, not brotli: measured on demo runs' bundles, gzip -6 leaves 13.1% of the JSON, brotli quality 5 11.7% at about
// the same speed, brotli quality 11 10.7% at about 100x the time; gzip is what any machine can open in 20 years without
// navkernel (`zcat run.nkrun.gz | jq`), which is the point of an archive (docs/ledger-lifetime.md).
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RunRows } from '../../contracts/archive-port.js';
import { canonicalJson } from '../../contracts/canonical-json.js';
import { pathSegment } from '../paths.js';
import { archiveInvalid } from './errors.js';

export const BUNDLE_FORMAT = 'navkernel-run-archive';
export const BUNDLE_VERSION = 1;
/** A bundle's file name ends so. */
export const BUNDLE_SUFFIX = '.nkrun.gz';

/** What a bundle holds (canonical JSON, keys sorted, then gzip). */
export interface RunBundle extends RunRows {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  run_id: string;
  /** When it was archived (the archiver's clock). */
  archived_ts: string;
  /** The ledger it came from (a file path, or a URL without its password). */
  source: string;
  /** The flow definitions (their hashes) the run was routed with, in order of first use. */
  flows_hashes: string[];
}

/** The bundle file name of a run: `pathSegment(run_id)` + `.nkrun.gz`. */
export function bundleName(run_id: string): string {
  return pathSegment(run_id) + BUNDLE_SUFFIX;
}

/** The bundle's canonical JSON text and its sha256 (what the tombstone records). */
export function bundleText(bundle: RunBundle): { text: string; sha256: string } {
  const text = canonicalJson(bundle);
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}

/**
 * Writes a bundle to `<dir>/<bundleName>` durably: a temporary file, fsync, rename, so a crash never leaves a half
 * bundle under the final name (the rows are deleted from the ledger only after this returns).
 */
export function writeBundle(dir: string, bundle: RunBundle): { file: string; sha256: string; bytes: number } {
  const { text, sha256 } = bundleText(bundle);
  const data = gzipSync(text, { level: 6 });
  const file = path.join(dir, bundleName(bundle.run_id));
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return { file, sha256, bytes: data.length };
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads a bundle file: decompresses, parses and checks its shape (not its hashes: verify does). archiveInvalid when it cannot. */
export function readBundle(file: string): { bundle: RunBundle; sha256: string } {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    throw archiveInvalid(`cannot read bundle ${file}: ${(err as Error).message}`, { cause: err });
  }
  let text: string;
  try {
    text = gunzipSync(raw).toString('utf8');
  } catch (err) {
    throw archiveInvalid(`bundle ${file} is not gzip data (${(err as Error).message})`, { cause: err });
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw archiveInvalid(`bundle ${file} is not JSON (${(err as Error).message})`, { cause: err });
  }
  if (!isObj(v) || v.format !== BUNDLE_FORMAT) throw archiveInvalid(`${file} is not a navkernel run bundle (format ${JSON.stringify(isObj(v) ? v.format : undefined)})`);
  if (v.version !== BUNDLE_VERSION) throw archiveInvalid(`bundle ${file} has version ${JSON.stringify(v.version)}; this navkernel reads version ${BUNDLE_VERSION}`);
  const where = (field: string) => `bundle ${file}: ${field}`;
  for (const k of ['run_id', 'archived_ts', 'source'] as const) if (typeof v[k] !== 'string') throw archiveInvalid(`${where(k)} is not a string`);
  for (const k of ['routes', 'llm_calls', 'escalations', 'flows_hashes'] as const) if (!Array.isArray(v[k])) throw archiveInvalid(`${where(k)} is not a list`);
  for (const k of ['register', 'run'] as const) if (!isObj(v[k])) throw archiveInvalid(`${where(k)} is not an object`);
  const b = v as unknown as RunBundle;
  if (b.run.run_id !== b.run_id || b.register.run_id !== b.run_id) throw archiveInvalid(`${where('run_id')} differs between the bundle, its run row and its register entry`);
  for (const [i, r] of b.routes.entries()) {
    if (!isObj(r) || r.run_id !== b.run_id || typeof r.seq !== 'number') throw archiveInvalid(`${where(`routes[${i}]`)} is not a route of run ${JSON.stringify(b.run_id)}`);
  }
  for (const [i, c] of b.llm_calls.entries()) {
    if (!isObj(c) || c.run_id !== b.run_id || typeof c.seq !== 'number' || typeof c.record !== 'string') throw archiveInvalid(`${where(`llm_calls[${i}]`)} is not an LLM call of the run`);
  }
  for (const [i, e] of b.escalations.entries()) {
    if (!isObj(e) || e.run_id !== b.run_id || typeof e.escalation_id !== 'string') throw archiveInvalid(`${where(`escalations[${i}]`)} is not an escalation of the run`);
  }
  return { bundle: b, sha256: createHash('sha256').update(text).digest('hex') };
}
