import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneLine } from '../../src/cli/conventions.js';
import { runCliHere } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

describe('CLI conventions (exit 0 / 1 finding / 2 usage or input; --json errors)', () => {
  it('a mistyped option is one line with a suggestion, exit 2, no usage dump', async () => {
    const r = await runCliHere(['runs', '--ledgr', 'x.sqlite']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("navkernel: unknown option '--ledgr', did you mean --ledger? (see navkernel runs list --help)\n");
  });

  it('a mistyped command is one line with a suggestion', async () => {
    const r = await runCliHere(['rout']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("navkernel: unknown command 'rout', did you mean route? (see navkernel --help)\n");
  });

  it('with --json an error is the JSON error line on stdout', async () => {
    const missing = path.join(tempDir('nk-conv-'), 'none.sqlite');
    const r = await runCliHere(['audit', 'r1', '--json', '--ledger', missing]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'LEDGER_NOT_FOUND', message: expect.stringContaining(missing) } });
    const usage = await runCliHere(['runs', '--json', '--durabilty', 'x']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error.code).toBe('USAGE');
  });

  it('bad values of options are input errors (exit 2), whatever the option', async () => {
    expect((await runCliHere(['demo', '--no-ledger', '-q', '--durability', 'bad'])).code).toBe(2);
    expect((await runCliHere(['demo', '--no-ledger', '-q', '--budget-usd', 'bad'])).code).toBe(2);
    expect((await runCliHere(['demo', '--no-ledger', '-q', '--scenario', 'nope'])).code).toBe(2);
  });

  it('validate --json reports problems as a finding (exit 1); a path that does not exist is an input error (exit 2)', async () => {
    const ok = await runCliHere(['validate', 'charters', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, flows: 7, requests: 0, problems: [], issues: [], warnings: [], bounds: { unstated: [] } });
    const dir = tempDir('nk-conv-');
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, 'flow: [\n');
    const bad = await runCliHere(['validate', broken, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).problems).toHaveLength(1);
    const missing = await runCliHere(['validate', 'no-such-file.yaml', '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toBe('PATH_NOT_FOUND');
  });

  it('formats commander messages on one line', async () => {
    expect(oneLine("error: unknown option '--ledgr'\n(Did you mean --ledger?)")).toBe("unknown option '--ledgr', did you mean --ledger?");
    expect(oneLine("error: missing required argument 'run'")).toBe("missing required argument 'run'");
  });
});

describe('aligned columns', () => {
  it('sizes each column to its widest cell, so a long step id keeps the rest aligned; numbers right-aligned', async () => {
    const { alignColumns } = await import('../../src/cli/table.js');
    const lines = alignColumns(
      [
        ['#1', 'build/a-very-long-step-id-that-goes-on-and-on', 'LOOP', '12'],
        ['#10', 'b/x', 'CONTINUE', '3'],
      ],
      { right: [3], indent: '  ' },
    );
    expect(lines).toEqual(['  #1   build/a-very-long-step-id-that-goes-on-and-on  LOOP      12', '  #10  b/x                                            CONTINUE   3']);
  });
});
