/**
 * The subcommand a report's shell command line runs: `$ git archive -o out.zip v2.0` → `archive`, `$ tool -C dir
 * fast-export --all` → `fast-export`. A C program with subcommands dispatches them through a table pairing the word
 * with its function (`{ "archive", cmd_archive }`), so the word is a name the code registers, looked up like a name
 * written as code (c-tables.ts). Only lines that start with a prompt (`$ `) are commands; the first argument after the
 * program that is neither a flag nor a path nor a quoted value is the subcommand. A session running several subcommands
 * (`init`, `tag`, then `show`) reproduces a state step by step and does not say which one fails (on our own git reports
 * the setup steps' functions outranked the fix's file): only a report whose prompt lines run one subcommand gives it.
 * Pure: reads the text only.
 * Switch: NAVKERNEL_ABLATE=c-command-lines.
 */
import { ablated } from '../ablation.js';
import type { IssueSegment } from './read-issue.js';

const PROMPT_LINE = /^[ \t]*\$[ \t]+(\S.*)$/gm;

/** The subcommand of the segments' prompt lines when they all run the same one (none, else). */
export function commandLineWords(segments: readonly IssueSegment[]): string[] {
  if (ablated('c-command-lines')) return [];
  const out: string[] = [];
  for (const seg of segments) {
    for (const m of seg.text.matchAll(PROMPT_LINE)) {
      const args = m[1]!.split(/[ \t]+/);
      // Environment assignments before the program (`LANG=C tool …`), then the program itself.
      let i = 0;
      while (i < args.length && /^\w+=/.test(args[i]!)) i++;
      i++;
      // Global options before the subcommand; an option's separate value cannot be told apart, so a lone `-x` ends the search.
      while (i < args.length && /^--?[\w-]+=/.test(args[i]!)) i++;
      const word = args[i];
      if (word === undefined || !/^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/.test(word) || word.length < 3) continue;
      if (!out.includes(word)) out.push(word);
      if (out.length > 1) return [];
    }
  }
  return out;
}
