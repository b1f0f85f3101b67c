import { describe, expect, it } from 'vitest';
import { extractOutline } from '../../src/repomap/outline.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';

// A word window centred in the doc comment above a Rust or Go item widens to that item (issue 40, switch `doc-owner`):
// the comment lies outside the item's range, so the window used to widen to the long `impl` around it and stay in the
// prose, leaving out the item's code right below, what a fix changes. Fails with NAVKERNEL_ABLATE=doc-owner.

const filler = (name: string, i: number) => [`    /// Helper number ${i}.`, `    pub fn ${name}${i}(&self) -> usize {`, `        self.strats.len() + ${i}`, '    }', ''];

function rustSet(): string {
  const lines = ['pub struct Set {', '    strats: Vec<Strategy>,', '}', '', 'impl Set {'];
  for (let i = 0; i < 12; i++) lines.push(...filler('count', i));
  lines.push(
    '    /// Returns true if all globs in this set match the candidate given.',
    '    ///',
    '    /// This will return true if the set of globs is empty, as in that case all',
    '    /// `0` of the globs will match the candidate.',
    '    pub fn all_match_candidate(&self, path: &Candidate) -> bool {',
    '        for strat in &self.strats {',
    '            if !strat.is_match(path) {',
    '                return false;',
    '            }',
    '        }',
    '        true',
    '    }',
    '',
  );
  for (let i = 12; i < 24; i++) lines.push(...filler('size', i));
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

describe('the item a doc comment documents (doc-owner)', () => {
  it('a Rust window in a method doc comment inside a long impl shows the method body below it', async () => {
    const text = rustSet();
    const { defs } = await extractOutline('rust', text);
    const body = text.split('\n').findIndex((l) => l.includes('strat.is_match(path)')) + 1;
    const weights = new Map([['glob', 3], ['empti', 2], ['candid', 1]]);
    const sel = selectLines(text, defs, weights, 40, [], 'rust');
    expect(sel.lines).toContain(body);
    expect(sel.lines.length).toBeLessThanOrEqual(40);
  });

  it('a Go window in the doc comment above a function shows the function whole when it fits', async () => {
    const go = ['package glob', '', 'type Set struct {', '\tstrats []Strategy', '}', ''];
    go.push('// AllMatch reports whether all globs in this set match the candidate given.', '// An empty set of globs matches every candidate.');
    for (let i = 0; i < 6; i++) go.push(`// Note ${i} on how strategies are tried in order.`);
    go.push('func (s *Set) AllMatch(c Candidate) bool {', '\tfor _, st := range s.strats {', '\t\tif !st.IsMatch(c) {', '\t\t\treturn false', '\t\t}', '\t}', '\treturn true', '}', '');
    for (let i = 0; i < 30; i++) go.push(`// Size${i} is a helper.`, `func Size${i}() int {`, `\treturn ${i}`, '}', '');
    const text = `${go.join('\n')}\n`;
    const { defs } = await extractOutline('go', text);
    const body = text.split('\n').findIndex((l) => l.includes('st.IsMatch(c)')) + 1;
    const sel = selectLines(text, defs, new Map([['glob', 3], ['empti', 2]]), 40, [], 'go');
    expect(sel.lines).toContain(body);
  });
});
