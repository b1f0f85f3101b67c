// The API report: every name each package entry exports (runtime and type-only), compared with docs/api.md, so a
// change to the public surface is a visible diff in review. After an intended change: npm run build && npm run api.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiEntries, renderApiReport, type ApiEntry } from '../../scripts/api-report.js';
import { ROOT } from '../support/kernel-fixtures.js';

/** The names of each entry as docs/api.md lists them. */
function committedNames(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const h = /^## `([^`]+)`$/.exec(line);
    if (h) out.set(h[1]!, (current = []));
    const row = /^\| `([^`]+)` \| (\w+) \|/.exec(line);
    if (row && current) current.push(`${row[1]} (${row[2]})`);
  }
  return out;
}

describe('the API report (docs/api.md)', () => {
  let entries: ApiEntry[];

  it('lists exactly the names each entry exports; a change shows as names added and removed', async () => {
    entries = await apiEntries(ROOT);
    const committed = committedNames(readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8'));
    const drift: Record<string, { added: string[]; removed: string[] }> = {};
    for (const e of entries) {
      const now = e.names.map((n) => `${n.name} (${n.kind})`);
      const before = committed.get(e.specifier) ?? [];
      const added = now.filter((n) => !before.includes(n));
      const removed = before.filter((n) => !now.includes(n));
      if (added.length || removed.length) drift[e.specifier] = { added, removed };
    }
    for (const gone of [...committed.keys()].filter((k) => !entries.some((e) => e.specifier === k))) drift[gone] = { added: [], removed: committed.get(gone)! };
    expect(drift, 'the public surface changed: run `npm run build && npm run api` and review docs/api.md').toEqual({});
    expect(renderApiReport(entries), 'docs/api.md is stale (a summary changed): npm run api').toBe(readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8'));
  });

  it('keeps the root to what a user builds with (about 50 runtime names), each with a one-line summary, and no internal helper', async () => {
    entries ??= await apiEntries(ROOT);
    const root = entries.find((e) => e.specifier === 'navkernel')!;
    const runtime = root.names.filter((n) => n.kind !== 'type').map((n) => n.name);
    expect(runtime.length).toBeGreaterThanOrEqual(40);
    expect(runtime.length).toBeLessThanOrEqual(60);
    for (const e of entries) for (const n of e.names) expect(n.summary, `${e.specifier} ${n.name}`).not.toBe('');
    for (const internal of ['seededRandom', 'copyToClipboard', 'checkRung641', 'EXPLORER_SYSTEM_PROMPT', 'INTERACTIVE_HELP', 'LEDGER_APPLICATION_ID', 'stemOf', 'createLlmNavigator']) {
      expect(runtime, internal).not.toContain(internal);
    }
    expect(entries.map((e) => e.specifier)).toEqual(['navkernel', 'navkernel/kernel', 'navkernel/langgraph', 'navkernel/service', 'navkernel/forensics', 'navkernel/testing']);
  });

  it('the kernel entry is a subset of the root (one name, one thing)', async () => {
    entries ??= await apiEntries(ROOT);
    const root = new Set(entries.find((e) => e.specifier === 'navkernel')!.names.map((n) => n.name));
    const kernel = entries.find((e) => e.specifier === 'navkernel/kernel')!.names.map((n) => n.name);
    expect(kernel.filter((n) => !root.has(n))).toEqual([]);
  });
});
