import { describe, expect, it } from 'vitest';
import { extractOutline } from '../../src/repomap/index.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { itemLead } from '../../src/navigator/retrieval/item-lead.js';

// An item's doc comment, attributes and enclosing impl header are shown with it (item-lead): a fixture of our own.

const SOURCE = [
  'use std::fmt;', // 1
  '', // 2
  'pub struct Ring {', // 3
  '    slots: Vec<u32>,', // 4
  '}', // 5
  '', // 6
  'impl Ring {', // 7
  '    /// Wraps the cursor back to the first slot.', // 8
  '    ///', // 9
  '    /// Returns the slot index after wrapping.', // 10
  '    #[inline]', // 11
  '    #[must_use]', // 12
  '    pub fn wrap_cursor(&self, cursor: usize) -> usize {', // 13
  '        let width = self.slots.len();', // 14
  '        cursor % width', // 15
  '    }', // 16
  ...Array.from({ length: 40 }, (_, i) => `    pub fn filler_${i}(&self) -> u32 { ${i} }`), // 17..56
  '}', // 57
  '',
].join('\n');

const WEIGHTS = new Map([
  ['wrap', 3],
  ['cursor', 3],
  ['width', 2],
]);

describe('item lead lines (Rust)', () => {
  it('shows the doc comment, the attributes and the impl header of a method shown whole', async () => {
    const { defs } = await extractOutline('rust', SOURCE);
    const sel = selectLines(SOURCE, defs, WEIGHTS, 30, [], 'rust');
    // The method itself, whole.
    for (let l = 13; l <= 16; l++) expect(sel.lines).toContain(l);
    // Its doc comment and attributes, which its syntax node leaves out.
    for (const l of [8, 9, 10, 11, 12]) expect(sel.lines).toContain(l);
    // The impl it belongs to.
    expect(sel.lines).toContain(7);
  });

  it('shows only the summary of a long doc comment, and nothing for other languages', async () => {
    const long = SOURCE.replace('    ///\n', `${'    /// more prose\n'.repeat(12)}`);
    const { defs } = await extractOutline('rust', long);
    const method = defs.find((d) => d.name === 'wrap_cursor')!;
    const lines = long.split('\n');
    const lead = itemLead(method, defs, lines, 'rust');
    const docStart = method.doc![0];
    expect(lead).toContainEqual([docStart, docStart + 2]);
    expect(lead.some(([a, b]) => a <= method.start - 1 && method.start - 1 <= b)).toBe(true); // the attributes
    expect(itemLead(method, defs, lines, 'go')).toEqual([]);
  });
});
