import { describe, expect, it } from 'vitest';
import { bundledCopyClass } from '../../src/navigator/retrieval/bundled-copies.js';
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
