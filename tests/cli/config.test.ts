import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findConfig } from '../../src/cli/config.js';
import { BIN } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

const request = JSON.stringify({ run_id: 'c1', flow: 'build', step_completed: 'build-step-3', status: 'UNVERIFIED', forensics: { lint: { errors: 2, output: 'eslint: 2 errors' } } });

function cli(cwd: string, args: string[], input = '') {
  const env = { ...process.env };
  delete env.NAVKERNEL_FLOWS;
  delete env.NAVKERNEL_LEDGER;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('where flows, the ledger and run folders come from', () => {
  it('outside a project with no flows, every command uses the sample flows shipped with navkernel and says so', () => {
    const dir = tempDir('nk-noflows-');
    const r = cli(dir, ['route', '--no-ledger'], request);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'LOOP', next_step_id: 'build-step-3' });
    expect(r.stderr).toMatch(/^navkernel: no \.\/charters folder here: using the sample flows shipped with navkernel \(.*charters\); pass --flows DIR/);
    // What demo recorded there replays there, with the same default.
    const demo = cli(dir, ['demo', '--json']);
    expect(demo.code, demo.stderr).toBe(0);
    const run = (JSON.parse(demo.stdout) as { run_ids: string[] }).run_ids[0]!;
    const replay = cli(dir, ['replay', run, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ run_id: run, identical: true });
  });

  it('reads navkernel.config.yaml (paths relative to it) from a subfolder; flags win', () => {
    const dir = tempDir('nk-config-');
    cpSync(path.join(ROOT, 'charters'), path.join(dir, 'my-flows'), { recursive: true });
    writeFileSync(path.join(dir, 'navkernel.config.yaml'), 'flows: my-flows\nledger: data/ledger.sqlite\n');
    const sub = path.join(dir, 'sub');
    cpSync(path.join(dir, 'my-flows'), path.join(sub, 'other'), { recursive: true });
    const r = cli(sub, ['route'], request);
    // The one start-up line, naming the ledger and flows the config file chose.
    expect(r.stderr).toBe(`navkernel route: ledger ${path.join(dir, 'data', 'ledger.sqlite')} (run folders in ${path.join(dir, 'data', 'runs')}); flows from ${path.join(dir, 'my-flows')}: 7 flow(s) (build, deploy, gate, plan, rebase, review, signal)\n`);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'LOOP', next_step_id: 'build-step-3' });
    // The ledger named by the file, and its run folders beside it in one runs/ folder.
    expect(existsSync(path.join(dir, 'data', 'ledger.sqlite'))).toBe(true);
    // RUN_BASE holds the run folders and the decisions.jsonl writers' lock.
    expect(readdirSync(path.join(dir, 'data', 'runs')).sort()).toEqual(['.decisions-jsonl.lock', 'c1']);
    const flag = cli(sub, ['route', '--ledger', 'here.sqlite', '--flows', 'other'], request.replace('"c1"', '"c2"'));
    expect(flag.code).toBe(0);
    expect(readdirSync(sub).sort()).toEqual(['here.sqlite', 'other', 'runs']);
  });

  it('reads the navkernel key of package.json and refuses unknown keys with the file named', () => {
    const dir = tempDir('nk-config-');
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', navkernel: { budget_usd: 0.5, flows: 'f' } }));
    expect(findConfig(dir)).toEqual({ config: { budget_usd: 0.5, flows: path.join(dir, 'f') }, file: path.join(dir, 'package.json') });
    writeFileSync(path.join(dir, 'navkernel.config.json'), JSON.stringify({ flow: 'typo' }));
    const r = cli(dir, ['runs', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringMatching(/navkernel\.config\.json: unknown key "flow"/) });
  });
});
