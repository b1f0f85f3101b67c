import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
// Contracts by file, not the barrel: the kernel entry loads only the models it uses.
import { FlowValidationError, issuePathText, type IssuePath, type ValidationIssue } from '../../contracts/errors.js';
import type { Flow, FlowInput } from '../../contracts/flow.js';
import { compileValidator } from '../../contracts/validate.js';
import { checkFlowGraphs, lenientFlow } from './check-graph.js';
import { makeFlowSet } from './compile-flow.js';
import { flowWarnings } from './flow-warnings.js';
import type { FlowSet, SkippedFlowFile } from './compiled-flow.js';

// yaml (about 2.5 MB resident) loads with the first YAML flow file, not with the kernel: a runner that passes its
// flows to defineFlows() never needs it. On Node, yaml's `import` and `require` entries are the same CommonJS file,
// so this is the instance the rest of navkernel imports.
let yaml: typeof import('yaml') | undefined;
const loadYaml = (): typeof import('yaml') => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

const FLOW_FILE = /\.(ya?ml|json)$/i;

/** Largest flow file read (default 1 MiB): a flow is a few kilobytes; anything bigger is refused unread. */
export const DEFAULT_MAX_FLOW_FILE_BYTES = 1024 * 1024;

export interface LoadFlowsOptions {
  /** Largest flow file read, in bytes (default 1 MiB). */
  maxFileBytes?: number;
}

/** What kind of thing a non-regular entry is, in words. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Flow files under `target` (a flow file or a folder of them), sorted so load order never depends on the disk,
 * and the folder entries skipped with why: only regular files are read (a symlink counts when it resolves to a
 * regular file inside the folder); FIFOs, devices, sockets, folders and dangling or escaping symlinks are not.
 */
export async function findFlowFiles(target: string): Promise<{ files: string[]; skipped: SkippedFlowFile[] }> {
  const st = await stat(target).catch(() => undefined);
  if (!st) throw new FlowValidationError(target, [{ file: target, path: [], code: 'not_found', message: (await lstat(target).catch(() => undefined)) ? 'a dangling symlink' : 'no such file or folder' }]);
  if (st.isFile()) return { files: [target], skipped: [] };
  if (!st.isDirectory()) throw new FlowValidationError(target, [{ file: target, path: [], code: 'not_a_file', message: `${kindOf(st)}, not a flow file or folder` }]);
  const root = await realpath(target);
  const files: string[] = [];
  const skipped: SkippedFlowFile[] = [];
  for (const name of (await readdir(target)).filter((n) => FLOW_FILE.test(n)).sort()) {
    const file = path.join(target, name);
    const l = await lstat(file).catch(() => undefined);
    if (!l) continue; // removed while listing
    if (l.isSymbolicLink()) {
      const real = await realpath(file).catch(() => undefined);
      if (!real) {
        skipped.push({ file, reason: 'a dangling symlink' });
        continue;
      }
      if (path.relative(root, real).startsWith('..') || path.isAbsolute(path.relative(root, real))) {
        skipped.push({ file, reason: `a symlink to ${real}, outside the flows folder` });
        continue;
      }
    }
    const t = l.isSymbolicLink() ? await stat(file).catch(() => undefined) : l;
    if (!t) skipped.push({ file, reason: 'a dangling symlink' });
    else if (!t.isFile()) skipped.push({ file, reason: `${kindOf(t)}, not a regular file` });
    else files.push(file);
  }
  return { files, skipped };
}

/** Flow files under `target`; see findFlowFiles for what is skipped. */
export async function listFlowFiles(target: string): Promise<string[]> {
  return (await findFlowFiles(target)).files;
}

/**
 * Reads a flow file as UTF-8 without ever blocking on it or reading more than `maxBytes`: opened non-blocking
 * (a FIFO swapped in after listing cannot hang it), checked to be a regular file, then read up to the cap.
 */
export async function readFlowFile(file: string, maxBytes = DEFAULT_MAX_FLOW_FILE_BYTES): Promise<{ text: string } | { issue: ValidationIssue }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { issue: { path: [], code: 'unreadable', message: `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` } };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { issue: { path: [], code: 'not_a_file', message: `${kindOf(st)}, not a regular file` } };
    if (st.size > maxBytes) return { issue: { path: [], code: 'too_large', message: `${st.size} bytes, larger than the limit of ${maxBytes} bytes`, limit: maxBytes } };
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n >= buf.length) return { issue: { path: [], code: 'too_large', message: `grew past the limit of ${maxBytes} bytes while being read`, limit: maxBytes } };
    }
    return { text: buf.subarray(0, n).toString('utf8') };
  } finally {
    await handle.close();
  }
}

/** Parses YAML or JSON text into a plain value, or gives the syntax issue with its line. */
export function parseFlowText(text: string, file: string): { value: unknown } | { issue: ValidationIssue } {
  if (/\.json$/i.test(file)) {
    try {
      return { value: JSON.parse(text) };
    } catch (e) {
      return { issue: { path: [], code: 'syntax', message: `invalid JSON: ${(e as Error).message}` } };
    }
  }
  const doc = loadYaml().parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) return { issue: { path: [], code: 'syntax', message: `invalid YAML at line ${err.linePos?.[0]?.line ?? '?'}: ${err.message.split('\n')[0]}` } };
  return { value: doc.toJS() };
}

/** Validates flow documents (already parsed) and builds the FlowSet, reporting every problem of every file at once. */
export function buildFlowSet(docs: readonly { file: string; value: unknown }[]): FlowSet {
  // The schema's defaults are applied by ajv, as Flow.parse would: the kernel never loads zod (12 MB).
  const validate = compileValidator<Flow>('flow', { applyDefaults: true });
  const issues: ValidationIssue[] = [];
  const flows: Flow[] = [];
  const files = new Map<Flow, string>();
  // A document that fails its schema is still graph-checked where it can be, so one run reports every problem.
  const partial = new Set<Flow>();
  for (const { file, value } of docs) {
    const r = validate(value);
    if (!r.success) {
      for (const i of r.issues) issues.push({ ...i, file });
      const readable = lenientFlow(value);
      if (readable) (partial.add(readable), files.set(readable, file));
      continue;
    }
    const flow = r.data;
    flows.push(flow);
    files.set(flow, file);
  }
  // The schema's issue at a path is enough: a partial flow's graph issue at the same place is left out.
  const where = (i: { file?: string; path: IssuePath }) => `${i.file ?? ''}: ${issuePathText(i.path)}`;
  const schemaPaths = new Set(issues.map(where));
  for (const g of checkFlowGraphs([...flows, ...partial], files, partial)) if (!schemaPaths.has(where(g))) issues.push(g);
  if (issues.length) throw new FlowValidationError(docs.length === 1 ? docs[0]!.file : `${docs.length} flow files`, issues);
  const set = makeFlowSet(flows);
  return Object.assign(set, { warnings: flowWarnings(set) });
}

/**
 * Loads every flow file (`*.yaml`, `*.yml`, `*.json`) of a folder, or one file, checks the whole graph and
 * returns the FlowSet. Throws one FlowValidationError listing every problem with its file and JSON path.
 */
export async function loadFlows(target: string | readonly string[], options: LoadFlowsOptions = {}): Promise<FlowSet> {
  const targets = typeof target === 'string' ? [target] : target;
  const found = await Promise.all(targets.map(findFlowFiles));
  const files = found.flatMap((f) => f.files);
  const skipped = found.flatMap((f) => f.skipped);
  const docs: { file: string; value: unknown }[] = [];
  const syntax: ValidationIssue[] = [];
  for (const file of files) {
    const read = await readFlowFile(file, options.maxFileBytes);
    const parsed = 'issue' in read ? read : parseFlowText(read.text, file);
    if ('issue' in parsed) syntax.push({ ...parsed.issue, file });
    else docs.push({ file, value: parsed.value });
  }
  if (files.length === 0) {
    const why = skipped.length ? `; skipped: ${skipped.map((s) => `${s.file} (${s.reason})`).join(', ')}` : '';
    throw new FlowValidationError(targets.join(', '), [{ file: targets.join(', '), path: [], code: 'empty', message: `no flow files (*.yaml, *.yml, *.json) found${why}` }]);
  }
  let set: FlowSet | undefined;
  let graph: ValidationIssue[] = [];
  try {
    set = buildFlowSet(docs);
  } catch (e) {
    if (!(e instanceof FlowValidationError)) throw e;
    graph = e.issues;
  }
  const issues = [...syntax, ...graph];
  if (issues.length || !set) throw new FlowValidationError(files.length === 1 ? files[0]! : `${files.length} flow files`, issues);
  return skipped.length ? Object.assign(set, { skipped }) : set;
}

/** Builds a FlowSet from flow objects written in code (same checks as files). */
export function defineFlows(flows: readonly FlowInput[]): FlowSet {
  return buildFlowSet(flows.map((value, i) => ({ file: `flows[${i}]`, value })));
}
