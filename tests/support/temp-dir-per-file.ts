// vitest setup file (runs in the worker before each test file): gives the file a temp directory of its own inside the
// run's (tests/support/temp-dir-global-setup.ts) and, after the file's own afterAll hooks, removes what the file left
// there and fails the file, naming it. Set at import time, before the test file is imported, so its top-level
// tmpdir() calls see it too.
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';

const runDir = process.env.NAVKERNEL_TEST_RUN_DIR;
if (runDir) {
  const own = mkdtempSync(path.join(runDir, 'file-'));
  chmodSync(own, 0o711); // traversable by the PostgreSQL server's user (see temp-dir-global-setup.ts)
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = own;
  // Registered before the test file's hooks, so it runs after them (vitest runs after-hooks in stack order).
  afterAll(() => {
    const left = readdirSync(own).sort();
    rmSync(own, { recursive: true, force: true });
    if (left.length) throw new Error(`this test file left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temp directory (remove what a test creates, in afterAll/afterEach): ${left.join(', ')}`);
  });
}
