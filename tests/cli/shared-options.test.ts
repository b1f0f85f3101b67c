// One flag per concept (docs/cli-conventions.md): the shared options are the only spelling help shows, and each
// former name still sets the same value, hidden. In-process: the CLI's `main` and program with captured IO.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/context.js';
import { buildProgram, leafCommands, main } from '../../src/cli/main.js';
import { addFormerFlag, sharedOption } from '../../src/cli/shared-options.js';
import { ROOT } from '../support/kernel-fixtures.js';
import { tempDir } from '../support/temp.js';

const FORMER: Record<string, { former: string[]; now: string }> = {
  explore: { former: ['--model', '--cost-limit', '--tokens', '--timeout-ms', '--goal', '--output'], now: '--llm --budget-usd --budget-tokens --llm-timeout-ms --task --out' },
  serve: { former: ['--tokens', '--max-body-bytes'], now: '--principals --max-bytes' },
  report: { former: ['--output'], now: '--out' },
};

describe('one flag per concept', () => {
  it('help shows only the shared spellings; the former names are there, hidden', async () => {
    const program = await buildProgram();
    const visible = new Map<string, string[]>();
    for (const c of leafCommands(program)) {
      for (const o of c.options as Option[]) if (!o.hidden && o.long) visible.set(o.long, [...(visible.get(o.long) ?? []), c.name()]);
    }
    for (const gone of ['--model', '--cost-limit', '--tokens', '--timeout-ms', '--goal', '--output']) expect(visible.has(gone), gone).toBe(false);
    expect(visible.get('--llm')).toEqual(expect.arrayContaining(['explore', 'route', 'serve', 'mcp', 'demo', 'replay']));
    expect(visible.get('--budget-usd')).toEqual(expect.arrayContaining(['explore', 'route']));
    expect(visible.get('--budget-tokens')).toEqual(expect.arrayContaining(['explore', 'navigate', 'mcp']));
    // --token is a bearer token and nothing else.
    for (const c of leafCommands(program)) {
      const token = (c.options as Option[]).find((o) => o.long === '--token');
      if (token) expect(token.flags).toBe('--token <token>');
    }
    for (const [name, { former, now }] of Object.entries(FORMER)) {
      const c = leafCommands(program).find((x) => x.name() === name)!;
      const hidden = (c.options as Option[]).filter((o) => o.hidden).map((o) => o.long);
      expect(hidden, name).toEqual(expect.arrayContaining(former));
      for (const flag of now.split(' ')) expect((c.options as Option[]).some((o) => o.long === flag && !o.hidden), `${name} ${flag}`).toBe(true);
    }
  });

  it('a former name sets the shared option; a negation on the line wins over it', async () => {
    const parse = async (args: string[]) => {
      const cmd = new Command('x').exitOverride().addOption(sharedOption.llm('the model')).option('--no-llm', 'no model').action(() => {});
      addFormerFlag(cmd, '-m, --model <spec>', 'llm');
      await cmd.parseAsync(args, { from: 'user' });
      return cmd.opts().llm as unknown;
    };
    expect(await parse(['--model', 'claude-haiku-4-5'])).toBe('claude-haiku-4-5');
    expect(await parse(['-m', 'gemini'])).toBe('gemini');
    expect(await parse(['--llm', 'a', '--model', 'b'])).toBe('b');
    expect(await parse(['--no-llm', '--model', 'b'])).toBe(false);
    expect(await parse([])).toBeUndefined();
  });

  it('report writes the same page with --out and its former --output', async () => {
    const dir = tempDir('nk-shared-');
    const ledger = path.join(dir, 'ledger.sqlite');
    const run = async (args: string[]) => {
      const io = captureIo({ cwd: ROOT });
      return { code: await main(['node', 'navkernel', ...args], io), err: io.err() };
    };
    expect((await run(['demo', '-q', '--ledger', ledger, '--run-prefix', 's', '--flows', path.join(ROOT, 'charters')])).code).toBe(0);
    const flows = ['--flows', path.join(ROOT, 'charters'), '--ledger', ledger];
    const a = await run(['report', 's-run-1', '--out', path.join(dir, 'a.html'), ...flows]);
    const b = await run(['report', 's-run-1', '--output', path.join(dir, 'b.html'), ...flows]);
    expect([a.code, b.code]).toEqual([0, 0]);
    // The same page but for the time it was made.
    const page = (f: string) => readFileSync(path.join(dir, f), 'utf8').replace(/"generated":"[^"]*"/, '"generated":"…"');
    expect(page('a.html')).toContain('s-run-1');
    expect(page('b.html')).toBe(page('a.html'));
    // Still required: neither spelling given is a usage error naming the shared one.
    const none = await run(['report', 's-run-1', ...flows]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--out <file>/);
  });
});
