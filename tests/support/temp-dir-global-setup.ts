// vitest global setup: every test run gets a temp directory of its own, and a test file that leaves anything in it fails.
//
// The run's directory (`<os tmp>/navkernel-test-run-*`) becomes TMPDIR (TMP, TEMP) for the forked workers and every
// process they start (the CLI, `serve`, Chromium), so os.tmpdir() points into it. Each test file gets a subdirectory of
// its own (tests/support/temp-dir-per-file.ts, a setup file); after the file's own afterAll hooks, whatever is still
// there is removed and the file fails, naming it. This teardown removes the run's directory and reports anything left
// outside the files' directories. A per-run directory, not a before/after listing of the OS temp directory: other
// processes (another checkout's test run, a build) write there at the same time, and a listing cannot tell their
// folders from ours.
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const runDir = mkdtempSync(path.join(tmpdir(), 'navkernel-test-run-'));
  // Traversable by other users (not listable): scripts/with-postgres.sh runs the server as another user, with its
  // socket in a folder it makes under TMPDIR.
  chmodSync(runDir, 0o711);
  const saved = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = runDir;
  process.env.NAVKERNEL_TEST_RUN_DIR = runDir;
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    // Never throws: vitest would skip the teardowns after this one (the PostgreSQL server's).
    const stray = readdirSync(runDir).filter((e) => !e.startsWith('file-'));
    if (stray.length) {
      process.exitCode = 1;
      console.error(`tests left files in the temp directory outside any test file's directory: ${stray.sort().join(', ')}`);
    }
    rmSync(runDir, { recursive: true, force: true });
  };
}
