// The ranking dump (src/navigator/retrieval/rank-dump.ts): NAVKERNEL_RANK_DUMP=FILE writes each task's whole ranking
// for trying a rule offline; the pick is the same with it or without it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { SHOP, tmpDir } from '../repomap/fixture.js';

const TASK = 'stripe refund of a charge';

describe('NAVKERNEL_RANK_DUMP', () => {
  it('appends one line per ranking: the files in rank order with their score parts, and the first files\' neighbours', () => {
    const dir = tmpDir();
    const dump = path.join(dir, 'rank.jsonl');
    const r = runCli(['navigate', '--repo', SHOP, '--task', TASK, '--out', path.join(dir, 'out'), '--no-cache', '--json', '-q'], '', { NAVKERNEL_RANK_DUMP: dump });
    expect(r.code).toBe(0);
    const lines = readFileSync(dump, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    const first = JSON.parse(lines[0]!) as { files: { path: string; score: number; text: number; graph: number; class: string; words: string[]; named: string[] }[]; neighbours: { path: string; of: Record<string, number> }[] };
    // Best first, scores never rising; every file matched a word of the task.
    expect(first.files.length).toBeGreaterThan(0);
    for (let i = 1; i < first.files.length; i++) expect(first.files[i]!.score).toBeLessThanOrEqual(first.files[i - 1]!.score);
    for (const f of first.files) expect(f.words.length).toBeGreaterThan(0);
    // With the names a file defines that the task names: the gateway's `charge`.
    expect(first.files.find((f) => f.path === 'src/payments/stripe-gateway.ts')?.named).toContain('charge');
    // The files loaded are the dump's first ones, in its order.
    const loaded = JSON.parse(readFileSync(path.join(dir, 'out', 'context_load_receipt.json'), 'utf8')).files_loaded.map((f: { path: string }) => f.path);
    expect(first.files.slice(0, loaded.length).map((f) => f.path)).toEqual(loaded);
    // Plain search's best files for the task follow the ranking's line (whole-file.ts), best first.
    const whole = lines.map((l) => JSON.parse(l) as { task?: string; whole?: { path: string; score: number }[] }).find((l) => l.whole);
    expect(whole?.task).toBe(TASK);
    expect(whole!.whole!.length).toBeGreaterThan(0);
    for (let i = 1; i < whole!.whole!.length; i++) expect(whole!.whole![i]!.score).toBeLessThanOrEqual(whole!.whole![i - 1]!.score);
    // Neighbours of the best file are other files of the repository, with positive edge weights.
    expect(first.neighbours[0]!.path).toBe(first.files[0]!.path);
    for (const [p, w] of Object.entries(first.neighbours[0]!.of)) {
      expect(p).not.toBe(first.files[0]!.path);
      expect(existsSync(path.join(SHOP, p))).toBe(true);
      expect(w).toBeGreaterThan(0);
    }
  });

  it('changes nothing of the pick: the context is the same byte for byte with and without it', () => {
    const dir = tmpDir();
    const dump = path.join(dir, 'rank.jsonl');
    const off = runCli(['navigate', '--repo', SHOP, '--task', TASK, '--out', path.join(dir, 'off'), '--no-cache', '--json', '-q'], '', { NAVKERNEL_RANK_DUMP: '' });
    const on = runCli(['navigate', '--repo', SHOP, '--task', TASK, '--out', path.join(dir, 'on'), '--no-cache', '--json', '-q'], '', { NAVKERNEL_RANK_DUMP: dump });
    expect(off.code).toBe(0);
    expect(on.code).toBe(0);
    const context = (d: string) => readFileSync(path.join(dir, d, 'context.md'), 'utf8');
    expect(context('on')).toBe(context('off'));
    expect(existsSync(dump)).toBe(true);
  });
});
