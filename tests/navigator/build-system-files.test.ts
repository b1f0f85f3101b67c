import { describe, expect, it } from 'vitest';
import { buildSystemOf, buildSystemsNamed } from '../../src/navigator/retrieval/build-systems.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A C++ library built four ways: each build file lists the sources and options by name (the words of a prose issue),
// and the Doxygen configuration names the same features; the fix of a bug in the code is in the code.
const SOURCES = ['src/ring_buffer.cpp', 'src/spill_writer.cpp', 'src/flush_policy.cpp'];
const REPO = {
  'CMakeLists.txt': `cmake_minimum_required(VERSION 3.14)\nproject(spool CXX)\noption(SPOOL_SPILL_TO_DISK "spill the ring buffer to disk when full" ON)\noption(SPOOL_FLUSH_POLICY "flush policy of the spill writer" ON)\nadd_library(spool ${SOURCES.join(' ')})\ntarget_include_directories(spool PUBLIC include)\n`,
  'BUILD.bazel': `cc_library(\n    name = "spool",\n    srcs = [${SOURCES.map((s) => `"${s}"`).join(', ')}],\n    hdrs = ["include/spool/ring_buffer.h"],\n    defines = ["SPOOL_SPILL_TO_DISK", "SPOOL_FLUSH_POLICY"],\n)\n`,
  'MODULE.bazel': 'module(name = "spool", version = "1.4.0")\n',
  'meson.build': `project('spool', 'cpp')\nspill_to_disk = get_option('spill_to_disk')\nlib = library('spool', ${SOURCES.map((s) => `'${s}'`).join(', ')})\n`,
  'meson_options.txt': "option('spill_to_disk', type: 'boolean', value: true, description: 'spill the ring buffer to disk when full')\noption('flush_policy', type: 'string', value: 'size')\n",
  Doxyfile: 'PROJECT_NAME = spool\nINPUT = include src\n# the ring buffer, the spill writer and the flush policy\nEXCLUDE_PATTERNS = *spill_writer_test*\n',
  'include/spool/ring_buffer.h': '#pragma once\n#include <cstddef>\nnamespace spool {\nclass RingBuffer {\n public:\n  explicit RingBuffer(std::size_t capacity);\n  bool push(int value);\n  bool full() const;\n private:\n  std::size_t head_ = 0, size_ = 0, capacity_;\n};\n}  // namespace spool\n',
  'src/ring_buffer.cpp': '#include "spool/ring_buffer.h"\nnamespace spool {\nRingBuffer::RingBuffer(std::size_t capacity) : capacity_(capacity) {}\nbool RingBuffer::full() const { return size_ == capacity_; }\nbool RingBuffer::push(int value) {\n  if (full()) return false;\n  size_++;\n  return value >= 0;\n}\n}  // namespace spool\n',
  'src/spill_writer.cpp': '#include "spool/ring_buffer.h"\nnamespace spool {\n// Spills the ring buffer to disk when it is full.\nint spill_to_disk(RingBuffer &buffer, int fd) {\n  if (!buffer.full()) return 0;\n  return fd;\n}\n}  // namespace spool\n',
  'src/flush_policy.cpp': '#include "spool/ring_buffer.h"\nnamespace spool {\nint flush_policy_size(int n) { return n * 2; }\n}  // namespace spool\n',
  ...filler('src/codec', 'cpp', 8, (i) => `#include "spool/ring_buffer.h"\nnamespace spool {\nint codec${i}_width(int n) { return n + ${i}; }\n}  // namespace spool\n`),
};

describe('build-system files of a C++ project (the build-systems class)', () => {
  it('tells each build system by its file names', () => {
    expect(buildSystemOf('CMakeLists.txt')).toBe('cmake');
    expect(buildSystemOf('cmake/FindZstd.cmake')).toBe('cmake');
    expect(buildSystemOf('BUILD')).toBe('bazel');
    expect(buildSystemOf('src/BUILD.bazel')).toBe('bazel');
    expect(buildSystemOf('tools/defs.bzl')).toBe('bazel');
    expect(buildSystemOf('meson.build')).toBe('meson');
    expect(buildSystemOf('docs/Doxyfile')).toBe('doxygen');
    expect(buildSystemOf('msvc/spool.vcxproj')).toBe('msbuild');
    expect(buildSystemOf('build-aux/config.sub')).toBe('autotools');
    expect(buildSystemOf('install-sh')).toBe('autotools');
    expect(buildSystemOf('src/compile.c')).toBeUndefined();
    expect(buildSystemOf('Makefile.win')).toBe('make');
    // A template a tool renders into a project's makefile is the tool's source.
    expect(buildSystemOf('templates/Makefile.new.jinja')).toBeUndefined();
    expect(buildSystemOf('src/build.cpp')).toBeUndefined();
    expect(buildSystemOf('src/builder.go')).toBeUndefined();
    expect(buildSystemOf('README.md')).toBeUndefined();
  });

  it('reads the build system an issue title names, as written', () => {
    expect([...buildSystemsNamed('CMake: install target misses the headers\n\nThe install step …')]).toEqual(['cmake']);
    expect(buildSystemsNamed('MSVC warning C4244 in ring_buffer.cpp\n\nWith /W4 …').size).toBe(0);
    expect([...buildSystemsNamed('Bazel build cannot find ring_buffer.h\n\nWith bzlmod …')]).toEqual(['bazel']);
    // The body's build log says nothing of where the fix goes.
    expect(buildSystemsNamed('Ring buffer drops values\n\nBuilt with cmake 3.27 and meson 1.2.').size).toBe(0);
  });

  it('a prose issue about a bug: the sources, and no build file above them', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Spill to disk loses the last value when the ring buffer is full\n\nWith SPOOL_SPILL_TO_DISK on and a full ring buffer, the spill writer drops the value pushed last; the flush policy does not matter.');
    const firstBuild = files.findIndex((f) => buildSystemOf(f) !== undefined);
    expect(files.slice(0, 2)).toContain('src/spill_writer.cpp');
    // Every source the issue's words match comes before any build file.
    if (firstBuild >= 0) for (const s of SOURCES) expect(files.indexOf(s)).toBeLessThan(firstBuild);
    expect(files.slice(0, 3).some((f) => buildSystemOf(f) !== undefined)).toBe(false);
  });

  it('an issue whose title names the build system: its files are what it is about', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Bazel: the spool target does not define SPOOL_FLUSH_POLICY\n\nBuilding spool with bazel leaves the flush policy out, unlike the cmake and meson builds.');
    expect(files.slice(0, 2)).toContain('BUILD.bazel');
  });
});
