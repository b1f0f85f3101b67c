import { describe, expect, it } from 'vitest';
import { importStatements } from '../../src/navigator/retrieval/import-lines.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import type { Definition } from '../../src/repomap/index.js';

// Rust `use` declarations are import statements (issue 40, switch `rust-use`): a Rust fix that calls something new
// adds to them, as in the other languages. Fails with NAVKERNEL_ABLATE=rust-use (Rust files then have no imports).

const names = (st: { names: Map<string, number> }) => Object.fromEntries(st.names);

describe('Rust use declarations', () => {
  it('reads paths, nested groups over lines, aliases, self, globs, pub(crate) and extern crate', () => {
    const src = [
      '//! Crate doc.',
      'use std::io;',
      'use std::fmt::{self, Display as Show};',
      'pub(crate) use crate::walk::{',
      '    queue::{bounded, Receiver},',
      '    WalkState, // the state',
      '};',
      'use super::*;',
      'extern crate alloc as heap;',
      '#[cfg(feature = "std")]',
      'use std::sync::Arc;',
      '',
      'fn main() {',
      '    use inner::Thing;',
      '}',
    ];
    const sts = importStatements('rust', src);
    expect(sts.map((s) => [s.start, s.end])).toEqual([[2, 2], [3, 3], [4, 7], [8, 8], [9, 9], [11, 11]]);
    expect(sts.map(names)).toEqual([{ io: 2 }, { fmt: 3, Show: 3 }, { bounded: 5, Receiver: 5, WalkState: 6 }, {}, { heap: 9 }, { Arc: 11 }]);
  });

  it('shows the use lines binding the names a shown Rust window uses', () => {
    // 7 use lines, then a 40-line function whose matched window calls `unbounded` (bound on line 4) and not `Duration`.
    const lines = ['use std::path::Path;', 'use std::time::Duration;', 'use crossbeam_channel::{', '    unbounded, Receiver,', '};', 'use crate::config::Config;', 'use crate::error::Error;', ''];
    lines.push('pub fn scan(config: &Config) {');
    for (let l = 10; l <= 48; l++) lines.push(l === 30 ? '    let (tx, rx) = unbounded(); // the walker queue' : `    let step_${l} = ${l};`);
    lines.push('}');
    const text = `${lines.join('\n')}\n`;
    const defs: Definition[] = [{ name: 'scan', kind: 'function', start: 9, end: 49, header_end: 9, doc: null, parent: null }];
    const sel = selectLines(text, defs, new Map([['walker', 2]]), 30, [], 'rust');
    expect(sel.lines).toContain(30);
    expect(sel.lines).toContain(3);
    expect(sel.lines).toContain(4);
    expect(sel.lines).not.toContain(2);
    expect(sel.lines.length).toBeLessThanOrEqual(30);
  });
});
