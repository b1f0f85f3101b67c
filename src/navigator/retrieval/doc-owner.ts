/**
 * The definition a doc comment documents (issue 40, Rust and Go lines). A word window centred in the doc comment
 * written above a Rust or Go item (`/// Returns true if all globs match`, `// Parse reads …`) lies outside that item's
 * range, so the window was widened to what encloses the comment — an `impl` block or the file, too long to show — and
 * stayed in the prose, while the item's code right below it, what a fix changes, was left out. This names the item the
 * comment documents, so the window widens to it instead. Switch: `doc-owner`.
 */
import type { Definition } from '../../repomap/outline.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

const LANGUAGES: ReadonlySet<FileLanguage> = new Set<FileLanguage>(['rust', 'go']);

/** The smallest definition whose doc comment (the comment lines right above it) holds line `l`, in a Rust or Go file. */
export function documentedAt(defs: readonly Definition[], l: number, language: FileLanguage | undefined): Definition | undefined {
  if (!language || !LANGUAGES.has(language) || ablated('doc-owner')) return undefined;
  let best: Definition | undefined;
  for (const d of defs) {
    if (d.kind === 'heading' || !d.doc) continue;
    const [a, b] = d.doc;
    if (b >= d.start || l < a || l > b) continue;
    if (!best || d.end - d.start < best.end - best.start) best = d;
  }
  return best;
}
