import { afterEach, describe, expect, it, vi } from 'vitest';
import { selectLines } from '../../src/navigator/retrieval/windows.js';
import { extractOutline } from '../../src/repomap/outline.js';

// A task about including a header ("Explicitly include <cstdint>") shows a C/C++ file's #include lines from the
// allowance left (issue 40, switch `c-include-lines`): the fix adds a directive among them, far above the code the
// task's other words match. Fails with NAVKERNEL_ABLATE=c-include-lines.

const SOURCE = `#include "emitterutils.h"
#include "exp.h"
#include "indentation.h"
#include "yaml-cpp/binary.h"
#include "yaml-cpp/null.h"
#include "yaml-cpp/ostream_wrapper.h"
#include <iomanip>
#include <sstream>

namespace YAML {
namespace Utils {
namespace {
enum { REPLACEMENT_CHARACTER = 0xFFFD };

bool IsAnchorChar(int ch) {
  switch (ch) {
    case ',':
    case '[':
    case ']':
      return false;
    case 0xFEFF:
      return false;
    case 0x0A:
    case 0x0D:
      return false;
  }
  return true;
}

int Utf8BytesIndicated(char ch) {
  int byteVal = static_cast<unsigned char>(ch);
  switch (byteVal >> 4) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
      return 1;
    case 12: case 13:
      return 2;
    case 14:
      return 3;
    case 15:
      return 4;
    default:
      return -1;
  }
}

void WriteCodePoint(ostream_wrapper& out, int codePoint) {
  if (codePoint < 0 || codePoint > 0x10FFFF) {
    codePoint = REPLACEMENT_CHARACTER;
  }
  if (codePoint <= 0x7F) {
    out << static_cast<char>(codePoint);
  } else if (codePoint <= 0x7FF) {
    out << static_cast<char>(0xC0 | (codePoint >> 6))
        << static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out << static_cast<char>(0xE0 | (codePoint >> 12))
        << static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F))
        << static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}
}  // namespace
}  // namespace Utils
}  // namespace YAML
`;

afterEach(() => vi.unstubAllEnvs());

describe('C/C++ include lines', () => {
  it('shows the #include block when the task speaks of including a header', async () => {
    const { defs } = await extractOutline('cpp', SOURCE);
    expect(defs.some((d) => d.name === 'WriteCodePoint')).toBe(true);
    const lines = SOURCE.split('\n');
    const last = lines.indexOf('#include <sstream>') + 1;
    const weights = new Map([['include', 1], ['cstdint', 3], ['uint32_t', 3], ['codepoint', 2]]);
    const sel = selectLines(SOURCE, defs, weights, 60, [], 'cpp');
    expect(sel.lines).toContain(1);
    expect(sel.lines).toContain(last);
    expect(sel.lines.length).toBeLessThanOrEqual(60);
    // without a word about including, the directives are not added
    const plain = selectLines(SOURCE, defs, new Map([['cstdint', 3], ['uint32_t', 3], ['codepoint', 2]]), 60, [], 'cpp');
    expect(plain.lines).not.toContain(last);
  });
});
