// Importing an entry loads only what it needs: the kernel entry no validator, SQLite driver, YAML parser, zod or model
// SDK; the root no SQLite driver, YAML parser or validator until one is used (they are required on first use).
// Counted by package, with a module hook in a fresh Node process over the built package; no timing involved.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** The packages (from node_modules) a fresh process loads when it imports `file`, ESM and CommonJS alike. */
function packagesLoadedBy(file: string): string[] {
  const script = `
    import { register, createRequire } from 'node:module';
    const seen = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (p) => seen.add(p)); port1.unref();
    register('data:text/javascript,' + encodeURIComponent(\`
      let port; export function initialize(d) { port = d.port; }
      export async function resolve(s, c, n) { const r = await n(s, c); const m = /node_modules\\\\/((@[^/]+\\\\/)?[^/]+)/.exec(r.url); if (m) port.postMessage(m[1]); return r; }
    \`), { data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(file)});
    await new Promise((r) => setTimeout(r, 50));
    for (const k of Object.keys(createRequire(import.meta.url).cache)) { const m = /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(k); if (m) seen.add(m[1]); }
    console.log(JSON.stringify([...seen].sort()));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as string[];
}

describe('what importing an entry loads', () => {
  it('navkernel/kernel: no ajv, better-sqlite3, yaml, zod, tree-sitter or model SDK', () => {
    const loaded = packagesLoadedBy(path.join(ROOT, 'dist', 'src', 'kernel', 'entry.js'));
    expect(loaded).toContain('xstate');
    for (const heavy of ['ajv', 'better-sqlite3', 'yaml', 'zod', 'web-tree-sitter', '@anthropic-ai/sdk', '@google/genai']) expect(loaded, heavy).not.toContain(heavy);
  });

  it('navkernel: no better-sqlite3, yaml or ajv until a ledger is opened, a YAML file read or a document validated', () => {
    const loaded = packagesLoadedBy(path.join(ROOT, 'dist', 'src', 'index.js'));
    expect(loaded).toContain('zod');
    for (const lazy of ['better-sqlite3', 'yaml', 'ajv', '@anthropic-ai/sdk', '@google/genai']) expect(loaded, lazy).not.toContain(lazy);
  });

  it('a SQLite ledger exposes no raw database handle (SqliteLedger.sql is private at 1.0)', async () => {
    const dir = tempDir('navkernel-entry-weight-');
    const ledger = openLedger(path.join(dir, 'ledger.sqlite'));
    try {
      expect('sql' in ledger).toBe(false);
      expect(Object.keys(ledger)).not.toContain('sql');
      expect(await ledger.runIds()).toEqual([]);
    } finally {
      await ledger.close();
    }
  });
});
