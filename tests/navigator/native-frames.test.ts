import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { navigate } from '../../src/navigator/index.js';
import { nativeFrames, nativeFunctionName, readIssue } from '../../src/navigator/retrieval/evidence/index.js';

// A small C project of our own (tests/fixtures/repos/kvstore) and a C++ one (tinyfmt).
const REPOS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repos');
const lineOf = (file: string, needle: string) => readFileSync(path.join(REPOS, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

const ASAN = `==31337==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000031 at pc 0x55d4c5b2f bp 0x7ffd sp 0x7ffc
WRITE of size 1 at 0x602000000031 thread T0
    #0 0x55d4c5b2f in kv_put /home/ci/work/kvstore/src/kv.c:57:3
    #1 0x55d4c1234 in main /home/ci/work/kvstore/src/main.c:9:5
    #2 0x7f3a2b in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21b96) (BuildId: 0123abcd)
    #3 0x55d4c0f09 in _start (/home/ci/work/kvstore/kvtool+0x1f09)

0x602000000031 is located 0 bytes to the right of 1-byte region [0x602000000030,0x602000000031)
SUMMARY: AddressSanitizer: heap-buffer-overflow /home/ci/work/kvstore/src/kv.c:57:3 in kv_put
`;

const GDB = `Program received signal SIGSEGV, Segmentation fault.
0x0000555555555189 in kv_get (store=0x0, key=0x555555556004 "answer", out=0x7fffffffe3a0) at src/kv.c:68
68	  const kv_entry *e = store->table[kv_hash(key) % store->buckets];
(gdb) bt
#0  0x0000555555555189 in kv_get (store=0x0, key=0x555555556004 "answer", out=0x7fffffffe3a0) at src/kv.c:68
#1  0x00005555555552a4 in main (argc=1, argv=0x7fffffffe4c8) at src/main.c:10
`;

describe('C and C++ crash reports as frames (native-frames)', () => {
  it('reads AddressSanitizer stacks deepest first, skipping frames without a source line', () => {
    expect(nativeFrames(ASAN)).toEqual([
      { path: '/home/ci/work/kvstore/src/kv.c', line: 57, fn: 'kv_put', depth: 0 },
      { path: '/home/ci/work/kvstore/src/main.c', line: 9, fn: 'main', depth: 1 },
    ]);
  });

  it('reads gdb backtraces (with and without an address) and UndefinedBehaviorSanitizer runtime errors', () => {
    expect(nativeFrames(GDB)).toEqual([
      { path: 'src/kv.c', line: 68, fn: 'kv_get', depth: 0 },
      { path: 'src/main.c', line: 10, fn: 'main', depth: 1 },
    ]);
    expect(nativeFrames('#0  kv_hash (key=0x0) at src/kv.c:16\n#1  0x0000555555555300 in kv_put (store=..., key=0x0, value=1) at src/kv.c:45\n')).toEqual([
      { path: 'src/kv.c', line: 16, fn: 'kv_hash', depth: 0 },
      { path: 'src/kv.c', line: 45, fn: 'kv_put', depth: 1 },
    ]);
    const ub = 'src/format.cc:13:75: runtime error: signed integer overflow: 2147483647 * 10 cannot be represented in type \'int\'\nSUMMARY: UndefinedBehaviorSanitizer: undefined-behavior src/format.cc:13:75\n';
    expect(nativeFrames(ub)).toEqual([{ path: 'src/format.cc', line: 13, depth: 0 }]);
  });

  it('reads ThreadSanitizer stacks (no address, the module after the line)', () => {
    const tsan = 'WARNING: ThreadSanitizer: data race (pid=9)\n  Write of size 8 at 0x7b04 by thread T1:\n    #0 kv_put /src/kvstore/src/kv.c:63:15 (kvtool+0x4b2f)\n    #1 worker /src/kvstore/src/main.c:9 (kvtool+0x4c01)\n';
    expect(nativeFrames(tsan)).toEqual([
      { path: '/src/kvstore/src/kv.c', line: 63, fn: 'kv_put', depth: 0 },
      { path: '/src/kvstore/src/main.c', line: 9, fn: 'worker', depth: 1 },
    ]);
  });

  it('reads valgrind stacks, numbering from the `at` frame', () => {
    const vg = '==4242== Invalid read of size 8\n==4242==    at 0x108A4C: kv_get (kv.c:68)\n==4242==    by 0x108B10: main (main.c:10)\n';
    expect(nativeFrames(vg)).toEqual([
      { path: 'kv.c', line: 68, fn: 'kv_get', depth: 0 },
      { path: 'main.c', line: 10, fn: 'main', depth: 1 },
    ]);
  });

  it('names C++ frames as the outline names definitions', () => {
    expect(nativeFunctionName('tinyfmt::detail::parse_spec(char const*, char const*, tinyfmt::detail::format_spec&)')).toBe('parse_spec');
    expect(nativeFunctionName('tinyfmt::formatter<int, void>::format(int, tinyfmt::basic_buffer<char>&) const')).toBe('format');
    expect(nativeFunctionName('(anonymous namespace)::helper()')).toBe('helper');
    expect(nativeFunctionName('Buffer<char>::~Buffer()')).toBe('~Buffer');
    expect(nativeFunctionName('??')).toBeUndefined();
    const frames = nativeFrames('    #0 0x4f2a10 in tinyfmt::detail::parse_spec(char const*, char const*, tinyfmt::detail::format_spec&) /src/tinyfmt/src/format.cc:13:75\n');
    expect(frames).toEqual([{ path: '/src/tinyfmt/src/format.cc', line: 13, fn: 'parse_spec', depth: 0 }]);
  });

  it('are part of what readIssue reads, beside file names of C and C++ sources in prose', () => {
    const ev = readIssue(`kvtool crashes on a long key\n\n\`\`\`\n${ASAN}\`\`\`\n\nI think include/kv/kv.h is fine.`);
    expect(ev.frames.map((f) => f.fn)).toEqual(['kv_put', 'main']);
    expect(ev.files).toContain('include/kv/kv.h');
  });

  it('a sanitizer report leads the navigator to the function it lands in and the line it names', async () => {
    const task = `kvtool: heap-buffer-overflow when storing a long key\n\n\`\`\`\n${ASAN}\`\`\`\n`;
    const o = await navigate({ task, repo_root: path.join(REPOS, 'kvstore'), budget: { max_files: 2, max_lines: 36 } }, { cacheDir: false });
    const d = o.artifacts.context_load_receipt.definitions![0]!;
    expect(d).toMatchObject({ path: 'src/kv.c', symbol: 'kv_put', line: 57 });
    const kv = o.artifacts.context_load_receipt.files_loaded.find((f) => f.path === 'src/kv.c')!;
    // The line the sanitizer names is among the lines shown.
    expect(kv.ranges.some(([a, b]) => a <= 57 && 57 <= b)).toBe(true);
    expect(lineOf('kvstore/src/kv.c', "e->key[KV_MAX_KEY - 1] = '\\0';")).toBe(57);
  });
});
