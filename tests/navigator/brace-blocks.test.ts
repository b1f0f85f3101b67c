import { describe, expect, it } from 'vitest';
import { blockAround, braceBlocks } from '../../src/navigator/retrieval/brace-blocks.js';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { extractOutline } from '../../src/repomap/outline.js';

// A C interpreter's dispatch loop: one function far too long to show whole, a `switch` of opcodes whose cases are
// blocks of 10–16 lines. The task names an opcode; the fix goes at the end of its case, a dozen lines below the
// name, past what a window of a few lines around the name shows.
function interpreter(): { text: string; fixLine: number; caseOpen: number; caseClose: number } {
  const out: string[] = ['#include "vm.h"', '', '/* Runs the program until it halts. */', 'int vm_run(struct vm *vm, const struct op *ops) {', '  int pc = 0;', '  for (;;) {', '    const struct op *op = &ops[pc++];', '    switch (op->code) {'];
  let fixLine = 0;
  let caseOpen = 0;
  let caseClose = 0;
  for (let k = 0; k < 12; k++) {
    const name = k === 7 ? 'OP_SLICE' : `OP_CODE${k}`;
    out.push(`    case ${name}: {`);
    if (k === 7) caseOpen = out.length;
    out.push(k === 7 ? '      struct value from = vm_pop(vm); /* slice: "{" start */' : `      struct value a = vm_pop(vm);`);
    out.push(k === 7 ? "      struct value to = vm_pop(vm); char q = '}';" : '      struct value b = vm_pop(vm);');
    for (let j = 0; j < 9; j++) out.push(`      vm_step(vm, ${k}, ${j});`);
    if (k === 7) {
      out.push('      if (from.n > to.n) {');
      out.push('        vm_fail(vm, "bad range");');
      out.push('      }');
      fixLine = out.length + 1;
      out.push('      vm_push(vm, value_slice(from, to));');
    } else out.push('      vm_push(vm, value_add(a, b));');
    out.push('      break;');
    out.push('    }');
    if (k === 7) caseClose = out.length;
  }
  out.push('    default:', '      return -1;', '    }', '  }', '}', '');
  return { text: out.join('\n'), fixLine, caseOpen, caseClose };
}

describe('brace blocks (the brace-blocks rule)', () => {
  it('finds the blocks of C code, skipping braces in strings, character literals and comments', () => {
    const { text, caseOpen, caseClose } = interpreter();
    const blocks = braceBlocks(text.split('\n'), 'c');
    expect(blocks).toContainEqual([caseOpen, caseClose]);
    // The function, the loop, the switch, the twelve cases and the `if`: no more (the quoted braces are not blocks).
    expect(blocks).toHaveLength(16);
    expect(blockAround(blocks, caseOpen + 3, 7, 20, [4, text.split('\n').length])).toEqual([caseOpen, caseClose]);
  });

  it('a window in a function too long to show whole shows the case around the matched name, where the fix goes', async () => {
    const { text, fixLine, caseOpen, caseClose } = interpreter();
    const outline = await extractOutline('c', text);
    expect(outline.defs.some((d) => d.name === 'vm_run' && d.end - d.start > 150)).toBe(true);
    const weights = new Map([
      ['slice', 3],
      ['op', 0.5],
    ]);
    const sel = selectLines(text, outline.defs, weights, 60, [], 'c');
    expect(sel.lines).toContain(fixLine);
    for (let l = caseOpen; l <= caseClose; l++) expect(sel.lines).toContain(l);
  });
});
