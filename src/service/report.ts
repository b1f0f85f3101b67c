import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NavkernelError, type FlowsList, type RunDetail } from '../contracts/index.js';
import type { FlowSet } from '../kernel/index.js';
import { packageRoot } from '../package-root.js';
import type { ServiceLedger } from './ledger-reader.js';

/** Text placed inside a <script> or <style> element: no sequence in it may close the element early. */
function inert(text: string, tag: 'script' | 'style'): string {
  return text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** The flows list as the API serves it. */
export function flowsList(flows: FlowSet): FlowsList {
  return { flows_hash: flows.hash, flows: [...flows.flows.values()].map((f) => f.def).sort((a, b) => a.flow.localeCompare(b.flow)) };
}

/**
 * The run page of the web UI as one self-contained HTML file (the UI script, Mermaid, uPlot's and the UI's style
 * sheets and the run's data inline; no network needed): for CI artifacts and bug reports.
 */
export async function renderRunReport(ledger: ServiceLedger, flows: FlowSet, run_id: string, options: { uiDir?: string; now?: Date } = {}): Promise<string> {
  const uiDir = options.uiDir ?? path.join(packageRoot(), 'dist', 'ui');
  const read = (f: string) => {
    try {
      return readFileSync(path.join(uiDir, f), 'utf8');
    } catch {
      throw new NavkernelError('UI_NOT_BUILT', `the web UI is not built (${path.join(uiDir, f)} is missing): run \`npm run build\``);
    }
  };
  const pages: RunDetail[] = [];
  for (let after = 0; ; ) {
    const page = await ledger.runDetail(run_id, after, 5000);
    pages.push(page);
    if (page.next_after === null) break;
    after = page.next_after;
  }
  const run: RunDetail = { ...pages[pages.length - 1]!, decisions: pages.flatMap((p) => p.decisions), next_after: null };
  const data = { run, flows: flowsList(flows), generated: (options.now ?? new Date()).toISOString() };
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const title = `navkernel run ${run_id}`.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<style>${inert(read('uPlot.min.css'), 'style')}</style>`,
    `<style>${inert(read('style.css'), 'style')}</style>`,
    `<script>${inert(read('mermaid.min.js'), 'script')}</script>`,
    '</head><body>',
    '<header class="top"><span class="brand">navkernel</span><span>run report</span></header>',
    '<main id="app"></main>',
    `<script>window.__NAVKERNEL_REPORT__ = ${json};</script>`,
    `<script>${inert(read('app.js'), 'script')}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
