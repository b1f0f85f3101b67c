// Temp folders for tests: made under os.tmpdir() (the test file's own directory during `npm test`, see
// temp-dir-per-file.ts) and removed after the test file that made them, by the afterAll hook this module registers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered when a test file first imports this module (at collection), so it runs once the file's tests are done.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder `<tmp>/<prefix>XXXXXX`, removed after the current test file. */
export function tempDir(prefix = 'nk-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
