import { describe, expect, it } from 'vitest';
import { bundledCopyClass, releaseCopyClass, singleHeaderClass } from '../../src/navigator/retrieval/code-copies.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C++ logging library that ships the formatting library it uses under `fmt/bundled/`: the copy speaks of formats,
// widths and arguments far more than the library's own sink, where a prose issue about a formatted log line is fixed.
const formatter = (name: string) =>
  `// ${name}: the format string parser and the argument formatter of the formatting library.\n#pragma once\nnamespace fmt {\n` +
  Array.from({ length: 12 }, (_, i) => `// Formats argument ${i} with the width and precision of the format spec.\ntemplate <typename T> void format_arg${i}(const T &arg, int width, int precision) { write_padded(arg, width, precision); }\n`).join('') +
  '}\n';
const REPO = {
  'include/quill/fmt/bundled/format.h': formatter('format.h'),
  'include/quill/fmt/bundled/core.h': formatter('core.h'),
  'include/quill/sinks/file_sink.h':
    '#pragma once\n#include "../fmt/bundled/format.h"\nnamespace quill {\n// Writes each log line to the file.\nclass file_sink {\n public:\n  // Writes each log message to the file.\n  void log(const std::string &message) { write_line(message); }\n  // The pattern of a log line: time, level and the message.\n  void set_pattern(const std::string &pattern) { pattern_ = pattern; }\n private:\n  std::string pattern_;\n};\n}\n',
  'include/quill/logger.h': '#pragma once\nnamespace quill {\n// The logger hands each message to its sinks.\nclass logger {\n public:\n  void info(const char *msg);\n};\n}\n',
  ...filler('src/parts', 'cpp', 30, (i) => `// Part ${i} of the library.\nint part${i}(int n) { return n + ${i}; }\n`),
};

describe('bundled copies of other projects (the bundled-copies class)', () => {
  it('classes a folder named bundled, vendored or _vendor as vendored', () => {
    expect(bundledCopyClass('include/quill/fmt/bundled/format.h')).toBe('vendored');
    expect(bundledCopyClass('src/pip/_vendor/requests/api.py')).toBe('vendored');
    expect(bundledCopyClass('lib/vendored/yaml.js')).toBe('vendored');
    expect(bundledCopyClass('src/bundler/bundle.ts')).toBeUndefined();
    expect(bundledCopyClass('include/quill/sinks/file_sink.h')).toBeUndefined();
  });

  it('a prose issue about a formatted log line: the sink first, the bundled formatter after it', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Log messages lose the padding of a formatted argument\n\nAn argument formatted with a width and a precision in a log message is written without padding.');
    expect(files[0]).toBe('include/quill/sinks/file_sink.h');
  });
});

// A header-only JSON library: its headers under include/, and the single-header distribution a script pastes them into.
const header = (name: string, body: string) => `#pragma once\n// ${name}\nnamespace tiny { namespace detail {\n${body}\n} }\n`;
const HEADERS: Record<string, string> = {
  'include/tiny/detail/lexer.hpp': header('lexer: reads the tokens of a JSON text', '// Reads a number token: digits, a fraction and an exponent.\ninline token scan_number(reader &r) { return r.number_token(); }\n// Reads a string token with its escapes.\ninline token scan_string(reader &r) { return r.string_token(); }'),
  'include/tiny/detail/serializer.hpp': header('serializer: writes a value as JSON text', '// Writes a number: an integer, or a float with its exponent.\ninline void dump_number(writer &w, double x) { w.put_float(x); }\n// Writes a string with its escapes.\ninline void dump_string(writer &w, const std::string &s) { w.put_escaped(s); }'),
  'include/tiny/detail/parser.hpp': header('parser: builds a value from the tokens', '// Parses an array, an object or a scalar.\ninline value parse_value(lexer &l) { return l.next_value(); }'),
};
const LIB = {
  ...HEADERS,
  'single_include/tiny/json.hpp': Object.values(HEADERS).join('\n'),
  ...filler('src/parts', 'cpp', 30, (i) => `// Part ${i} of the library.\nint part${i}(int n) { return n + ${i}; }\n`),
};

describe('single-header distributions (the single-headers class)', () => {
  it('classes a single_include folder and an amalgamated file as generated, C and C++ only', () => {
    expect(singleHeaderClass('single_include/nlohmann/json.hpp')).toBe('generated');
    expect(singleHeaderClass('extras/lib_amalgamated.hpp')).toBe('generated');
    expect(singleHeaderClass('src/amalgamation/db.c')).toBe('generated');
    expect(singleHeaderClass('tools/amalgamate.py')).toBeUndefined();
    expect(singleHeaderClass('include/tiny/detail/lexer.hpp')).toBeUndefined();
  });

  it('an issue about writing floats: the serializer header first, not the single header that holds every header', async () => {
    const root = writeRepo(LIB);
    const { files } = await loadedFiles(root, 'A float with an exponent is written without its exponent\n\nWriting a number value with an exponent drops the exponent; reading the same number keeps it.');
    expect(files[0]).toBe('include/tiny/detail/serializer.hpp');
    expect(files.indexOf('single_include/tiny/json.hpp')).not.toBe(1);
  });
});


// A YAML library that keeps a release of a test framework in its tests folder, under the release's name: the
// framework's portability header and docs speak of compilers, warnings and Windows builds far more than the
// library's own emitter, where a fix for a compiler warning goes.
const port = (i: number) =>
  `// Portability ${i}: compiler warnings, MSVC and GCC quirks of Windows and shared library builds.\n#pragma once\n` +
  Array.from({ length: 8 }, (_, k) => `// Silences the compiler warning ${k} (-Wshadow, C4996) on Windows builds with MSVC and GCC.\n#define GTEST_DISABLE_WARNING_${i}_${k} _Pragma("warning")\n`).join('');
const YAML = {
  'test/gtest-1.11.0/googletest/include/gtest/internal/gtest-port.h': port(1),
  'test/gtest-1.11.0/googlemock/include/gmock/internal/gmock-port.h': port(2),
  'test/gtest-1.11.0/docs/platforms.md': '# Platforms\nWindows builds with MSVC, GCC compiler warnings, shared library builds.\n'.repeat(6),
  'src/emitter.cpp':
    '#include "emitter.h"\nnamespace YAML {\n// Writes a scalar with the emitter state of the document.\nvoid Emitter::Write(const std::string &str) {\n  // the local indent is named like the member it copies\n  const std::size_t indent = m_state.indent();\n  write_scalar(str, indent);\n}\n}\n',
  'src/emitter.h': '#pragma once\nnamespace YAML {\nclass Emitter {\n public:\n  void Write(const std::string &str);\n private:\n  EmitterState m_state;\n};\n}\n',
  ...filler('src/parts', 'cpp', 60, (i) => `// Part ${i} of the library.\nint part${i}(int n) { return n + ${i}; }\n`),
};

describe('releases of other projects kept in the tree (the release-copies class)', () => {
  it('classes a folder named after a release as vendored', () => {
    expect(releaseCopyClass('test/gtest-1.11.0/googletest/include/gtest/gtest.h')).toBe('vendored');
    expect(releaseCopyClass('test/googletest-1.16.0/googlemock/src/gmock.cc')).toBe('vendored');
    expect(releaseCopyClass('deps/lua-5.4.6/src/lapi.c')).toBe('vendored');
    expect(releaseCopyClass('docs/v2.0/index.md')).toBeUndefined();
    expect(releaseCopyClass('src/sha-256/digest.c')).toBeUndefined();
    expect(releaseCopyClass('src/emitter.cpp')).toBeUndefined();
  });

  it('a compiler warning in the emitter: the emitter first, the test framework release after it', async () => {
    const root = writeRepo(YAML);
    const { files } = await loadedFiles(root, 'Fix compile warning with -Wshadow\n\nGCC warns that a local variable shadows a member when building on Windows with MSVC or GCC as a shared library.');
    const at = (p: string) => (files.includes(p) ? files.indexOf(p) : 99);
    expect(at('src/emitter.cpp')).toBeLessThan(at('test/gtest-1.11.0/googletest/include/gtest/internal/gtest-port.h'));
  });
});
