import { describe, expect, it } from 'vitest';
import { implNames } from '../../src/navigator/retrieval/evidence/resolvers/impl-members.js';
import { loadedFiles, writeRepo } from './fixture-repo.js';

/**
 * Rust puts a type's methods in `impl` blocks apart from the type, and several impls of one file often define the
 * same method name (`fn flush` of an encoder, a decoder and a buffer). When the issue names the type and the method,
 * the method of the named type's impl is where to look — like a member of a named class in Python.
 */
function codec(): string {
  // Three impls with the same method, bodies alike word for word: only the impl's type tells them apart.
  const body = (n: number) => Array.from({ length: n }, (_, i) => `        let step_${i} = self.pending.len() + ${i};`).join('\n');
  const out = ['//! Frame codecs.', 'use std::io::{self, Write};', '', 'pub struct Encoder { pending: Vec<u8> }', 'pub struct Decoder { pending: Vec<u8> }', 'pub struct Buffer { pending: Vec<u8> }', ''];
  for (const ty of ['Encoder', 'Buffer', 'Decoder']) {
    out.push(ty === 'Buffer' ? `impl Write for ${ty} {` : `impl ${ty} {`);
    out.push('    /// Writes what is pending.', '    pub fn flush(&mut self) -> io::Result<()> {', body(25), '        self.pending.clear();', '        Ok(())', '    }', '');
    out.push('    pub fn reset(&mut self) {', body(10), '    }', '}', '');
  }
  return out.join('\n') + '\n';
}

const REPO = { 'Cargo.toml': '[package]\nname = "frames"\nversion = "0.1.0"\n', 'src/lib.rs': 'pub mod codec;\n', 'src/codec.rs': codec() };
const TASK = 'Calling `flush()` on a `Decoder` loses the last frame\n\nThe pending bytes are cleared before they are read.';

/** 1-based line of the `n`-th occurrence (0-based) of `needle` in the fixture's codec. */
function lineOf(needle: string, n: number): number {
  const lines = codec().split('\n');
  const at = lines.map((l, i) => (l.includes(needle) ? i + 1 : 0)).filter(Boolean);
  return at[n]!;
}

describe('Rust: a method of the named type\'s impl (impl-members)', () => {
  it('ranks `Decoder.flush` above the same-named methods of the other impls, and shows its body', async () => {
    const root = writeRepo(REPO, 'nk-rust-impl-');
    const { outcome } = await loadedFiles(root, TASK, { max_lines: 40 });
    const receipt = outcome.artifacts.context_load_receipt;
    const flushes = receipt.definitions!.filter((d) => d.symbol.endsWith('.flush')).map((d) => d.symbol);
    expect(flushes[0]).toBe('Decoder.flush');
    const ranges = receipt.files_loaded.find((f) => f.path === 'src/codec.rs')!.ranges!;
    const shown = (l: number) => ranges.some(([a, b]) => a <= l && l <= b);
    // The third `self.pending.clear()` is Decoder's (Encoder, Buffer, Decoder in file order).
    expect(shown(lineOf('self.pending.clear()', 2))).toBe(true);
    expect(shown(lineOf('self.pending.clear()', 0))).toBe(false);
  });
});

describe('implNames: the trait and the type of an impl header', () => {
  it('reads inherent and trait impls through generics, paths, lifetimes and where clauses', () => {
    expect(implNames('impl Decoder {')).toEqual({ trait: '', type: 'Decoder' });
    expect(implNames('impl<T: Into<Vec<u8>>> io::Write for Framed<T, Vec<u8>> where T: Send {')).toEqual({ trait: 'Write', type: 'Framed' });
    expect(implNames("impl<'a> Iterator for Iter<'a> {")).toEqual({ trait: 'Iterator', type: 'Iter' });
    expect(implNames('unsafe impl<F: Fn() -> u8> Send for Task<F> {')).toEqual({ trait: 'Send', type: 'Task' });
    expect(implNames("impl<'a, T> From<&'a mut T> for &'a mut crate::buf::Chunk {")).toEqual({ trait: 'From', type: 'Chunk' });
  });
});
