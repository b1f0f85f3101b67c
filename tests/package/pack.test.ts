// The package as a user gets it, from their own folder (issue 37): `npm pack`, then install the tarball into a scratch
// project the way docs/install.md says (its own allowScripts approving better-sqlite3 and nothing else,
// --strict-allow-scripts so anything unreviewed fails the install, better-sqlite3 built from source: no prebuilt
// download offline). The one slow end-to-end install of the suite (better-sqlite3 compiles, ~100 s); every case below
// shares it. Then: type-check a TypeScript consumer with skipLibCheck false under moduleResolution node16 and bundler,
// route a flow of one's own into a SQLite ledger from TypeScript and from Python (the client finding the project's
// CLI), start and stop serve from both, and check that nothing is left running.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let dir: string;
let consumer: string;
let packed: { filename: string; files: { path: string }[] };
let installOutput = '';

function run(cmd: string, args: string[], cwd: string, timeout = 120_000, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, npm_config_update_notifier: 'false', ...env } });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Running processes whose command line contains `text` (zombies left for an init that never reaps do not run). */
function runningWith(text: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid)) {
    try {
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ')[0];
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (state !== 'Z' && args.includes(text)) out.push(`${entry} ${args}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const CONSUMER_TS = `
import { createKernel, defineFlows } from 'navkernel/kernel';
import { VERSION, type Decision, type ReplayOptions } from 'navkernel';
import type { KernelStore } from 'navkernel/kernel';

const replayOptions: ReplayOptions = { maxDivergences: 1 };
void replayOptions;
const store: KernelStore | undefined = undefined;
const kernel = createKernel({
  flows: defineFlows([
    {
      flow: 'tiny',
      charter: { goal: 'ship it', key_question: 'is it shipped?' },
      steps: [
        { id: 'build', agent: 'builder', next: 'done', loop: { max_iterations: 2 } },
        { id: 'done', agent: 'reporter', terminal: true },
      ],
    },
  ]),
  ...(store ? { store } : {}),
});
const first: Decision = await kernel.route({ run_id: 'r1', flow: 'tiny', step_completed: 'build', status: 'FAILED', forensics: { tests: { passed: 1, failed: 1 } } });
const second: Decision = await kernel.route({ run_id: 'r1', flow: 'tiny', step_completed: 'build', status: 'VERIFIED' });
console.log(JSON.stringify({ version: VERSION, decisions: [first.decision, second.decision], next: second.next_step_id }));
`;

const tsconfig = (module: string, moduleResolution: string) =>
  JSON.stringify({
    compilerOptions: { target: 'ES2022', module, moduleResolution, strict: true, skipLibCheck: false, types: ['node'], outDir: `out-${moduleResolution}` },
    files: ['main.ts'],
  });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'nk-pack-'));
  consumer = path.join(dir, 'consumer');
  // --ignore-scripts: prepack would rebuild dist/ (removing it first) under the other test files; `npm test` built it.
  const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  expect(pack.code, pack.out).toBe(0);
  packed = JSON.parse(pack.stdout)[0];
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // The documented approval, before the install.
  const approve = run('npm', ['pkg', 'set', 'allowScripts.better-sqlite3=true', '--json'], consumer);
  expect(approve.code, approve.out).toBe(0);
  const install = run(
    'npm',
    ['install', '--prefer-offline', '--strict-allow-scripts', '--no-audit', '--no-fund', path.join(dir, packed.filename), '@types/node@20'],
    consumer,
    900_000,
    { npm_config_build_from_source: 'true' },
  );
  installOutput = install.out;
  expect(install.code, install.out).toBe(0);
  writeFileSync(path.join(consumer, 'main.ts'), CONSUMER_TS);
  writeFileSync(path.join(consumer, 'tsconfig.node16.json'), tsconfig('node16', 'node16'));
  writeFileSync(path.join(consumer, 'tsconfig.bundler.json'), tsconfig('esnext', 'bundler'));
  mkdirSync(path.join(consumer, 'flows'));
  cpSync(path.join(ROOT, 'examples', 'first-flow', 'fixbug.yaml'), path.join(consumer, 'flows', 'fixbug.yaml'));
}, 960_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the published package', () => {
  it('ships only what runs: no compiled tests, benchmarks, scripts or source maps; a LICENSE', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toContain('LICENSE');
    expect(files).toContain('dist/src/kernel/index.js');
    expect(files).toContain('schemas/decision.schema.json');
    for (const ui of ['dist/ui/index.html', 'dist/ui/app.js', 'dist/ui/mermaid.min.js', 'schemas/openapi.json', 'clients/python/navkernel_client.py', 'clients/python/py.typed', 'clients/python/pyproject.toml', 'clients/python/build_backend.py']) expect(files).toContain(ui);
    expect(files.filter((f) => /^dist\/(tests|bench|scripts)\//.test(f) || f.endsWith('.map'))).toEqual([]);
    // No compiled file points at a source map that is not shipped (bundlers warn about those).
    const dangling = files.filter((f) => f.endsWith('.js') && /\/\/# sourceMappingURL=/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(dangling).toEqual([]);
  });

  it('every relative link of a shipped Markdown file resolves inside the package (the UI screenshots stay in the repository)', () => {
    const files = new Set(packed.files.map((f) => f.path));
    const broken: string[] = [];
    for (const doc of [...files].filter((f) => f.endsWith('.md'))) {
      for (const m of readFileSync(path.join(ROOT, doc), 'utf8').matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/i.test(link)) continue;
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(doc), link)).replace(/\/$/, '');
        if (/^docs\/ui-[\w-]+\.png$/.test(target)) continue;
        if (!files.has(target) && ![...files].some((f) => f.startsWith(`${target}/`))) broken.push(`${doc}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('type-checks a consumer with skipLibCheck false under moduleResolution node16 and bundler', () => {
    for (const config of ['tsconfig.node16.json', 'tsconfig.bundler.json']) {
      const r = run(process.execPath, [TSC, '-p', config], consumer);
      expect(r.out, config).toBe('');
      expect(r.code).toBe(0);
    }
  });

  it('runs the consumer on the kernel entry, which needs no LLM SDK, tokenizer or tree-sitter grammar', () => {
    const r = run(process.execPath, ['out-node16/main.js'], consumer);
    expect(r.code, r.out).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version: expect.any(String), decisions: ['LOOP', 'CONTINUE'], next: 'done' });
  });

  it('exports the schemas and names the optional package a feature needs', () => {
    const schema = run(process.execPath, ['--input-type=module', '-e', "const m = await import('navkernel/schemas/decision.schema.json', { with: { type: 'json' } }); console.log(m.default.title)"], consumer);
    expect(schema.stdout.trim(), schema.out).toBe('decision');
    const sdk = run(process.execPath, ['--input-type=module', '-e', "const { createLanguageModel } = await import('navkernel'); try { createLanguageModel('anthropic'); } catch (e) { console.log(e.code, e.message); }"], consumer);
    expect(sdk.stdout, sdk.out).toMatch(/^MISSING_PACKAGE .*npm install @anthropic-ai\/sdk/);
    const langgraph = run(process.execPath, ['--input-type=module', '-e', "try { await import('navkernel/langgraph'); } catch (e) { console.log(e.code, e.message); }"], consumer);
    expect(langgraph.stdout, langgraph.out).toMatch(/^MISSING_PACKAGE .*npm install @langchain\/langgraph/);
    const mcp = run(path.join(consumer, 'node_modules', '.bin', 'navkernel'), ['mcp', '--json'], consumer);
    expect(mcp.code).toBe(2);
    expect(JSON.parse(mcp.stdout)).toEqual({ error: { code: 'MISSING_PACKAGE', message: expect.stringContaining('npm install @modelcontextprotocol/sdk') } });
    const service = run(process.execPath, ['--input-type=module', '-e', "const m = await import('navkernel/service'); console.log(typeof m.createService)"], consumer);
    expect(service.stdout.trim(), service.out).toBe('function');
    const forensics = run(process.execPath, ['--input-type=module', '-e', "const m = await import('navkernel/forensics'); console.log(typeof m.collectForensics, m.REPORT_FORMATS.length)"], consumer);
    expect(forensics.stdout.trim(), forensics.out).toBe('function 10');
    const testing = run(process.execPath, ['--input-type=module', '-e', "const m = await import('navkernel/testing'); console.log(typeof m.storeConformance, m.STORE_PARTS.join(','))"], consumer);
    expect(testing.stdout.trim(), testing.out).toBe('function KernelStore,RunReader,StatsReader,EscalationStore');
    // The 0.x subpaths are gone at 1.0 (CHANGELOG.md): their names are on the root.
    for (const gone of ['navkernel/ledger', 'navkernel/runs', 'navkernel/llm', 'navkernel/navigator', 'navkernel/contracts']) {
      const r = run(process.execPath, ['--input-type=module', '-e', `try { await import('${gone}'); } catch (e) { console.log(e.code); }`], consumer);
      expect(r.stdout.trim(), gone).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    }
  });

  it('engines tells the truth: on the oldest release of every Node line it allows, every locked package accepts it', () => {
    const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    // Contributors (dev dependencies: vite, vitest, rolldown) need a narrower range, stated in docs/development.md.
    const DEV_NODE = '^20.19.0 || ^22.13.0 || >=24';
    /** The oldest x.y.0 of each Node major 20-26 that `range` allows. */
    const oldestPerLine = (range: string) =>
      Array.from({ length: 7 }, (_, i) => 20 + i).flatMap((major) => {
        for (let minor = 0; minor < 40; minor++) if (semver.satisfies(`${major}.${minor}.0`, range)) return [`${major}.${minor}.0`];
        return [];
      });
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[] }> };
    const refusing = Object.entries(lock.packages).flatMap(([name, p]) => {
      const wants = !Array.isArray(p.engines) ? p.engines?.node : undefined;
      if (wants === undefined) return [];
      return oldestPerLine(p.dev ? DEV_NODE : pkg.engines.node)
        .filter((v) => !semver.satisfies(v, wants))
        .map((v) => `${name}${p.dev ? ' (dev)' : ''} wants node ${wants}, refuses ${v}`);
    });
    expect(refusing).toEqual([]);
    expect(oldestPerLine(pkg.engines.node)).toEqual(['20.19.0', '22.12.0', '23.0.0', '24.0.0', '25.0.0', '26.0.0']);
  });

  it('installs a working navkernel command', () => {
    const bin = path.join(consumer, 'node_modules', '.bin', 'navkernel');
    expect(run(bin, ['--version'], consumer).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const v = run(bin, ['validate', 'node_modules/navkernel/charters', '--json'], consumer);
    expect(JSON.parse(v.stdout), v.out).toMatchObject({ ok: true, flows: 7 });
  });

  it('installs with only better-sqlite3 approved: nothing unreviewed, no build step of navkernel, no engine warning', () => {
    expect(installOutput).not.toMatch(/not yet covered by allowScripts/);
    expect(installOutput).not.toMatch(/EBADENGINE/);
    const manifest = JSON.parse(readFileSync(path.join(consumer, 'node_modules', 'navkernel', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // No script npm would count as navkernel's install script (prepare, for a tarball or path source).
    expect(Object.keys(manifest.scripts).filter((k) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(k))).toEqual([]);
    expect(existsSync(path.join(consumer, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
    const ls = run('npm', ['install-scripts', 'ls'], consumer);
    expect(ls.out).toContain('No packages with unreviewed install scripts');
  });

  it('routes a flow of your own into a SQLite ledger from TypeScript, and starts and stops serve (startServe)', () => {
    writeFileSync(
      path.join(consumer, 'own.ts'),
      `import { createKernel, loadFlows, openLedger } from 'navkernel';
import { startServe } from 'navkernel/service';
const ledger = openLedger('data/ledger.sqlite');
const kernel = createKernel({ flows: await loadFlows('flows'), store: ledger });
const steps: [string, string][] = [['reproduce', 'REPRODUCED'], ['implement', 'VERIFIED'], ['review', 'APPROVED'], ['done', 'DONE']];
const decisions: string[] = [];
for (const [step, status] of steps) decisions.push((await kernel.route({ run_id: 'own-ts', flow: 'fixbug', step_completed: step, status })).decision);
await kernel.close();
const serve = await startServe({ flows: 'flows', ledger: 'data/ledger.sqlite' });
const run = (await (await fetch(serve.url + '/v1/runs/own-ts')).json()) as { run: { status: string; offroad: number } };
await serve.close();
console.log(JSON.stringify({ decisions, run: run.run.status, offroad: run.run.offroad, runBase: ledger.runBase, pid: serve.pid }));
`,
    );
    writeFileSync(path.join(consumer, 'tsconfig.own.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, skipLibCheck: false, types: ['node'], outDir: 'out-own' }, files: ['own.ts'] }));
    const tsc = run(process.execPath, [TSC, '-p', 'tsconfig.own.json'], consumer);
    expect(tsc.out).toBe('');
    const r = run(process.execPath, ['out-own/own.js'], consumer);
    expect(r.code, r.out).toBe(0);
    const out = JSON.parse(r.stdout) as { decisions: string[]; run: string; offroad: number; runBase: string; pid: number };
    expect(out).toMatchObject({ decisions: ['CONTINUE', 'CONTINUE', 'CONTINUE', 'TERMINATE'], run: 'terminated', offroad: 0, runBase: path.join(consumer, 'data', 'runs') });
    expect(runningWith(path.join(consumer, 'data'))).toEqual([]);
  });

  it('routes from Python with the client finding the project\'s own CLI (no npx, no NAVKERNEL_BIN), serve stopped with its group', () => {
    const script = `
import json, sys
from navkernel_client import Client, CoProcess, find_navkernel, start_serve
cmd = find_navkernel()
with CoProcess(cmd + ["route", "-q", "--flows", "flows", "--ledger", "py/ledger.sqlite"]) as co:
    d = co.route({"run_id": "own-py", "flow": "fixbug", "step_completed": "reproduce", "status": "REPRODUCED"})
with start_serve(flows="flows", ledger="py/ledger.sqlite") as serve, Client(serve.base_url) as http:
    run = http.run("own-py")["run"]
print(json.dumps({"cmd": cmd, "next": d["next_step_id"], "steps": run["steps"], "pid": serve.pid}))
`;
    const env = { PYTHONPATH: path.join(consumer, 'node_modules', 'navkernel', 'clients', 'python'), NAVKERNEL_BIN: '', PATH: path.dirname(process.execPath) + ':/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' };
    const r = run('python3', ['-c', script], path.join(consumer), 120_000, env);
    expect(r.code, r.out).toBe(0);
    const out = JSON.parse(r.stdout) as { cmd: string[]; next: string; steps: number; pid: number };
    expect(out).toMatchObject({ cmd: [path.join(consumer, 'node_modules', '.bin', 'navkernel')], next: 'implement', steps: 1 });
    expect(runningWith(path.join('py', 'ledger.sqlite'))).toEqual([]);
  });

  it('the installed CLI says which ledger and flows it uses', () => {
    const bin = path.join(consumer, 'node_modules', '.bin', 'navkernel');
    const r = spawnSync(bin, ['route', '--flows', 'flows'], { cwd: consumer, encoding: 'utf8', input: JSON.stringify({ run_id: 'own-cli', flow: 'fixbug', step_completed: 'reproduce', status: 'REPRODUCED' }) + '\n' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`navkernel route: ledger ${path.join(consumer, 'runs', 'ledger.sqlite')} (run folders in ${path.join(consumer, 'runs')}); flows from ${path.join(consumer, 'flows')}: 1 flow(s) (fixbug)\n`);
  });

  it('a path install links the clone (nothing built, nothing installed into it) and routes a flow of your own', () => {
    const linked = path.join(dir, 'linked');
    mkdirSync(linked);
    writeFileSync(path.join(linked, 'package.json'), JSON.stringify({ name: 'linked', private: true, type: 'module' }));
    const install = run('npm', ['install', '--prefer-offline', '--strict-allow-scripts', '--no-audit', '--no-fund', ROOT], linked);
    expect(install.code, install.out).toBe(0);
    expect(install.out).not.toMatch(/not yet covered by allowScripts|EBADENGINE/);
    cpSync(path.join(ROOT, 'examples', 'first-flow', 'fixbug.yaml'), path.join(linked, 'fixbug.yaml'));
    const script = "import { createKernel, loadFlows, openLedger } from 'navkernel'; const k = createKernel({ flows: await loadFlows('fixbug.yaml'), store: openLedger('ledger.sqlite') }); const d = await k.route({ run_id: 'p1', flow: 'fixbug', step_completed: 'reproduce', status: 'REPRODUCED' }); await k.close(); console.log(d.next_step_id);";
    const r = run(process.execPath, ['--input-type=module', '-e', script], linked);
    expect(r.stdout.trim(), r.out).toBe('implement');
    const cli = run(path.join(linked, 'node_modules', '.bin', 'navkernel'), ['runs', '--ledger', 'ledger.sqlite', '--json'], linked);
    expect(JSON.parse(cli.stdout.trim())).toMatchObject({ run_id: 'p1', steps: 1 });
  });
});
