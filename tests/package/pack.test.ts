// The package as a user gets it: `npm pack`, install the tarball into a scratch project (from the local npm cache
// where it can; SDKs and grammars are optional peers and stay out), type-check a TypeScript consumer with
// skipLibCheck false under moduleResolution node16 and bundler, then run it and the installed CLI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const dir = mkdtempSync(path.join(tmpdir(), 'nk-pack-'));
const consumer = path.join(dir, 'consumer');
let packed: { filename: string; files: { path: string }[] };

function run(cmd: string, args: string[], cwd: string, timeout = 120_000) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

const CONSUMER_TS = `
import { createKernel, defineFlows } from 'navkernel/kernel';
import { VERSION, type Decision } from 'navkernel';
import type { KernelStore } from 'navkernel/contracts';
import type { ReplayOptions } from 'navkernel/runs';

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
  const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
  expect(pack.code, pack.out).toBe(0);
  packed = JSON.parse(pack.stdout)[0];
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const install = run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', path.join(dir, packed.filename), '@types/node@20'], consumer, 180_000);
  expect(install.code, install.out).toBe(0);
  writeFileSync(path.join(consumer, 'main.ts'), CONSUMER_TS);
  writeFileSync(path.join(consumer, 'tsconfig.node16.json'), tsconfig('node16', 'node16'));
  writeFileSync(path.join(consumer, 'tsconfig.bundler.json'), tsconfig('esnext', 'bundler'));
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    const sdk = run(process.execPath, ['--input-type=module', '-e', "const { createLanguageModel } = await import('navkernel/llm'); try { createLanguageModel('anthropic'); } catch (e) { console.log(e.code, e.message); }"], consumer);
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
});
