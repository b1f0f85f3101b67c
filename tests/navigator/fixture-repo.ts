import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { navigate, type NavigationOutcome } from '../../src/navigator/index.js';
import { tempDir } from '../support/temp.js';

/** Writes a small repository (path → content) into a fresh temp folder, removed after the test file. */
export function writeRepo(files: Record<string, string>, prefix = 'nk-fx-'): string {
  const root = tempDir(prefix);
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return root;
}

/** Navigates `task` in `root` without a cache; the files loaded, in the order given. */
export async function loadedFiles(root: string, task: string, budget: { max_files?: number; max_lines?: number } = {}): Promise<{ files: string[]; outcome: NavigationOutcome }> {
  const outcome = await navigate({ task, repo_root: root, budget: { max_files: budget.max_files ?? 8, max_lines: budget.max_lines ?? 400 } }, { cacheDir: false });
  return { files: outcome.artifacts.context_load_receipt.files_loaded.map((f) => f.path), outcome };
}

/** `n` filler source files that share the everyday words of a task, so the fixture is not tiny (the compression gate). */
export function filler(dir: string, ext: string, n: number, body: (i: number) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${dir}/part${i}.${ext}`] = body(i);
  return out;
}
