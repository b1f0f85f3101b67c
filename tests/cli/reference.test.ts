import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliReference } from '../../scripts/generate-cli-docs.js';
import { buildProgram } from '../../src/cli/main.js';
import { describeCommands } from '../../src/cli/reference.js';
import { runCliHere } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

describe('docs/cli.md and shell completion, generated from the command definitions', () => {
  it('docs/cli.md matches the commands (run `npm run build && npm run docs` after changing one)', async () => {
    expect(readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8')).toBe(await cliReference());
  });

  it('every command takes --json', async () => {
    const missing = describeCommands(await buildProgram()).filter((c) => !c.options.some((o) => o.long === '--json'));
    expect(missing.map((c) => c.name)).toEqual([]);
  });

  it('prints bash, zsh and fish scripts naming every command; bash completes a command and its options', async () => {
    const bash = await runCliHere(['completion', 'bash']);
    expect(bash.code).toBe(0);
    for (const shell of ['zsh', 'fish']) expect((await runCliHere(['completion', shell])).stdout).toMatch(/navkernel/);
    expect((await runCliHere(['completion', 'tcsh'])).code).toBe(2);
    const complete = (line: string) => {
      const words = line.split(' ');
      const script = `${bash.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _navkernel; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
      return r.stdout.trim().split('\n');
    };
    expect(complete('navkernel ro')).toEqual(['route']);
    expect(complete('navkernel ru')).toEqual(['runs']);
    expect(complete('navkernel runs re')).toEqual(['replay', 'resolve']);
    expect(complete('navkernel runs audit --le')).toEqual(['--ledger']);
    expect(complete('navkernel runs replay --fl')).toEqual(['--flows']);
    expect(complete('navkernel ledger verify --arc')).toEqual(['--archive']);
    // The former spellings are not offered (they are hidden, for a release).
    expect(complete('navkernel repl')).toEqual(['']);
  });
});
