import { describe, expect, it } from 'vitest';
import { extractOutline } from '../../src/repomap/outline.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';

// A word window centred in the doc comment above a Rust or Go item also shows that item's signature and first body
// lines (issue 40, switch `doc-head`): the comment lies outside the item's range, so the window used to widen to the
// long `impl` (or file) around it and stay in the prose. Only the item's head is added, not a long item whole.
// Both cases fail with NAVKERNEL_ABLATE=doc-head.

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

function rustSet(): string {
  const lines = ['pub struct Set {', '    strats: Vec<Strategy>,', '}', '', 'impl Set {'];
  for (let i = 0; i < 12; i++) lines.push(`    /// Helper number ${i}.`, `    pub fn count${i}(&self) -> usize {`, `        self.strats.len() + ${i}`, '    }', '');
  lines.push(
    '    /// Returns true if all globs in this set match the candidate given.',
    '    ///',
    '    /// This will return true if the set of globs is empty, as in that case all',
    '    /// `0` of the globs will match the candidate.',
    '    ///',
    '    /// Strategies are tried in the order they were added to the builder; the',
    '    /// first that rejects the path ends the search, so cheap strategies should',
    '    /// come first. Literal strategies are always cheap, suffix strategies too.',
    '    pub fn all_match_candidate(&self, path: &Candidate) -> bool {',
    '        if self.strats.len() == 0 {',
    '            return true;',
    '        }',
  );
  // A long body: the item is too long to show whole in the allowance.
  for (let i = 0; i < 40; i++) lines.push(`        let step${i} = self.strats.get(${i}).map(|s| s.weight()).unwrap_or(0);`);
  lines.push('        true', '    }', '');
  for (let i = 12; i < 24; i++) lines.push(`    /// Helper number ${i}.`, `    pub fn size${i}(&self) -> usize {`, `        self.strats.len() * ${i}`, '    }', '');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

describe('the head of the item a doc comment documents (doc-head)', () => {
  it('a Rust window in a method doc comment inside a long impl shows the method signature and first body lines, not the whole method', async () => {
    const text = rustSet();
    const { defs } = await extractOutline('rust', text);
    const weights = new Map([['glob', 3], ['empti', 2], ['candid', 1]]);
    const sel = selectLines(text, defs, weights, 40, [], 'rust');
    expect(sel.lines).toContain(lineOf(text, 'pub fn all_match_candidate'));
    expect(sel.lines).toContain(lineOf(text, 'if self.strats.len() == 0'));
    expect(sel.lines).not.toContain(lineOf(text, 'let step39 ='));
    expect(sel.lines.length).toBeLessThanOrEqual(40);
  });

  it('the head takes only the lines the windows leave: a small allowance keeps the second window the words chose', async () => {
    const lines = ['pub struct Set {', '    strats: Vec<Strategy>,', '}', '', 'impl Set {'];
    lines.push(
      '    /// Returns true if all globs in this set match the candidate given.',
      '    ///',
      '    /// The candidate is matched against every glob of the set in turn.',
      '    ///',
      '    /// Strategies are tried in the order they were added to the builder; the',
      '    /// first that rejects the path ends the search, so cheap strategies should',
      '    /// come first. Literal strategies are always cheap, suffix strategies too.',
      '    pub fn all_match_candidate(&self, path: &Candidate) -> bool {',
    );
    for (let i = 0; i < 30; i++) lines.push(`        let step${i} = self.strats.get(${i}).map(|s| s.weight()).unwrap_or(0);`);
    lines.push('        true', '    }', '', '    pub fn reset(&mut self) {');
    for (let i = 0; i < 30; i++) lines.push(`        self.strats[${i}].clear_cache();`);
    lines.push('        let globs_left = self.candidate_globs();', '        self.strats.retain(|s| globs_left.contains(s));');
    for (let i = 30; i < 60; i++) lines.push(`        self.strats[${i}].clear_cache();`);
    lines.push('    }', '}');
    const text = `${lines.join('\n')}\n`;
    const { defs } = await extractOutline('rust', text);
    const sel = selectLines(text, defs, new Map([['glob', 3], ['candid', 2]]), 16, [], 'rust');
    expect(sel.lines).toContain(lineOf(text, 'let globs_left'));
    expect(sel.lines.length).toBeLessThanOrEqual(16);
  });

  it('a Go window in the doc comment above a long function shows its signature and first lines', async () => {
    const go = ['package glob', '', 'type Set struct {', '\tstrats []Strategy', '}', ''];
    for (let i = 0; i < 20; i++) go.push(`// Size${i} is a helper.`, `func Size${i}() int {`, `\treturn ${i}`, '}', '');
    go.push('// AllMatch reports whether all globs in this set match the candidate given.', '// An empty set of globs matches every candidate.');
    for (let i = 0; i < 6; i++) go.push(`// Note ${i} on how strategies are tried in order.`);
    go.push('func (s *Set) AllMatch(c Candidate) bool {', '\tif len(s.strats) == 0 {', '\t\treturn true', '\t}');
    for (let i = 0; i < 40; i++) go.push(`\tstep${i} := s.weight(${i})`);
    go.push('\treturn true', '}', '');
    for (let i = 20; i < 40; i++) go.push(`// Count${i} is a helper.`, `func Count${i}() int {`, `\treturn ${i}`, '}', '');
    const text = `${go.join('\n')}\n`;
    const { defs } = await extractOutline('go', text);
    const sel = selectLines(text, defs, new Map([['glob', 3], ['empti', 2]]), 40, [], 'go');
    expect(sel.lines).toContain(lineOf(text, 'if len(s.strats) == 0'));
    expect(sel.lines).not.toContain(lineOf(text, 'step39 :='));
  });
});
