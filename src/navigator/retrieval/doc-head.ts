/**
 * The head of the item a doc comment documents (issue 40, Rust and Go lines). A word window centred in the doc comment
 * written above a Rust or Go item (`/// Returns true if all globs match`, `// Parse reads …`) lies outside that item's
 * range, so it widened to what encloses the comment — an `impl` block or the file, too long to show — and stayed in the
 * prose, leaving out the item's signature and first lines right below it, where a fix to what the comment describes
 * often goes. This gives that window the item's head: its signature and its first few body lines, not the item whole
 * (tried whole, `doc-owner`, a long item spent the lines that held the edit elsewhere), and only from the lines the
 * windows leave (taken with them, a head displaced the next window in a file with a small allowance). Switch: `doc-head`.
 */
import type { Definition } from '../../repomap/outline.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

const LANGUAGES: ReadonlySet<FileLanguage> = new Set<FileLanguage>(['rust', 'go']);

/** Lines of an item's body shown below its signature when a window lands in its doc comment. */
export const DOC_HEAD_BODY_LINES = 5;

/** The smallest definition whose doc comment (the comment lines right above it) holds line `l`, in a Rust or Go file. */
export function documentedAt(defs: readonly Definition[], l: number, language: FileLanguage | undefined): Definition | undefined {
  if (!language || !LANGUAGES.has(language) || ablated('doc-head')) return undefined;
  let best: Definition | undefined;
  for (const d of defs) {
    if (d.kind === 'heading' || !d.doc) continue;
    const [a, b] = d.doc;
    if (b >= d.start || l < a || l > b) continue;
    if (!best || d.end - d.start < best.end - best.start) best = d;
  }
  return best;
}

/**
 * The lines to add for a window centred at line `l` of a Rust or Go file: the documented item's signature and its first
 * DOC_HEAD_BODY_LINES body lines, when `l` lies in that item's doc comment; else none.
 */
export function docHead(defs: readonly Definition[], l: number, language: FileLanguage | undefined): [number, number] | undefined {
  const d = documentedAt(defs, l, language);
  if (!d) return undefined;
  return [d.start, Math.min(d.end, Math.max(d.start, d.header_end) + DOC_HEAD_BODY_LINES)];
}
