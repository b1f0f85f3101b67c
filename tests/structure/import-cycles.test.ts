import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

/** Every relative import (type-only ones included, unless `runtimeOnly`) of every module under src/ and machines/. */
function importGraph(runtimeOnly = false): Map<string, string[]> {
  const files = ['src', 'machines'].flatMap((d) =>
    (readdirSync(path.join(ROOT, d), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, d, f)),
  );
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const deps = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s([^;]*?)from\s+'(\.[^']+)'/g)].filter((m) => !(runtimeOnly && /^type\s/.test(m[1]!))).map((m) => m[2]!).map((m) => path.resolve(path.dirname(file), m.replace(/\.js$/, '.ts')));
    graph.set(file, deps);
  }
  return graph;
}

/** The cycles found by a depth-first search, each as a list of paths relative to the repository. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') found.push([...stack.slice(stack.indexOf(d)), d].map((p) => path.relative(ROOT, p)));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

describe('module structure', () => {
  it('has no import cycles (type-only imports included)', () => {
    expect(cycles(importGraph())).toEqual([]);
  });


  // ARCHITECTURE.md "src/ — one folder per part": the explorer uses repomap, llm, navigator and contracts, never the
  // ledger (nor runs, kernel, cli, service). Type-only imports count: what it needs of storage is an interface in
  // src/contracts (ExplorerSessionStore), which the ledger implements and the CLI hands over.
  const layers: [folder: string, mayNotImport: string[]][] = [
    ['explorer', ['ledger', 'runs', 'kernel', 'cli', 'service']],
  ];
  it.each(layers)('src/%s imports nothing from src/{%s}', (folder, forbidden) => {
    const graph = importGraph();
    const forbiddenDir = new RegExp(`^src/(${forbidden.join('|')})/`);
    const offending = [...graph]
      .filter(([f]) => path.relative(ROOT, f).startsWith(`src/${folder}/`))
      .flatMap(([f, deps]) => deps.map((d) => path.relative(ROOT, d)).filter((d) => forbiddenDir.test(d)).map((d) => `${path.relative(ROOT, f)} -> ${d}`));
    expect(offending).toEqual([]);
  });

  it('the kernel entry (navkernel/kernel) loads no barrel, ledger, LLM, repo map, navigator, explorer or service module', () => {
    const graph = importGraph(true);
    const seen = new Set<string>();
    const walk = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const d of graph.get(f) ?? []) walk(d);
    };
    walk(path.join(ROOT, 'src', 'kernel', 'index.ts'));
    const heavy = [...seen].map((f) => path.relative(ROOT, f)).filter((f) => f === 'src/contracts/index.ts' || /^src\/(ledger|llm|repomap|navigator|explorer|service|cli)\//.test(f))
      // The request guard redacts secrets before anything is stored: that small module is the one exception.
      .filter((f) => f !== 'src/llm/redact.ts');
    expect(heavy).toEqual([]);
  });
});
