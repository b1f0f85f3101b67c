// vitest setup file (runs in the worker before each test file): gives the file a temp directory of its own inside the
// run's (tests/support/temp-dir-global-setup.ts) and, after the file's own afterAll hooks, removes what the file left
// there and fails the file, naming it. Set at import time, before the test file is imported, so its top-level
// tmpdir() calls see it too.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';

const runDir = process.env.NAVKERNEL_TEST_RUN_DIR;
if (runDir) {
  const own = mkdtempSync(path.join(runDir, 'file-'));
  chmodSync(own, 0o711); // traversable by the PostgreSQL server's user (see temp-dir-global-setup.ts)
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = own;
  // Registered before the test file's hooks, so it runs after them (vitest runs after-hooks in stack order).
  afterAll(async () => {
    // A process a test stopped without waiting for its exit (kill() returns at once) may still be writing into its
    // folder for a moment (SQLite's -wal, a decisions.jsonl folder); listing before it is gone would race it. Wait
    // until this worker has no running child process left (a safety net of two minutes), then look.
    await childrenGone(120_000);
    const left = readdirSync(own).sort();
    rmSync(own, { recursive: true, force: true });
    if (left.length) throw new Error(`this test file left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temp directory (remove what a test creates, in afterAll/afterEach): ${left.join(', ')}`);
  });
}

/** This process's running child processes (Linux /proc; elsewhere none are known, and the check does not wait). */
function runningChildren(): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${process.pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const pid of children.split(' ').filter(Boolean)) {
      try {
        // A zombie has exited (its parent has not reaped it yet): it writes nothing.
        if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim()[0] !== 'Z') out.push(Number(pid));
      } catch {
        // gone meanwhile
      }
    }
  }
  return out;
}

async function childrenGone(limitMs: number): Promise<void> {
  for (const end = Date.now() + limitMs; runningChildren().length > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
}
