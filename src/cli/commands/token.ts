import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { stringify } from 'yaml';
import { SCOPES, newToken } from '../../service/principals.js';
import { UsageError } from '../conventions.js';

interface TokenOptions {
  scope: string[];
  json?: boolean;
}

/** `navkernel token new NAME --scope S…`: a fresh token, printed once, and the tokens-file entry that admits it. */
export function registerTokenCommand(program: Command, ctx: CliContext): void {
  program
    .command('token')
    .description('Make a bearer token for serve --principals: prints the token once and the principals entry to paste (which holds only its SHA-256)')
    .argument('<action>', 'new')
    .argument('<name>', 'the principal: a person or a runner (letters, digits, _ . @ -)')
    .option('--scope <scope...>', `what it may do: ${SCOPES.join(', ')} (repeatable)`, [])
    .option('--json', 'print {token, entry} as JSON')
    .action((action: string, name: string, opts: TokenOptions) => {
      if (action !== 'new') throw new UsageError(`unknown action ${JSON.stringify(action)}: the only one is \`navkernel token new NAME --scope …\``, 'INVALID_OPTION');
      const { token, entry } = newToken(name, opts.scope.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean));
      if (opts.json) {
        ctx.write(JSON.stringify({ token, entry }) + '\n');
        return;
      }
      ctx.write(`token (shown once; give it to ${name}, keep it out of files and logs):\n  ${token}\n\n`);
      ctx.write(`entry for the tokens file (under principals:):\n${stringify([entry]).replace(/^/gm, '  ').trimEnd()}\n`);
    });
}
