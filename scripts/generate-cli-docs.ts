// `npm run docs`: writes docs/cli.md from the command definitions (the drift test compares it with this output).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildProgram } from '../src/cli/main.js';
import { EXIT } from '../src/cli/conventions.js';
import { renderCliReference } from '../src/cli/reference.js';
import { packageRoot } from '../src/package-root.js';

/** docs/cli.md as the commands define it today, independent of this shell's NAVKERNEL_* variables (a token must never reach the docs). */
export async function cliReference(): Promise<string> {
  for (const k of Object.keys(process.env)) if (k.startsWith('NAVKERNEL_')) delete process.env[k];
  return renderCliReference(await buildProgram(), EXIT);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.chdir(packageRoot());
  const file = path.join(packageRoot(), 'docs', 'cli.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, await cliReference());
  console.log(`wrote ${file}`);
}
