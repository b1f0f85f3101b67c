// The kernel applies a flow's defaults with ajv (from schemas/flow.schema.json) instead of the zod model, so that it
// never loads zod. These tests pin that both give the same flow, byte for byte under the flows hash.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Flow, compileValidator, sha256 } from '../../src/contracts/index.js';
import { defineFlows, parseFlowText } from '../../src/kernel/index.js';
import { ROOT, TEST_FLOWS, testFlows } from '../support/kernel-fixtures.js';

const flowFiles = [
  ...readdirSync(path.join(ROOT, 'charters')).map((f) => path.join(ROOT, 'charters', f)),
  path.join(ROOT, 'examples', 'custom-flow', 'release.yaml'),
].filter((f) => /\.(ya?ml|json)$/.test(f));

function parsed(file: string): unknown {
  const r = parseFlowText(readFileSync(file, 'utf8'), file);
  if ('issue' in r) throw new Error(`${file}: ${r.issue.message}`);
  return r.value;
}

describe('flow defaults without zod', () => {
  const withDefaults = compileValidator<Flow>('flow', { applyDefaults: true });

  it.each(flowFiles.map((f) => [path.relative(ROOT, f), f]))('%s: ajv with defaults gives what Flow.parse gives', (_name, file) => {
    const value = parsed(file);
    const before = JSON.stringify(value);
    const r = withDefaults(value);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data).toEqual(Flow.parse(value));
    expect(sha256(r.data)).toBe(sha256(Flow.parse(value)));
    expect(JSON.stringify(value)).toBe(before); // the input is never changed
  });

  it('fills every default of a minimal flow, nested ones included', () => {
    const minimal = {
      flow: 'tiny',
      charter: { goal: 'ship it', key_question: 'is it shipped?' },
      steps: [
        { id: 'build', agent: 'builder', next: 'done', loop: { max_iterations: 2 } },
        { id: 'done', agent: 'reporter', terminal: true },
      ],
      signatures: [{ id: 'flaky' }],
      inject_nodes: {},
    };
    const r = withDefaults(minimal);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data).toEqual(Flow.parse(minimal));
    expect(r.data.charter.non_goals).toEqual([]);
    expect(r.data.steps[0]!.loop!.exit_when).toEqual(['VERIFIED']);
    expect(r.data.inject_nodes).toEqual({ allowed: false, max_nodes: 3 });
    expect(r.data.signatures[0]).toMatchObject({ priority: 50, patterns: [] });
    const { inject_nodes: _omitted, ...noInject } = minimal;
    const r2 = withDefaults(noInject);
    expect(r2.success && r2.data.inject_nodes).toEqual({ allowed: false, max_nodes: 3 });
  });

  it('defineFlows hashes the same flows as before (the zod-parsed definitions)', () => {
    const defs = flowFiles.map(parsed);
    const set = defineFlows(defs as never);
    const zodSorted = defs.map((d) => Flow.parse(d)).sort((a, b) => (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0));
    expect(set.hash).toBe(sha256(zodSorted));
    const tests = [...TEST_FLOWS].map((d) => Flow.parse(d)).sort((a, b) => (a.flow < b.flow ? -1 : a.flow > b.flow ? 1 : 0));
    expect(testFlows().hash).toBe(sha256(tests));
  });

  it('a flow holding a value that is not plain data is a validation issue, not a crash', () => {
    const withFunction = { flow: 'x', charter: { goal: 'g', key_question: 'q' }, steps: [{ id: 'a', agent: 'b', terminal: true, next: () => 1 }] };
    const r = withDefaults(withFunction);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.issues[0]!.message).toMatch(/plain JSON data/);
  });
});
