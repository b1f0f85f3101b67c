// The noun groups (`navkernel runs …`, `ledger …`, `flows …`), their former one-word spellings, and the injected
// command context: every test here calls the CLI's `main` in this process with captured IO (no build, no spawn).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/context.js';
import { FORMER_SPELLINGS, GROUPS, buildProgram, canonicalArgv, main } from '../../src/cli/main.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

/** Runs `navkernel ARGS` in this process; `tty` makes stderr look like a terminal. */
async function cli(args: string[], { tty = false }: { tty?: boolean } = {}) {
  const io = captureIo({ cwd: ROOT });
  const stderr = tty ? { write: io.stderr.write, isTTY: true } : io.stderr;
  const code = await main(['node', 'navkernel', ...args], { ...io, stderr });
  return { code, stdout: io.out(), stderr: io.err() };
}

let ledger: string;
let run: string;

beforeAll(async () => {
  ledger = path.join(tempDir('nk-groups-'), 'ledger.sqlite');
  const demo = await cli(['demo', '-q', '--flows', path.join(ROOT, 'charters'), '--ledger', ledger, '--run-prefix', 'g']);
  expect(demo.code, demo.stderr).toBe(0);
  run = JSON.parse((await cli(['runs', 'list', '--ledger', ledger, '--json'])).stdout.split('\n')[0]!).run_id;
}, 120_000);

describe('noun groups', () => {
  it('a bare `navkernel runs` lists runs, as `runs list` does, and `runs --json` too', async () => {
    const list = await cli(['runs', 'list', '--ledger', ledger]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^RUN +FLOW/);
    expect((await cli(['runs', '--ledger', ledger])).stdout).toBe(list.stdout);
    const json = await cli(['runs', '--json', '--ledger', ledger]);
    expect(json.stdout.trim().split('\n').length).toBeGreaterThan(5);
    expect(json.stdout).toBe((await cli(['runs', 'list', '--json', '--ledger', ledger])).stdout);
  });

  it('every former one-word spelling prints what its grouped command prints, with the same exit code and nothing more', async () => {
    const cases: string[][] = [
      ['replay', run, '--ledger', ledger, '--flows', path.join(ROOT, 'charters')],
      ['audit', run, '--ledger', ledger, '--json'],
      ['verify', '--ledger', ledger, '--json', '--no-repair'],
      ['export', run, '--jsonl', '--ledger', ledger],
      ['validate', path.join(ROOT, 'charters'), '--json'],
      ['diagram', 'build', '--flows', path.join(ROOT, 'charters')],
    ];
    for (const [word, ...rest] of cases) {
      const former = await cli([word!, ...rest]);
      const grouped = await cli([FORMER_SPELLINGS[word!]!, word!, ...rest]);
      expect(grouped.code, `${word}: ${grouped.stderr}`).toBe(0);
      expect(grouped.stdout.length, word).toBeGreaterThan(0);
      expect(former, word).toEqual(grouped);
    }
  });

  it('the former spellings are hidden from help; the groups and their commands are shown', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]);
    for (const group of Object.keys(GROUPS)) expect(listed).toContain(group);
    for (const word of Object.keys(FORMER_SPELLINGS)) expect(listed).not.toContain(word);
    const runs = await cli(['runs', '--help']);
    expect(runs.stdout).toMatch(/Usage: navkernel runs/);
    for (const sub of ['list', 'replay', 'audit', 'resolve']) expect(runs.stdout).toMatch(new RegExp(`^ {2}${sub}\\b`, 'm'));
  });

  it('`help WORD` and `help GROUP COMMAND` show the grouped command', async () => {
    for (const args of [['help', 'replay'], ['help', 'runs', 'replay'], ['runs', 'replay', '--help']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/^Usage: navkernel runs replay \[options\] \[run\]/);
    }
  });

  it('a former spelling says its new name on stderr only to a person at a terminal, never with --json or -q', async () => {
    const args = ['verify', '--ledger', ledger, '--no-repair'];
    expect((await cli(args, { tty: true })).stderr).toBe('navkernel: "navkernel verify" is now "navkernel ledger verify"; the old spelling goes in a later release\n');
    expect((await cli(args)).stderr).toBe('');
    expect((await cli([...args, '--json'], { tty: true })).stderr).toBe('');
    expect((await cli(['runs', 'list', '--ledger', ledger], { tty: true })).stderr).toBe('');
  });

  it('an unknown option names the grouped command to ask for help', async () => {
    const r = await cli(['replay', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("navkernel: unknown option '--bogus' (see navkernel runs replay --help)\n");
    expect(JSON.parse((await cli(['ledger', 'verify', '--bogus', '--json'])).stdout)).toEqual({ error: { code: 'USAGE', message: "unknown option '--bogus'" } });
  });

  it('loads only the command it runs (route start-up stays light)', async () => {
    const program = await buildProgram(canonicalArgv(['node', 'navkernel', 'replay', 'x']).argv);
    expect(program.commands.map((c) => c.name())).toEqual(['runs']);
    expect(program.commands[0]!.commands.map((c) => c.name())).toEqual(['replay']);
    expect((await buildProgram(['node', 'navkernel', 'route'])).commands.map((c) => c.name())).toEqual(['route']);
  });

  it('canonicalArgv: former words move under their group, a bare group runs its default, help words become --help', () => {
    expect(canonicalArgv(['n', 'nk', 'audit', 'r1']).argv).toEqual(['n', 'nk', 'runs', 'audit', 'r1']);
    expect(canonicalArgv(['n', 'nk', 'runs', '--json']).argv).toEqual(['n', 'nk', 'runs', 'list', '--json']);
    expect(canonicalArgv(['n', 'nk', 'runs', 'replay', 'list']).argv).toEqual(['n', 'nk', 'runs', 'replay', 'list']);
    expect(canonicalArgv(['n', 'nk', 'runs', '--help']).argv).toEqual(['n', 'nk', 'runs', '--help']);
    expect(canonicalArgv(['n', 'nk', 'ledger', '--help']).argv).toEqual(['n', 'nk', 'ledger', '--help']);
    expect(canonicalArgv(['n', 'nk', 'help', 'verify']).argv).toEqual(['n', 'nk', 'ledger', 'verify', '--help']);
    expect(canonicalArgv(['n', 'nk', 'route', 'audit']).argv).toEqual(['n', 'nk', 'route', 'audit']);
  });
});

describe('the injected command context', () => {
  it("a finding is the call's exit code, not the process's", async () => {
    const dir = tempDir('nk-ctx-');
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'flow: x\nsteps:\n  - id: a\n    agent: a\n    next: nowhere\n');
    const before = process.exitCode;
    const r = await cli(['flows', 'validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/problem/);
    expect(process.exitCode).toBe(before);
  });

  it('the version goes to the given stdout', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});
