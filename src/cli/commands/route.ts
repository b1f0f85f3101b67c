import type { Command } from 'commander';
import { ValidationError } from '../../contracts/index.js';
import { EXIT } from '../conventions.js';
import { DocumentSyntaxError, readJsonDocuments } from '../read-documents.js';
import { addRoutingOptions, openRoutingKernel, type RoutingCliOptions } from '../kernel-options.js';

/** `navkernel route`: one decision per input document, answered and flushed as soon as the document is read. */
export function registerRouteCommand(program: Command): void {
  const cmd = program
    .command('route')
    .description('Route step results read from stdin (JSONL, or JSON documents one after another); prints one decision per line')
    .addHelpText('after', '\nExample:\n  echo \'{"run_id":"r1","flow":"build","step_completed":"build-step-1","status":"VERIFIED"}\' | navkernel route --flows charters\n\nA bad document prints one error naming its line and JSON path on stderr and exits 2; documents before it stay routed.');
  addRoutingOptions(cmd).action(async (opts: RoutingCliOptions) => {
    const kernel = await openRoutingKernel(opts);
    try {
      for await (const doc of readJsonDocuments(process.stdin)) {
        try {
          const decision = await kernel.route(doc.value);
          process.stdout.write(JSON.stringify(decision) + '\n');
        } catch (e) {
          if (e instanceof ValidationError) {
            process.stderr.write(`navkernel route: line ${doc.line}: ${e.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}\n`);
            process.exitCode = EXIT.USAGE;
            return;
          }
          throw e;
        }
      }
    } catch (e) {
      if (e instanceof DocumentSyntaxError) {
        process.stderr.write(`navkernel route: ${e.message}\n`);
        process.exitCode = EXIT.USAGE;
        return;
      }
      throw e;
    } finally {
      await kernel.close();
    }
  });
}
