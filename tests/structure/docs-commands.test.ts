// Every `navkernel …` command quoted in the README, examples/README.md and docs/ names a command the CLI has and
// only options that command takes, so the docs cannot drift from the program (docs/cli.md is generated from it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORMER_SPELLINGS, GROUPS, buildProgram } from '../../src/cli/main.js';
import { describeCommands, type CommandInfo } from '../../src/cli/reference.js';
import { BIN, runCli } from '../support/cli.js';
import { ROOT } from '../support/kernel-fixtures.js';

const DOCS = [
  'README.md',
  'examples/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'cli.md')
    .map((f) => `docs/${f}`),
];

/** One quoted command: where it stands, the command (one word, or a noun group and its command) and the long options written after it. */
interface Quoted {
  where: string;
  command: string;
  options: string[];
}

/** The noun groups' words (`runs`, `ledger`, `flows`): a quoted command starting with one names two words. */
const GROUP_WORDS = new Set(Object.keys(GROUPS));

/** The code of a Markdown text: fenced blocks and inline code spans, each with the line it starts on. */
export function codeOf(text: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = text.split('\n');
  let fence: string[] | null = null;
  let fenceStart = 0;
  lines.forEach((l, i) => {
    if (/^\s*```/.test(l)) {
      if (fence) {
        out.push({ line: fenceStart, code: fence.join('\n') });
        fence = null;
      } else {
        fence = [];
        fenceStart = i + 1;
      }
      return;
    }
    if (fence) fence.push(l);
    else for (const m of l.matchAll(/`([^`]+)`/g)) out.push({ line: i + 1, code: m[1]! });
  });
  return out;
}

/** `navkernel <command> …` invocations in a piece of code, cut where another command starts (a pipe, `&&`, `;`). */
export function quotedCommands(code: string, where: string): Quoted[] {
  const found: Quoted[] = [];
  for (const raw of code.split('\n')) {
    // `\|` is a pipe escaped inside a Markdown table cell, i.e. an alternative, not a shell pipe.
    const line = raw.replace(/\\\|/g, ' ');
    for (const segment of line.split(/\s\|\s|&&|;|\$\(|\)\s*$/)) {
      const m = /(?:^|[\s(])navkernel\s+([a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?(.*)$/.exec(segment);
      if (!m) continue;
      // `navkernel runs replay`: two words; `navkernel runs --json`: the group's default command.
      const grouped = GROUP_WORDS.has(m[1]!);
      const command = grouped ? `${m[1]} ${m[2] ?? GROUPS[m[1]!]!.default ?? ''}`.trim() : m[1]!;
      const rest = grouped || m[2] === undefined ? m[3]! : ` ${m[2]}${m[3]}`;
      const options = [...rest.matchAll(/(?:^|[\s[])(--[a-z][a-z0-9-]*)/g)].map((o) => o[1]!);
      found.push({ where, command, options });
    }
  }
  return found;
}

describe('commands quoted in the docs', () => {
  let commands: Map<string, CommandInfo>;
  const quoted: Quoted[] = [];
  beforeAll(async () => {
    const program = await buildProgram();
    commands = new Map(describeCommands(program).map((c) => [c.name, c]));
    for (const doc of DOCS) {
      for (const { line, code } of codeOf(readFileSync(path.join(ROOT, doc), 'utf8'))) quoted.push(...quotedCommands(code, `${doc}:${line}`));
    }
  });

  it('finds the quoted commands (the parser itself works on a sample)', () => {
    expect(quotedCommands('npx navkernel runs audit RUN --why STEP --json | jq . && navkernel runs && navkernel route --llm x', 'x')).toEqual([
      { where: 'x', command: 'runs audit', options: ['--why', '--json'] },
      { where: 'x', command: 'runs list', options: [] },
      { where: 'x', command: 'route', options: ['--llm'] },
    ]);
    expect(quotedCommands('navkernel route [--ledger FILE \\| --no-ledger]', 'x')[0]!.options).toEqual(['--ledger', '--no-ledger']);
    expect(quoted.length).toBeGreaterThan(30);
  });

  it('every quoted command exists and takes every option quoted with it', () => {
    const wrong: string[] = [];
    for (const q of quoted) {
      const c = commands.get(q.command);
      if (q.command in FORMER_SPELLINGS) {
        wrong.push(`${q.where}: navkernel ${q.command}: the former spelling of navkernel ${FORMER_SPELLINGS[q.command]} ${q.command}`);
        continue;
      }
      if (!c) {
        wrong.push(`${q.where}: navkernel ${q.command}: no such command`);
        continue;
      }
      const longs = new Set(c.options.flatMap((o) => (o.long ? [o.long] : [])).concat('--help', '--version'));
      for (const o of q.options) if (!longs.has(o)) wrong.push(`${q.where}: navkernel ${q.command} has no option ${o}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every command quoted in the README answers --help', () => {
    const inReadme = [...new Set(quoted.filter((q) => q.where.startsWith('README.md')).map((q) => q.command))];
    expect(inReadme.length).toBeGreaterThan(3);
    for (const name of inReadme) expect(runCli([...name.split(' '), '--help']).code, name).toBe(0);
  });

  it("the README's co-process example routes as it says, from an empty folder (the sample flows, a ledger under runs/)", () => {
    const block = codeOf(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).find((c) => /\|\s*npx navkernel route/.test(c.code));
    expect(block).toBeDefined();
    const cwd = mkdtempSync(path.join(tmpdir(), 'nk-readme-'));
    try {
      const script = block!.code.replace(/npx navkernel/g, `"${process.execPath}" "${BIN}"`);
      const r = spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'CONTINUE', next_step_id: 'build-step-2', tier: 1 });
      expect(readdirSync(path.join(cwd, 'runs'))).toContain('ledger.sqlite');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
