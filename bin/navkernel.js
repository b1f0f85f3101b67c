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
  // Node >= 22.1 keeps V8's compiled code of the modules on disk between runs (a no-op where it is missing).
  const { enableCompileCache } = await import('node:module');
  enableCompileCache?.();
  const module = await cliModule();
  // `navigate` is handed to the resident navigator of this build when one listens (see src/cli/resident/client.ts).
  let startAfter;
  if (args.find((a) => !a.startsWith('-')) === 'navigate') {
    const resident = await import('../dist/src/cli/resident/client.js').catch(() => undefined);
    // Anything unexpected on the way (an unreadable working directory, a capsule that vanished) means: run here.
    // When none listens, one is started and given this call, unless this process would show progress (a terminal).
    const handoff = await resident?.handOff(args, module, process.env, { startFirst: !process.stderr.isTTY }).catch(() => undefined);
    if (handoff && 'exit' in handoff) {
      // A call that failed on its input leaves no resident it started behind.
      if (handoff.started && handoff.exit === 2) await resident.stopResident(handoff.socket).catch(() => undefined);
      process.exitCode = handoff.exit;
      return;
    }
    if (handoff && 'failed' in handoff && handoff.failed === 'absent' && !handoff.started) startAfter = () => resident.startResident(handoff.socket, module);
  }
  const { main } = await import(module);

  // A reader that stops early (`navkernel route | head`) is not an error.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  main(process.argv).then(
    (code) => {
      process.exitCode = code;
      // No resident answered a call that navigated (not an input error): one is started for the next call; it exits when idle.
      if (code !== 2) startAfter?.();
    },
    (err) => {
      process.stderr.write(`navkernel: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}

/**
 * The compiled CLI. `navigate` runs from the bundled copy in dist/cli/ when the build made one (see
 * scripts/build-cli.ts: a few modules to load instead of ~170, most of a warm navigation's start-up) and it is not
 * older than dist/src/ (a `tsc` run after the last full build); every other command, and navigate otherwise,
 * from dist/src/.
 */
async function cliModule() {
  const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
  const command = process.argv.slice(2).find((a) => !a.startsWith('-'));
  if (command === 'navigate') {
    const bundled = new URL('../dist/cli/main.js', import.meta.url);
    const { statSync } = await import('node:fs');
    const mtime = (u) => statSync(u, { throwIfNoEntry: false })?.mtimeMs;
    const b = mtime(bundled);
    if (b !== undefined && b >= (mtime(compiled) ?? Infinity)) return bundled.href;
  }
  return compiled.href;
}
