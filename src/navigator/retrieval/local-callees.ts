import type { Definition } from '../../repomap/outline.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

/**
 * In C and C++ a function's work is often done by small static helpers defined beside it in the same file (a fix
 * to `gmatch` lands in the `prepstate` it calls). When a function is shown whole, the small functions of the same
 * file it calls are shown too, in the order it first calls them (switch: local-callees).
 */

/** Helpers shown per function, at most. */
export const LOCAL_CALLEES = 2;
/** A helper longer than this is not shown (a large callee is its own window's business). */
export const LOCAL_CALLEE_MAX_LINES = 15;

const LANGUAGES: ReadonlySet<FileLanguage> = new Set(['c', 'cpp', 'rust']);
const CALL = /\b([A-Za-z_]\w*)\s*\(/g;

/** The definitions of the same file that `caller` calls (by name), small enough to show, in the order of their first call. */
export function localCallees(caller: Definition, defs: readonly Definition[], lines: readonly string[], language: FileLanguage | undefined): Definition[] {
  if (!language || !LANGUAGES.has(language) || ablated('local-callees')) return [];
  const byName = new Map<string, Definition>();
  for (const d of defs) if (d.kind === 'function' && d !== caller && d.end - d.start + 1 <= LOCAL_CALLEE_MAX_LINES && !byName.has(d.name)) byName.set(d.name, d);
  const out: Definition[] = [];
  for (let l = caller.header_end + 1; l <= caller.end && out.length < LOCAL_CALLEES; l++) {
    for (const m of (lines[l - 1] ?? '').matchAll(CALL)) {
      const d = byName.get(m[1]!);
      if (d && !out.includes(d)) out.push(d);
      if (out.length >= LOCAL_CALLEES) break;
    }
  }
  return out;
}
