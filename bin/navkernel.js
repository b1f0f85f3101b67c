#!/usr/bin/env node
// The `navkernel` command: runs the compiled CLI (built by `npm ci` / `npm run build` into dist/).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The fast path: no commander, no command module.
  const { VERSION } = await import('../dist/src/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  await run();
}

async function run() {
  const { main } = await import('../dist/src/cli/main.js');

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
}
