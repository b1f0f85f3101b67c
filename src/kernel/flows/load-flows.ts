import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
// Contracts by file, not the barrel: the kernel entry loads only the models it uses.
import { FlowValidationError, type ValidationIssue } from '../../contracts/errors.js';
import { Flow, type FlowInput } from '../../contracts/flow.js';
import { compileValidator } from '../../contracts/validate.js';
import { checkFlowGraphs } from './check-graph.js';
import { makeFlowSet } from './compile-flow.js';
import type { FlowSet } from './compiled-flow.js';

const FLOW_FILE = /\.(ya?ml|json)$/i;

/** Files under `target` (a flow file or a folder of them), sorted so load order never depends on the disk. */
export async function listFlowFiles(target: string): Promise<string[]> {
  const st = await stat(target).catch(() => undefined);
  if (!st) throw new FlowValidationError(target, [{ path: '$', code: 'not_found', message: 'no such file or folder' }]);
  if (st.isFile()) return [target];
  const names = (await readdir(target)).filter((n) => FLOW_FILE.test(n)).sort();
  return names.map((n) => path.join(target, n));
}

/** Parses YAML or JSON text into a plain value, or gives the syntax issue with its line. */
export function parseFlowText(text: string, file: string): { value: unknown } | { issue: ValidationIssue } {
  if (/\.json$/i.test(file)) {
    try {
      return { value: JSON.parse(text) };
    } catch (e) {
      return { issue: { path: '$', code: 'syntax', message: `invalid JSON: ${(e as Error).message}` } };
    }
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) return { issue: { path: '$', code: 'syntax', message: `invalid YAML at line ${err.linePos?.[0]?.line ?? '?'}: ${err.message.split('\n')[0]}` } };
  return { value: doc.toJS() };
}

/** Validates flow documents (already parsed) and builds the FlowSet, reporting every problem of every file at once. */
export function buildFlowSet(docs: readonly { file: string; value: unknown }[]): FlowSet {
  const validate = compileValidator<FlowInput>('flow');
  const issues: ValidationIssue[] = [];
  const flows: Flow[] = [];
  const files = new Map<Flow, string>();
  for (const { file, value } of docs) {
    const r = validate(value);
    if (!r.success) {
      for (const i of r.issues) issues.push({ ...i, path: `${file}: ${i.path}` });
      continue;
    }
    const flow = Flow.parse(r.data); // applies defaults; ajv already proved the shape
    flows.push(flow);
    files.set(flow, file);
  }
  for (const g of checkFlowGraphs(flows, files)) issues.push({ path: `${g.file}: ${g.path}`, code: g.code, message: g.message });
  if (issues.length) throw new FlowValidationError(docs.length === 1 ? docs[0]!.file : `${docs.length} flow files`, issues);
  return makeFlowSet(flows);
}

/**
 * Loads every flow file (`*.yaml`, `*.yml`, `*.json`) of a folder, or one file, checks the whole graph and
 * returns the FlowSet. Throws one FlowValidationError listing every problem with its file and JSON path.
 */
export async function loadFlows(target: string | readonly string[]): Promise<FlowSet> {
  const targets = typeof target === 'string' ? [target] : target;
  const files = (await Promise.all(targets.map(listFlowFiles))).flat();
  const docs: { file: string; value: unknown }[] = [];
  const syntax: ValidationIssue[] = [];
  for (const file of files) {
    const parsed = parseFlowText(await readFile(file, 'utf8'), file);
    if ('issue' in parsed) syntax.push({ ...parsed.issue, path: `${file}: ${parsed.issue.path}` });
    else docs.push({ file, value: parsed.value });
  }
  if (files.length === 0) throw new FlowValidationError(targets.join(', '), [{ path: '$', code: 'empty', message: 'no flow files (*.yaml, *.yml, *.json) found' }]);
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
  return set;
}

/** Builds a FlowSet from flow objects written in code (same checks as files). */
export function defineFlows(flows: readonly FlowInput[]): FlowSet {
  return buildFlowSet(flows.map((value, i) => ({ file: `flows[${i}]`, value })));
}
