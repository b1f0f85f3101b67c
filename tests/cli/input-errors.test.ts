// The CLI convention (src/cli/conventions.ts) at the edges a review found uncovered: bad flag values, missing or
// unwritable files, unknown flows, the typo suggester, the fish completion and the wording of validate and route.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { firstSentence, fishQuote } from '../../src/cli/commands/completion.js';
import { prefixSuggestion } from '../../src/cli/conventions.js';
import { runCli, runCliHere } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const step = (step_completed: string, status: string) => JSON.stringify({ run_id: 'e1', flow: 'build', step_completed, status });
const jsonError = (r: { stdout: string }) => (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;

let dir: string;
let ledger: string;
beforeAll(() => {
  dir = tempDir('nk-input-errors-');
  ledger = path.join(dir, 'ledger.sqlite');
  const r = runCli(['route', '--flows', 'charters', '--ledger', ledger], [step('build-step-1', 'VERIFIED'), step('build-step-2', 'UNVERIFIED')].join('\n'));
  expect(r.code).toBe(0);
});

describe('bad flag values are exit 2, INVALID_OPTION, naming the flag', () => {
  it('replay --threads and --max take positive integers only', async () => {
    for (const [flag, value] of [['--threads', 'bad'], ['--threads', '0'], ['--max', 'bad'], ['--max', '-2']] as const) {
      const r = await runCliHere(['replay', 'e1', '--ledger', ledger, `${flag}=${value}`, '--json']);
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(jsonError(r)).toEqual({ code: 'INVALID_OPTION', message: `${flag} must be a positive integer (got ${JSON.stringify(value)})` });
    }
    const text = await runCliHere(['replay', '--all', '--ledger', ledger, '--threads', '0']);
    expect(text.code).toBe(2);
    expect(text.stderr).toBe('navkernel: --threads must be a positive integer (got "0")\n');
    expect((await runCliHere(['replay', 'e1', '--ledger', ledger, '--max', '3'])).code).toBe(0);
  });
});

describe('files named on the command line', () => {
  it('navigate --capsule with a missing file is PATH_NOT_FOUND naming the flag and the file, not INTERNAL', async () => {
    const r = await runCliHere(['navigate', '--capsule', 'nope.json', '--json']);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({ code: 'PATH_NOT_FOUND', message: '--capsule nope.json: no such file' });
    const bad = path.join(dir, 'bad-capsule.json');
    writeFileSync(bad, '{ not json');
    const syntax = await runCliHere(['navigate', '--capsule', bad, '--json']);
    expect(syntax.code).toBe(2);
    expect(jsonError(syntax)).toMatchObject({ code: 'INVALID_CAPSULE', message: expect.stringContaining(`--capsule ${bad}: not valid JSON`) });
  });

  it('report -o into a folder that does not exist is CANNOT_WRITE naming the file', async () => {
    const r = await runCliHere(['report', 'e1', '--ledger', ledger, '-o', '/nonexistent/x.html', '--json']);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({ code: 'CANNOT_WRITE', message: '--out /nonexistent/x.html: cannot write: no such file or folder' });
  });

  it('migrate --from a missing ledger names --from, not --ledger', async () => {
    const r = await runCliHere(['migrate', '--from', path.join(dir, 'nope.sqlite'), '--to', path.join(dir, 'new.sqlite'), '--json']);
    expect(r.code).toBe(2);
    const e = jsonError(r);
    expect(e.code).toBe('LEDGER_NOT_FOUND');
    expect(e.message).toContain('--from');
    expect(e.message).not.toContain('--ledger');
  });

  it('route --flows with a missing folder says so without a stray JSON path; document issues keep theirs', async () => {
    const r = runCli(['route', '--flows', '/nonexistent', '--no-ledger'], step('build-step-1', 'VERIFIED'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('navkernel: /nonexistent: no such file or folder\n');
    const bad = path.join(dir, 'bad-flow.yaml');
    writeFileSync(bad, 'id: x\n');
    const doc = runCli(['route', '--flows', bad, '--no-ledger', '--json'], step('build-step-1', 'VERIFIED'));
    expect(doc.code).toBe(2);
    // The file once, then each issue at its JSON path.
    expect(jsonError(doc)).toMatchObject({ code: 'INVALID_FLOW', message: expect.stringMatching(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\$\\.flow: is required; \\$\\.charter: is required`)) });
  });

  it('validate: a path that does not exist is an input error (exit 2), problems in files a finding (exit 1)', async () => {
    const missing = await runCliHere(['validate', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('navkernel: nope.json: no such file or folder\n');
    expect(jsonError((await runCliHere(['validate', 'nope.json', '--json'])))).toEqual({ code: 'PATH_NOT_FOUND', message: 'nope.json: no such file or folder' });
    const empty = mkdtempSync(path.join(dir, 'empty-'));
    const none = await runCliHere(['validate', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`${empty}: no flow files`);
  });
});

describe('export --flow', () => {
  it('a flow the run never routed in is exit 2 naming the run and its flows', async () => {
    const r = await runCliHere(['export', 'e1', '--jsonl', '--flow', 'nosuch', '--ledger', ledger, '--json']);
    expect(r.code).toBe(2);
    expect(jsonError(r)).toEqual({ code: 'UNKNOWN_FLOW', message: 'run e1 has no flow "nosuch" (its flows: build)' });
    const text = await runCliHere(['export', 'e1', '--jsonl', '--flow', 'nosuch', '--ledger', ledger]);
    expect(text.code).toBe(2);
    expect(text.stderr).toBe('navkernel: run e1 has no flow "nosuch" (its flows: build)\n');
    // A flow of the run with no off-road decision: an empty file, exit 0.
    const known = await runCliHere(['export', 'e1', '--jsonl', '--flow', 'build', '--ledger', ledger]);
    expect(known.code).toBe(0);
  });
});

describe('the typo suggester', () => {
  it('prefers the options the typed name starts', async () => {
    expect(prefixSuggestion('--budget', ['--quiet', '--budget-tokens', '--json'])).toBe('--budget-tokens');
    expect(prefixSuggestion('--budget=5', ['--quiet', '--budget-tokens'])).toBe('--budget-tokens');
    expect(prefixSuggestion('--max', ['--max-lines', '--max-files'])).toBe('one of --max-files, --max-lines');
    expect(prefixSuggestion('--ledgr', ['--ledger'])).toBeUndefined();
  });

  it('navigate --budget suggests --budget-tokens, not --quiet; edit distance still catches the rest', async () => {
    const r = await runCliHere(['navigate', '--budget', 'bad']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("navkernel: unknown option '--budget', did you mean --budget-tokens? (see navkernel navigate --help)\n");
    expect((await runCliHere(['runs', '--ledgr', 'x'])).stderr).toMatch(/did you mean --ledger\?/);
  });
});

describe('wording', () => {
  it('validate of requests alone names the configured flows they were checked against', async () => {
    const req = path.join(dir, 'req.json');
    writeFileSync(req, step('build-step-1', 'VERIFIED'));
    const r = await runCliHere(['validate', req, '--flows', 'charters']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ok: 1 request (against the 7 flows of charters)\n');
    expect((await runCliHere(['validate', 'charters', req])).stdout).toBe('ok: 7 flows, 1 request\n');
  });

  it('route without --llm tells a CLI user how to get tier 3', async () => {
    const r = runCli(['route', '--flows', 'charters', '--no-ledger'], step('build-step-1', 'FAILED'));
    expect(JSON.parse(r.stdout).skipped).toContainEqual({ tier: 3, rule: 'arbiter_unavailable', reason: expect.stringContaining('navkernel route --llm') });
  });
});

describe('fish completion', () => {
  it('keeps whole first sentences (dots in names, parentheses) and quotes them for fish', async () => {
    expect(firstSentence("'normal' (survives a process crash) or 'full' (also a power loss; an fsync per route)")).toBe("'normal' (survives a process crash) or 'full' (also a power loss; an fsync per route)");
    expect(firstSentence("Print a run's decisions.jsonl (seed shape). More.")).toBe("Print a run's decisions.jsonl (seed shape)");
    expect(fishQuote("it's a \\ back")).toBe("'it\\'s a \\\\ back'");
    const fish = (await runCliHere(['completion', 'fish'])).stdout;
    expect(fish).toContain("-l scenario -r -F -d 'demo (default) or harsh (many failures)'");
    expect(fish).toContain(`-l flows -r -F -d 'folder (or file) of flow definitions (env NAVKERNEL_FLOWS, config "flows")'`);
    expect(fish).toContain("-a export -d 'Print or write a run\\'s decisions.jsonl (seed shape), byte for byte");
  });

  it('is a script fish reads, completing options with their descriptions', async () => {
    const probe = spawnSync('fish', ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) return; // fish is not installed here: the text checks above still hold
    const script = path.join(dir, 'navkernel.fish');
    writeFileSync(script, (await runCliHere(['completion', 'fish'])).stdout);
    const r = spawnSync('fish', ['-c', `source ${script}; complete -C 'navkernel demo --sce'`], { encoding: 'utf8' });
    expect(r.stdout).toBe('--scenario\tdemo (default) or harsh (many failures)\n');
  });
});
