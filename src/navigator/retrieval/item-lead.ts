import type { Definition } from '../../repomap/outline.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';

/**
 * The lines that belong to a Rust item though its syntax node leaves them out: the doc comment and the attributes
 * (`#[derive(…)]`, `#[cfg(…)]`, `#[inline]`) written above it, and the header of the impl, trait or module it sits in.
 * A fix to an item often changes these too (the documented behaviour, a derive, a cfg gate), so when an item is shown
 * whole, they are shown with it (switch: item-lead).
 */

/** A doc comment longer than this is shown by its first DOC_HEAD lines (the summary) only. */
export const LEAD_MAX_LINES = 8;
export const DOC_HEAD = 3;

const ATTRIBUTE = /^\s*#!?\[/;

/** Ranges [first, last] (1-based) to show with definition `def`, or none when the rule does not apply. */
export function itemLead(def: Definition, defs: readonly Definition[], lines: readonly string[], language: FileLanguage | undefined): [number, number][] {
  if (language !== 'rust' || ablated('item-lead')) return [];
  const out: [number, number][] = [];
  // Attributes directly above the item (between its doc comment, if any, and its first line).
  let top = def.start;
  while (top > 1 && ATTRIBUTE.test(lines[top - 2]!)) top--;
  if (top < def.start) out.push([top, def.start - 1]);
  if (def.doc && def.doc[1] < def.start) {
    const [a, b] = def.doc;
    out.push(b - a + 1 <= LEAD_MAX_LINES ? [a, b] : [a, a + DOC_HEAD - 1]);
  }
  // The header of the enclosing impl/trait/module: which type a method belongs to.
  const parent = def.parent === null ? undefined : defs[def.parent];
  if (parent && parent.kind !== 'heading') out.push([parent.start, Math.min(parent.header_end, parent.start + 2)]);
  return out;
}
