#!/usr/bin/env node
// The `navkernel` command: runs the compiled CLI (built by `npm ci` / `npm run build` into dist/).
import { main } from '../dist/src/cli/main.js';

// A reader that stops early (`navkernel route | head`) is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`navkernel: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
