import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

/**
 * Every relative import of every module under src/ and machines/: static ones (type-only ones included, unless
 * `runtimeOnly`) and dynamic `import('./x.js')` ones (left out with `runtimeOnly`: they load later, when called).
 */
function importGraph(runtimeOnly = false): Map<string, string[]> {
  const files = ['src', 'machines'].flatMap((d) =>
    (readdirSync(path.join(ROOT, d), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, d, f)),
  );
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s([^;]*?)from\s+'(\.[^']+)'/g)].filter((m) => !(runtimeOnly && /^type\s/.test(m[1]!))).map((m) => m[2]!);
    if (!runtimeOnly) specifiers.push(...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]!));
    const deps = specifiers.map((m) => path.resolve(path.dirname(file), m.replace(/\.js$/, '.ts')));
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

/** Every module `entry` loads at run time (type-only imports left out), itself included. */
function runtimeClosure(entry: string): Set<string> {
  const graph = importGraph(true);
  const seen = new Set<string>();
  const walk = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const d of graph.get(f) ?? []) walk(d);
  };
  walk(entry);
  return seen;
}

/** The part a module belongs to: its folder under src/ (`machines` for machines/), or its file name at src/'s top. */
function part(file: string): string {
  const rel = path.relative(ROOT, file).split(path.sep);
  if (rel[0] === 'machines') return 'machines';
  return rel.length > 2 ? rel[1]! : rel[1]!.replace(/\.ts$/, '');
}

// ARCHITECTURE.md's arrows: what each part may import (besides itself and the leaf helpers package-root, version and
// optional-package). Data flows one way: cli, service and integrations on top, runs above kernel and ledger, contracts at the bottom.
const LEAVES = ['package-root', 'version', 'optional-package', 'redact', 'sqlite-driver'];
const MAY_IMPORT: Record<string, readonly string[]> = {
  contracts: [],
  llm: ['contracts'],
  ledger: ['contracts'],
  repomap: ['contracts'],
  forensics: ['contracts'],
  kernel: ['contracts', 'llm', 'machines'],
  // Topology and names only: src/ provides the implementations with .provide(), so nothing in machines/ imports src/.
  machines: [],
  runs: ['contracts', 'kernel', 'ledger'],
  navigator: ['contracts', 'machines', 'repomap'],
  explorer: ['contracts', 'llm', 'navigator', 'repomap'],
  demo: ['contracts', 'kernel'],
  'schema-registry': ['contracts', 'llm'],
  'machine-diagram': ['machines'],
  service: ['contracts', 'kernel', 'ledger', 'llm', 'runs', 'schema-registry', 'machine-diagram', 'forensics'],
  // The MCP server and the LangGraph edge: thin adapters over the public API below them.
  integrations: ['contracts', 'kernel', 'ledger', 'runs', 'navigator', 'repomap'],
  // navkernel/testing, the store conformance kit: drives stores through the kernel and the run readers.
  testing: ['contracts', 'kernel', 'ledger', 'runs', 'demo'],
};

describe('module structure', () => {
  it('imports only downwards, as ARCHITECTURE.md draws it (the ledger never imports the kernel; nothing imports cli)', () => {
    const wrong: string[] = [];
    for (const [file, deps] of importGraph()) {
      const from = part(file);
      if (from === 'cli' || from === 'index' || LEAVES.includes(from)) continue;
      const allowed = MAY_IMPORT[from];
      if (!allowed) {
        wrong.push(`${path.relative(ROOT, file)}: part ${from} has no entry in MAY_IMPORT`);
        continue;
      }
      for (const d of deps) {
        const to = part(d);
        if (to !== from && !LEAVES.includes(to) && !allowed.includes(to)) wrong.push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, d)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('inside the navigator, pipeline/ may import retrieval/ and retrieval/ never imports pipeline/, the barrel or a machine', () => {
    const nav = path.join(ROOT, 'src', 'navigator');
    const layer = (f: string) => (f.startsWith(path.join(nav, 'retrieval') + path.sep) ? 'retrieval' : f.startsWith(path.join(nav, 'pipeline') + path.sep) ? 'pipeline' : path.relative(ROOT, f));
    const graph = importGraph();
    const files = [...graph.keys()].filter((f) => f.startsWith(nav + path.sep));
    // Every module of the navigator is in one of the two folders, but for the entry (index.ts).
    expect(files.filter((f) => !['retrieval', 'pipeline'].includes(layer(f))).map((f) => path.relative(ROOT, f))).toEqual(['src/navigator/index.ts']);
    expect(files.filter((f) => layer(f) === 'retrieval').length).toBeGreaterThan(10);
    const up = files
      .filter((f) => layer(f) === 'retrieval')
      .flatMap((f) => graph.get(f)!.filter((d) => (d.startsWith(nav + path.sep) && layer(d) !== 'retrieval') || part(d) === 'machines').map((d) => `${path.relative(ROOT, f)} -> ${path.relative(ROOT, d)}`));
    expect(up).toEqual([]);
  });

  it('has no import cycles in src/ and machines/ (type-only and dynamic imports included)', () => {
    expect(cycles(importGraph())).toEqual([]);
  });

  it('arrows run one way between machines/ and src/: src/ may import a machine, a machine imports nothing from src/', () => {
    const graph = importGraph();
    const up = [...graph].filter(([f]) => part(f) === 'machines').flatMap(([f, deps]) => deps.filter((d) => part(d) !== 'machines').map((d) => `${path.relative(ROOT, f)} -> ${path.relative(ROOT, d)}`));
    expect(up).toEqual([]);
    // ...and the kernel and the navigator do run on their machines (the implementations are provided there).
    const users = [...graph].filter(([f, deps]) => part(f) !== 'machines' && deps.some((d) => part(d) === 'machines')).map(([f]) => path.relative(ROOT, f));
    expect(users).toEqual(expect.arrayContaining(['src/kernel/run-machine.ts', 'src/navigator/pipeline/navigator-machine.ts']));
  });

  it('the cycle check sees dynamic imports (the CLI loads its commands with import())', () => {
    const main = importGraph().get(path.join(ROOT, 'src', 'cli', 'main.ts'))!.map((d) => path.relative(ROOT, d));
    expect(main).toContain('src/cli/commands/completion.ts');
    expect(importGraph(true).get(path.join(ROOT, 'src', 'cli', 'main.ts'))!.map((d) => path.relative(ROOT, d))).not.toContain('src/cli/commands/completion.ts');
  });

  it('the kernel entry (navkernel/kernel) loads no barrel, ledger, LLM, repo map, navigator, explorer or service module', () => {
    const seen = runtimeClosure(path.join(ROOT, 'src', 'kernel', 'index.ts'));
    const heavy = [...seen].map((f) => path.relative(ROOT, f)).filter((f) => f === 'src/contracts/index.ts' || /^src\/(ledger|llm|repomap|navigator|explorer|service|cli)\//.test(f));
    expect(heavy).toEqual([]);
    // Nor zod (12 MB resident: the kernel checks with the compiled JSON Schemas and plain constants) nor yaml (loaded
    // with the first YAML flow file).
    const heavyPackages = [...seen].filter((f) => /(?:^|\n)\s*import\s(?!type\s)[^;]*?from\s+'(?:zod|yaml)'/.test(readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
    expect(heavyPackages).toEqual([]);
  });

  it('navkernel/forensics uses only contracts and the redaction module; the route transports load it only with a request that names reports', () => {
    const seen = [...runtimeClosure(path.join(ROOT, 'src', 'forensics', 'index.ts'))].map((f) => path.relative(ROOT, f));
    expect(seen.filter((f) => !/^src\/(contracts|forensics)\//.test(f) && f !== 'src/redact.ts')).toEqual([]);
    expect(seen).not.toContain('src/contracts/index.ts');
    // Its parsers (fast-xml-parser, tap-parser) load with the first report of their format.
    const eager = seen.filter((f) => /(?:^|\n)\s*import\s(?!type\s)[^;]*?from\s+'(?:fast-xml-parser|tap-parser)'/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(eager).toEqual([]);
    for (const entry of [path.join(ROOT, 'src', 'cli', 'commands', 'route.ts'), path.join(ROOT, 'src', 'service', 'server.ts')]) {
      const loaded = [...runtimeClosure(entry)].map((f) => path.relative(ROOT, f)).filter((f) => f.startsWith('src/forensics/'));
      expect(loaded).toEqual(['src/forensics/with-reports.ts']);
    }
  });

  it('`navkernel route` without --llm loads no LLM module (its import is deferred until a flag needs it)', () => {
    const seen = runtimeClosure(path.join(ROOT, 'src', 'cli', 'commands', 'route.ts'));
    const llm = [...seen].map((f) => path.relative(ROOT, f)).filter((f) => f.startsWith('src/llm/'));
    expect(llm).toEqual([]);
  });
});
