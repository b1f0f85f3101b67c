import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { REPORT_FORMATS, type ReportFormat } from '../../contracts/report-formats.js';
import { UsageError } from '../conventions.js';

interface ForensicsCliOptions {
  git?: string;
  as?: ReportFormat;
  pretty?: boolean;
  redact?: boolean;
}

/** `navkernel forensics FILE… [--git DIR] [--as FORMAT]`: one `forensics` object read from real tools' reports. */
export function registerForensicsCommand(program: Command, ctx: CliContext): void {
  program
    .command('forensics')
    .description("Read test reports, linter and compiler output and git state into the `forensics` of a route request (one JSON object on stdout)")
    .argument('[files...]', `reports, each format detected from its content (${REPORT_FORMATS.join(', ')})`)
    .option('--git <dir>', 'also read a git work tree live (git status --porcelain=v2 --branch)')
    .addOption(new Option('--as <format>', 'the format of every file, instead of detecting it').choices([...REPORT_FORMATS]))
    .option('--pretty', 'indent the JSON')
    .option('--no-redact', 'do not redact secrets from what is printed')
    .addHelpText(
      'after',
      '\nExamples:\n  python3 -m pytest --junitxml=junit.xml; navkernel forensics junit.xml --git .\n' +
        '  npx tsc --pretty false > tsc.txt; npx eslint -f json . > eslint.json; navkernel forensics tsc.txt eslint.json\n\n' +
        'Prints {"tests", "lint", "types", "git_status", "failure_signature", "signatures", "read_from"} (what the\n' +
        'reports hold), each summary capped (the totals count everything). A report that cannot be read is\n' +
        'an INVALID_REPORT error naming the file and the problem (exit 2). See docs/forensics.md.',
    )
    .action(async (files: string[], opts: ForensicsCliOptions) => {
      if (!files.length && opts.git === undefined) throw new UsageError('name at least one report file, or --git DIR');
      const { collectForensics } = await import('../../forensics/index.js');
      const forensics = await collectForensics(
        { files, ...(opts.git !== undefined ? { git: opts.git } : {}), ...(opts.as ? { as: opts.as } : {}) },
        opts.redact === false ? { redact: false } : {},
      );
      if (opts.pretty) ctx.write(JSON.stringify(forensics, null, 2) + '\n');
      else ctx.json(forensics);
    });
}
