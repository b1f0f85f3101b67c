// Builds the web UI of `navkernel serve` into dist/ui: app.js (the UI and uPlot, bundled by esbuild), the page,
// its style sheet, and Mermaid's own browser build. Everything is local: the UI works offline (no CDN).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const root = process.cwd();
const src = path.join(root, 'src', 'service', 'ui');
const out = path.join(root, 'dist', 'ui');
const require = createRequire(import.meta.url);
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(src, 'app.ts')],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  minify: true,
  outfile: path.join(out, 'app.js'),
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(path.join(src, 'index.html'), path.join(out, 'index.html'));
copyFileSync(path.join(src, 'style.css'), path.join(out, 'style.css'));
copyFileSync(path.join(path.dirname(require.resolve('mermaid/package.json')), 'dist', 'mermaid.min.js'), path.join(out, 'mermaid.min.js'));
copyFileSync(path.join(path.dirname(require.resolve('uplot/package.json')), 'dist', 'uPlot.min.css'), path.join(out, 'uPlot.min.css'));
console.log(`built the web UI into ${path.relative(root, out)}`);
