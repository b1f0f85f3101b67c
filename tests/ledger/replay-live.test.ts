import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli.js';
import { tmpDir } from './helpers.js';

describe('replay --live', () => {
  const t = tmpDir();
  let RUN = 'live-run-1';
  afterAll(() => t.cleanup());
  const script = (name: string, pick: string[]) => {
    const file = path.join(t.dir, name);
    writeFileSync(file, JSON.stringify({ mode: 'rules', answers: [{ pick, reason: `always ${pick[0]}` }] }));
    return `scripted:${file}`;
  };
  const loopFirst = script('loop-first.json', ['loop:*', 'continue:*', 'escalate']);
  const continueFirst = script('continue-first.json', ['continue:*', 'escalate']);

  it('replays from the recorded answers by default, and asks the model again only with --live', async () => {
    const demo = await runCliHere(['demo', '-q', '--ledger', t.file, '--run-prefix', 'live', '--llm', loopFirst]);
    expect(demo.code).toBe(0);
    // The demo routes each flow of its sequence as a run of its own: take the first run where tier 3 looped.
    const db = new Database(t.file, { readonly: true });
    RUN = db.prepare("SELECT run_id FROM routes WHERE decision = 'LOOP' AND tier = 3 ORDER BY ts, run_id, seq LIMIT 1").pluck().get() as string;
    db.close();
    const audit = JSON.parse((await runCliHere(['audit', RUN, '--json', '--ledger', t.file])).stdout);
    expect(audit.arbiter.decided).toBeGreaterThan(0);

    // A script that would answer differently does not matter without --live: the recorded answers are used.
    expect((await runCliHere(['replay', RUN, '--ledger', t.file, '--llm', continueFirst])).code).toBe(0);
    expect((await runCliHere(['replay', RUN, '--ledger', t.file, '--live', '--llm', loopFirst])).code).toBe(0);
    const diverged = await runCliHere(['replay', RUN, '--ledger', t.file, '--live', '--llm', continueFirst, '--json']);
    expect(diverged.code).toBe(1);
    const report = JSON.parse(diverged.stdout);
    expect(report.divergences[0].recorded).toMatchObject({ tier: 3, decision: 'LOOP' });
    expect(report.divergences[0].now).toMatchObject({ tier: 3, decision: 'CONTINUE' });
  });

  it('refuses --live without a model', async () => {
    const r = await runCliHere(['replay', RUN, '--ledger', t.file, '--live']);
    expect(r.code).toBe(2); // a usage error (src/cli/conventions.ts)
    expect(r.stderr).toMatch(/--live needs --llm/);
  });
});
