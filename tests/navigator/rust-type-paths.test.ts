import { describe, expect, it } from 'vitest';
import { loadedFiles, writeRepo } from './fixture-repo.js';

// An editor's view keeps a jump list and a history beside it; both (and the document store) define `remove`, and the
// view's long `render` speaks of documents, entries and positions the most. The issue names `JumpList::remove` in
// backticks: the method of that impl is what a fix changes. Without the rule the backticked path is read as a literal
// (found nowhere) and `remove` alone is one of many, so the method is not shown. Fails with
// NAVKERNEL_ABLATE=rust-type-paths (the switch is read at start).
function view(): string {
  const render = Array.from({ length: 60 }, (_, i) => `        let entry_${i} = self.document_position(${i}); // the current entry of the document`).join('\n');
  return [
    'use crate::document::DocumentId;',
    '',
    'pub struct JumpList {',
    '    jumps: Vec<(DocumentId, usize)>,',
    '    current: usize,',
    '}',
    '',
    'impl JumpList {',
    '    pub fn push(&mut self, jump: (DocumentId, usize)) {',
    '        self.jumps.truncate(self.current);',
    '        self.jumps.push(jump);',
    '        self.current = self.jumps.len();',
    '    }',
    '',
    '    pub fn remove(&mut self, doc_id: &DocumentId) {',
    '        self.jumps.retain(|(other, _)| other != doc_id);',
    '    }',
    '}',
    '',
    'pub struct View {',
    '    pub jumps: JumpList,',
    '}',
    '',
    'impl View {',
    '    pub fn render(&self) {',
    render,
    '    }',
    '',
    '    /// The position of the current entry of a document.',
    '    pub fn document_position(&self, entry: usize) -> usize {',
    '        entry + self.jumps.current // the current entry of the document list',
    '    }',
    '}',
    '',
  ].join('\n');
}

const doc = (name: string) =>
  `pub struct ${name} { items: Vec<usize> }\n\nimpl ${name} {\n    /// Removes an entry of the document.\n    pub fn remove(&mut self, entry: usize) {\n        self.items.retain(|e| *e != entry); // the current entry of the document\n    }\n}\n`;

const REPO = {
  'Cargo.toml': '[package]\nname = "editor"\nversion = "0.1.0"\n',
  'src/lib.rs': 'pub mod document;\npub mod history;\npub mod view;\n',
  'src/view.rs': view(),
  'src/document.rs': `pub type DocumentId = usize;\n\n${doc('DocumentStore')}`,
  'src/history.rs': doc('History'),
};
const TASK =
  'adjust `current` when removing a document\'s jumps\n\n`JumpList::remove` (called when a buffer is closed) dropped every entry belonging to the document but left `current` unchanged, so the current entry points at a different entry of the list.';

describe('Rust: a `Type::member` path names the member of that type\'s impl (rust-type-paths)', () => {
  it('shows `JumpList::remove`, not only the long function speaking of documents and entries', async () => {
    const root = writeRepo(REPO, 'nk-rust-paths-');
    const { files, outcome } = await loadedFiles(root, TASK, { max_lines: 40 });
    const receipt = outcome.artifacts.context_load_receipt;
    expect(files[0]).toBe('src/view.rs');
    expect(receipt.definitions![0]!.symbol).toBe('JumpList.remove');
    const ranges = receipt.files_loaded.find((f) => f.path === 'src/view.rs')!.ranges!;
    const line = view().split('\n').findIndex((l) => l.includes('self.jumps.retain')) + 1;
    expect(ranges.some(([a, b]) => a <= line && line <= b)).toBe(true);
  });
});
