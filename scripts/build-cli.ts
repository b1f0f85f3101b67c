// Builds dist/cli/: the compiled CLI (dist/src/cli/main.js and everything it imports) bundled by esbuild into a few
// ES modules, for `navkernel navigate`, whose warm run is mostly start-up. Node resolves, reads and links every ES
// module on its own (zod alone is 95 of them): one bundle instead of ~170 modules saves ~150 ms of CPU a run.
//
// - Only the pure-JavaScript packages of the navigator's path are inlined (INLINED); every other package stays an
//   import (native better-sqlite3, the grammars' web-tree-sitter, the optional SDKs), so one process never holds two
//   copies of a package another one hands objects to.
// - `import.meta.url` in each compiled module is rewritten to that module's own URL in dist/src (computed from the
//   bundle's location), so worker files, the extras module, createRequire and the package root resolve as they do
//   unbundled.
// - Commands stay lazy: each dynamic import becomes a chunk of its own (splitting).
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

/** Packages copied into the bundle: pure JavaScript, loaded by every navigation, never shared with an external package. */
export const INLINED = new Set(['zod', 'xstate', 'commander', 'ignore', 'picomatch', 'stemmer']);

const root = process.cwd();
const dist = path.join(root, 'dist');
const out = path.join(dist, 'cli');

const ZOD_CLASSIC = realpathSync(path.join(root, 'node_modules', 'zod', 'v4', 'classic', 'external.js'));

const packageOf = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

const plugin: Plugin = {
  name: 'navkernel-cli',
  setup(b) {
    // Bare imports: inlined when listed, else left to Node at run time.
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      return INLINED.has(packageOf(args.path)) ? undefined : { external: true };
    });
    // Each compiled module keeps its own URL: relative to the chunk it ends up in (every chunk is in `out`).
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      // zod's own modules, not its `z` object: a namespace import lets the bundler leave out what no schema uses.
      text = text.replaceAll("import { z } from 'zod';", `import * as z from ${JSON.stringify(ZOD_CLASSIC)};`);
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const rel = path.relative(out, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [path.join(dist, 'src', 'cli', 'main.js')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: out,
  chunkNames: 'chunk-[hash]',
  // CommonJS packages (picomatch, ignore) call require() for Node's modules.
  banner: { js: "import { createRequire as __nkCreateRequire } from 'node:module'; const require = __nkCreateRequire(import.meta.url);" },
  plugins: [plugin],
  legalComments: 'none',
  logLevel: 'warning',
});
console.log(`bundled the CLI into ${path.relative(root, out)}`);
