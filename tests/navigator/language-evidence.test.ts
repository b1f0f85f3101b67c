import { describe, expect, it } from 'vitest';
import { errorMessages, tracebackFrames, withoutFenceLanguages } from '../../src/navigator/retrieval/evidence/index.js';
import { classifyContent, classifyPath, ownFamilies } from '../../src/repomap/file-class.js';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// Evidence in each language's own words (issue 40, item 2): one rule per test, on small repositories written here.

describe('frames and diagnostics of Rust, Go, Java and compilers (read-issue)', () => {
  it('a Rust panic names its location, old and new formats, and its message', () => {
    const old = "thread 'main' panicked at 'attempt to subtract with overflow', src/buf/chunk.rs:41:9\nnote: run with `RUST_BACKTRACE=1`";
    expect(tracebackFrames(old)).toEqual([{ path: 'src/buf/chunk.rs', line: 41, depth: 0 }]);
    expect(errorMessages(old)).toContain('attempt to subtract with overflow');
    const now = "thread 'tokio-runtime-worker' panicked at /home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f/pulse-1.28.0/src/time/wheel.rs:112:13:\ntimer wheel slot overflowed its level\n";
    expect(tracebackFrames(now)[0]).toMatchObject({ path: '/home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f/pulse-1.28.0/src/time/wheel.rs', line: 112, depth: 0 });
    expect(errorMessages(now)).toContain('timer wheel slot overflowed its level');
  });

  it('a Rust backtrace: each `at file.rs:N` frame takes its function from the numbered line above, innermost first', () => {
    const bt = [
      'stack backtrace:',
      '   0: rust_begin_unwind',
      '             at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:578:5',
      '   1: pulse::time::wheel::Wheel::insert',
      '             at ./pulse/src/time/wheel.rs:112:13',
      '   2: pulse::time::driver::Driver::<T>::reregister::{{closure}}',
      '             at ./pulse/src/time/driver.rs:40:9',
    ].join('\n');
    expect(tracebackFrames(bt).map((f) => [f.path, f.fn, f.depth])).toEqual([
      ['/rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs', 'rust_begin_unwind', 0],
      ['./pulse/src/time/wheel.rs', 'insert', 1],
      ['./pulse/src/time/driver.rs', 'reregister', 2],
    ]);
  });

  it('a Go goroutine dump: each file.go:N frame takes its function from the line above', () => {
    const dump = [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      '',
      'goroutine 7 [running]:',
      'github.com/acme/relay/core/queue.(*Ring).Push(0x0, {0x1, 0x2})',
      '\t/root/go/pkg/mod/github.com/acme/relay@v1.5.0/core/queue/ring.go:58 +0x1d',
      'main.main()',
      '\t/tmp/demo/main.go:12 +0x45',
    ].join('\n');
    expect(tracebackFrames(dump).map((f) => [f.path, f.line, f.fn, f.depth])).toEqual([
      ['/root/go/pkg/mod/github.com/acme/relay@v1.5.0/core/queue/ring.go', 58, 'Push', 0],
      ['/tmp/demo/main.go', 12, 'main', 1],
    ]);
    expect(errorMessages(dump)).toContain('runtime error: invalid memory address or nil pointer dereference');
  });

  it('a Java trace: `at pkg.Class.method(File.java:N)` becomes the package folders and the file; `Caused by:` starts another trace', () => {
    const trace = [
      'Exception in thread "main" com.acme.json.JsonParseException: Expected a string but was BEGIN_OBJECT',
      '\tat com.acme.json.internal.bind.Adapters$StringAdapter.read(Adapters.java:120)',
      '\tat com.acme.json.Json.fromJson(Json.java:88)',
      'Caused by: java.lang.IllegalStateException: bad state here',
      '\tat com.acme.json.stream.Reader.nextString(Reader.java:40)',
      '\t... 2 more',
    ].join('\n');
    expect(tracebackFrames(trace).map((f) => [f.path, f.line, f.fn, f.depth])).toEqual([
      ['com/acme/json/internal/bind/Adapters.java', 120, 'read', 0],
      ['com/acme/json/Json.java', 88, 'fromJson', 1],
      ['com/acme/json/stream/Reader.java', 40, 'nextString', 0],
    ]);
  });

  it('compiler and linter locations: rustc `-->`, tsc `file(l,c)`, javac, go vet and gcc `file:l:c:`', () => {
    const paths = (t: string) => tracebackFrames(t).map((f) => `${f.path}:${f.line}`);
    expect(paths('error[E0308]: mismatched types\n  --> pulse/src/io/split.rs:33:5\n   |\n33 |     x\n')).toEqual(['pulse/src/io/split.rs:33']);
    expect(paths('src/core/options.ts(14,7): error TS2322: Type string is not assignable to type number.')).toEqual(['src/core/options.ts:14']);
    expect(paths('src/main/java/com/acme/Box.java:21: error: incompatible types')).toEqual(['src/main/java/com/acme/Box.java:21']);
    expect(paths('# relay/core/queue\n./ring.go:58:2: unreachable code')).toEqual(['./ring.go:58']);
    expect(paths('lib/format.c:120:13: warning: comparison of integers of different signs')).toEqual(['lib/format.c:120']);
    // A version number or a time is no location.
    expect(paths('works in 1.2.3:4 and at 10:30')).toEqual([]);
  });
});

const RUST_REPO = {
  'Cargo.toml': '[workspace]\nmembers = ["pulse", "pulse-util"]\n',
  'pulse/Cargo.toml': '[package]\nname = "pulse"\nversion = "1.28.0"\n',
  'pulse/src/lib.rs': 'pub mod time;\npub mod sync;\n',
  'pulse/src/time/mod.rs': 'mod wheel;\nmod driver;\npub use wheel::Wheel;\n',
  'pulse/src/time/wheel.rs': [
    '/// The timer wheel: slots of entries by level.',
    'pub struct Wheel { levels: Vec<Level> }',
    '',
    'impl Wheel {',
    '    pub fn insert(&mut self, when: u64) {',
    '        let level = self.level_for(when);',
    '        if level >= self.levels.len() {',
    '            panic!("timer wheel slot overflowed its level");',
    '        }',
    '        self.levels[level].add(when);',
    '    }',
    '    fn level_for(&self, when: u64) -> usize { (when as usize) / 64 }',
    '}',
    '',
  ].join('\n'),
  'pulse/src/time/driver.rs': 'use super::Wheel;\n/// The time driver: fires timers from the wheel.\npub struct Driver { wheel: Wheel }\nimpl Driver {\n    pub fn reregister(&mut self, when: u64) { self.wheel.insert(when) }\n}\n',
  'pulse/src/sync/mod.rs': 'pub mod notify;\n',
  'pulse/src/sync/notify.rs': '/// Notifies a task when a timer fires or the level changes.\npub struct Notify;\nimpl Notify { pub fn notify_one(&self) {} }\n',
  'pulse-util/Cargo.toml': '[package]\nname = "pulse-util"\nversion = "0.7.0"\n',
  'pulse-util/src/lib.rs': 'pub mod time;\n',
  'pulse-util/src/time/mod.rs': 'pub mod delay_queue;\n',
  'pulse-util/src/time/wheel.rs': '/// A second wheel for delay queues: slots of entries by level.\npub struct Wheel { slots: Vec<u64> }\nimpl Wheel { pub fn insert(&mut self, when: u64) { self.slots.push(when) } }\n',
  'pulse-util/src/time/delay_queue.rs': '/// A queue of timers: each entry fires after its delay from the wheel level.\npub struct DelayQueue;\nimpl DelayQueue { pub fn insert_at(&mut self) {} }\n',
  ...filler('pulse/src/runtime', 'rs', 8, (i) => `/// Runtime part ${i}: timer level, wheel slot and task notify.\npub fn part${i}(level: usize) -> usize { level + ${i} }\n`),
};

describe('frames resolved in a Rust workspace', () => {
  it('a panic inside a release copy of the crate reaches the file of that crate, first', async () => {
    const root = writeRepo(RUST_REPO);
    // The message is the runtime's (not in the code): only the location says which of the two wheel.rs it is.
    const task = "Crash after the upgrade\n\nthread 'main' panicked at /home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f/pulse-1.28.0/src/time/wheel.rs:10:9:\nattempt to divide by zero\n";
    const { files } = await loadedFiles(root, task);
    expect(files[0]).toBe('pulse/src/time/wheel.rs');
  });
});

describe('package-qualified names through each module system (module-paths)', () => {
  it('a Rust `crate::a::b::Item::method` path: the crate by its Cargo.toml name, the module file, the method', async () => {
    const root = writeRepo(RUST_REPO);
    const { files, outcome } = await loadedFiles(root, 'Inserting far in the future misbehaves\n\nCalling `pulse::time::wheel::Wheel::insert` with a large value puts the entry in the wrong level.');
    expect(files[0]).toBe('pulse/src/time/wheel.rs');
    expect(outcome.artifacts.context_load_receipt.definitions![0]).toMatchObject({ path: 'pulse/src/time/wheel.rs', symbol: 'Wheel.insert' });
  });

  it('a Rust macro the issue invokes (`select!`) reaches its macro_rules! definition', async () => {
    const root = writeRepo({
      ...RUST_REPO,
      'pulse/src/macros/branches.rs': '/// Waits on several branches.\n#[macro_export]\nmacro_rules! select {\n    ($($t:tt)*) => {{ /* branches */ }};\n}\n',
      'pulse/src/io/select.rs': '/// Selects a ready source among branches.\npub fn select(branches: &[u8]) -> usize { branches.len() }\n',
      'pulse/src/macros/join.rs': '/// Waits on every branch.\n#[macro_export]\nmacro_rules! join {\n    ($($t:tt)*) => {{ }};\n}\n',
      'pulse/src/runtime/branch.rs': '/// A branch of a wait: its level and slot.\npub fn select_branch(level: usize) -> usize { level }\n',
    });
    const { files, outcome } = await loadedFiles(root, 'Branches are polled in a fixed order\n\n```rust\npulse::select! {\n    _ = a => {},\n    _ = b => {},\n}\n```\nThe first branch always wins the race.');
    expect(files[0]).toBe('pulse/src/macros/branches.rs');
    expect(outcome.artifacts.context_load_receipt.definitions![0]).toMatchObject({ symbol: 'select', kind: 'macro' });
  });

  const GO_REPO = {
    'go.mod': 'module github.com/acme/relay\n\ngo 1.21\n',
    'core/queue/ring.go': 'package queue\n\n// Ring is a fixed-size queue of messages.\ntype Ring struct{ items []string }\n\n// Push adds a message, dropping the oldest when full.\nfunc (r *Ring) Push(msg string) { r.items = append(r.items, msg) }\n',
    'core/queue/list.go': 'package queue\n\n// List is an unbounded queue of messages.\ntype List struct{ items []string }\n',
    'rest/queue.go': 'package rest\n\nimport "github.com/acme/relay/core/queue"\n\n// QueueHandler serves the message queue over HTTP.\nfunc QueueHandler(msg string) string { return msg }\n',
    'rest/ring.go': 'package rest\n\nimport "github.com/acme/relay/core/queue"\n\n// RingBuffer keeps recent messages for the handler.\ntype RingBuffer struct{ msgs []string }\n\n// Push records a message.\nfunc (r *RingBuffer) Push(msg string) {}\n',
    ...filler('core/stream', 'go', 8, (i) => `package stream\n\nimport "github.com/acme/relay/core/queue"\n\n// Part${i} moves a message through the queue.\nfunc Part${i}(msg string) string { return msg }\n`),
  };

  it('a Go import path resolves through go.mod to its package folder, and `pkg.Name` to the definition in it', async () => {
    const root = writeRepo(GO_REPO);
    const { files } = await loadedFiles(root, 'Messages are lost under load\n\n```go\nimport "github.com/acme/relay/core/queue"\n\nr := queue.Ring{}\nr.Push("x")\n```\nOld messages disappear.');
    expect(files[0]).toBe('core/queue/ring.go');
  });

  it('a program that merely imports a package (no member of it named) does not lift the package above what the issue is about', async () => {
    const root = writeRepo({
      ...GO_REPO,
      'core/stream/order.go': 'package stream\n\n// Reorder puts messages back in the order they were sent, by sequence number.\nfunc Reorder(seq []int) []int { return seq }\n',
      'rest/serve.go': 'package rest\n\n// Serve answers requests with messages, in sequence.\nfunc Serve(msgs []string) []string { return msgs }\n',
    });
    const { files } = await loadedFiles(root, 'Messages arrive out of order\n\n```go\npackage main\n\nimport (\n\t"github.com/acme/relay/rest"\n)\n\nfunc main() {}\n```\nThe sequence of messages is not the order they were sent in.');
    expect(files[0]).toBe('core/stream/order.go');
  });

    it('a Java package resolves to its folders: `com.acme.json.Json.fromJson` is the method of that file', async () => {
    const root = writeRepo({
      'pom.xml': '<project><artifactId>json</artifactId></project>\n',
      'core/src/main/java/com/acme/json/Json.java': 'package com.acme.json;\n\n/** Reads values from text. */\npublic final class Json {\n  public <T> T fromJson(String text, Class<T> type) {\n    return type.cast(text);\n  }\n}\n',
      'core/src/main/java/com/acme/json/internal/JsonText.java': 'package com.acme.json.internal;\n\n/** Text of a value read from json. */\npublic final class JsonText {\n  public String fromJson(String text) { return text; }\n}\n',
      'addons/src/main/java/com/acme/addons/Json.java': 'package com.acme.addons;\n\n/** Extra value readers. */\npublic final class Json {\n  public Object fromJson(String text) { return text; }\n}\n',
      ...filler('core/src/main/java/com/acme/json/bind', 'java', 8, (i) => `package com.acme.json.bind;\n\n/** Binds a value read from text, part ${i}. */\npublic final class Part${i} {\n  public Object read(String text) { return text; }\n}\n`),
    });
    const { files } = await loadedFiles(root, 'fromJson drops nulls\n\nCalling com.acme.json.Json.fromJson on text with a null value returns an empty object.');
    expect(files[0]).toBe('core/src/main/java/com/acme/json/Json.java');
  });

  it('a TypeScript path alias from tsconfig.json and a workspace package name resolve to their files', async () => {
    const root = writeRepo({
      'package.json': '{"name": "shop-root", "private": true, "workspaces": ["packages/*"]}\n',
      'tsconfig.json': '{\n  // paths of the app\n  "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["apps/web/src/*"] } }\n}\n',
      'apps/web/src/cart/price.ts': 'export function compute(prices: number[]): number {\n  return prices.reduce((a, b) => a + b, 0);\n}\n',
      'apps/web/src/cart/total.ts': '/** The cart total and its digits: the total of the cart shown with two digits. */\nexport function cartTotal(total: number): string {\n  return `cart total ${total.toFixed(2)} digits`;\n}\n',
      'packages/money/package.json': '{"name": "@shop/money", "main": "dist/index.js"}\n',
      'packages/money/src/half.ts': 'export function compute(value: number): number {\n  return Math.round(value * 100) / 100;\n}\n',
      'packages/money/src/cent.ts': '/** Rounds to the cent: the wrong cent is the classic rounding bug of money. */\nexport function toCent(value: number): number {\n  return Math.floor(value * 100);\n}\n',
      ...filler('apps/web/src/parts', 'ts', 8, (i) => `export function compute(total: number): number {\n  // part ${i} of the cart\n  return total + ${i};\n}\n`),
    });
    const alias = await loadedFiles(root, 'Total is wrong\n\n```ts\nimport { compute } from "@app/cart/price";\n```\nThe cart total shows too many digits.');
    expect(alias.files[0]).toBe('apps/web/src/cart/price.ts');
    const pkg = await loadedFiles(root, 'Rounding is off\n\n```ts\nimport { compute } from "@shop/money/half";\n```\nrounds money to the wrong cent.');
    expect(pkg.files[0]).toBe('packages/money/src/half.ts');
  });
});

const CLI_REPO = {
  'Cargo.toml': '[package]\nname = "seek"\nversion = "0.3.0"\n',
  'README.md': '# seek\n\nSearch files for a pattern. Options: `--word-regexp` matches whole words only, `--ignore-case` ignores case.\n\n## Whole words\n\nWith --word-regexp a match must be a whole word.\n',
  'README.zh-CN.md': '# seek\n\n搜索 pattern. `--word-regexp` whole word match, `--ignore-case`.\n',
  'CONTRIBUTING.md': '# Contributing\n\nRun the tests with every option, `--word-regexp` and `--ignore-case` included, before a pull request.\n',
  'CHANGELOG.md': '# Changes\n\n## 0.3.0\n\n- `--word-regexp` matches whole words (a pattern surrounded by word boundaries).\n',
  LICENSE: 'MIT License\n\nPermission is hereby granted to deal in the Software without restriction, to match words and patterns.\n',
  'ci/test.sh': '#!/bin/sh\n# run every option once\ncargo run -- --word-regexp pattern src\ncargo run -- --ignore-case pattern src\n',
  '.github/workflows/ci.yml': 'name: ci\non: [push]\njobs:\n  test:\n    steps:\n      - run: cargo run -- --word-regexp word pattern\n',
  'assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><title>seek: whole word pattern match</title><text>word regexp</text></svg>\n',
  'src/flags.rs': [
    '/// The command line: each flag and what it sets. Checks every flag: a flag that is not known is reported.',
    'pub struct Args { pub word: bool, pub ignore: bool }',
    '',
    'pub fn parse(argv: &[String]) -> Result<Args, String> {',
    '    let mut args = Args { word: false, ignore: false };',
    '    for a in argv {',
    '        match a.as_str() {',
    '            "-w" | "--word-regexp" => args.word = true,',
    '            "-i" | "--ignore-case" => args.ignore = true,',
    '            other => return Err(format!("unknown flag {}", other)),',
    '        }',
    '    }',
    '    Ok(args)',
    '}',
    '',
  ].join('\n'),
  'src/search.rs': '/// Finds the pattern in a line; a whole match when words are asked for.\npub fn find(line: &str, pattern: &str, whole: bool) -> Option<usize> {\n    let at = line.find(pattern)?;\n    if whole && !bounded(line, at, pattern.len()) { return None; }\n    Some(at)\n}\nfn bounded(line: &str, at: usize, len: usize) -> bool { at == 0 || at + len == line.len() }\n',
  'src/walk.rs': '/// Walks the paths given on the command line.\npub fn walk(path: &str) -> Result<Vec<String>, String> {\n    if !std::path::Path::new(path).is_dir() {\n        return Err(format!("\'{}\' is not a directory", path));\n    }\n    Ok(vec![])\n}\n',
  'src/main.rs': 'mod flags;\nmod search;\nmod walk;\n\nfn main() {\n    let argv: Vec<String> = std::env::args().skip(1).collect();\n    let args = flags::parse(&argv).unwrap();\n    let _ = args;\n}\n',
  'tests/cli.rs': '#[test]\nfn word_regexp_matches_whole_words() {\n    // --word-regexp: a pattern inside a word is no match\n    assert!(true);\n}\n',
  'scripts/release.py': '"""Release helper: bumps the version, checks every flag (--word-regexp, --ignore-case) in the README."""\nimport subprocess\n\ndef check_flags():\n    for flag in ["--word-regexp", "--ignore-case"]:\n        subprocess.run(["cargo", "run", "--", flag, "pattern"])\n',
  ...filler('src/printer', 'rs', 8, (i) => `/// Prints a match of the pattern, part ${i}: the word and the line.\npub fn print${i}(line: &str) -> usize { line.len() + ${i} }\n`),
};

describe('file classes by path and by content (item 1)', () => {
  it("a code fence's language is no word of the task", () => {
    expect(withoutFenceLanguages('Title\n\n```go\nx := 1\n```\n~~~ rust\nlet a;\n~~~\n```\nplain\n```')).toBe('Title\n\n```\nx := 1\n```\n~~~\nlet a;\n~~~\n```\nplain\n```');
  });

  it('translations, licence variants, logos and Rust test modules are not source', () => {
    expect(['README.zh-CN.md', 'LICENSE-MIT', 'LICENSE-APACHE', 'COPYING', 'CHANGELOG-1.x', 'assets/logo.svg', 'src/io/tests.rs', 'src/io/test.rs', 'src/io/split_tests.rs', 'src/io/split.rs', 'src/license.rs'].map(classifyPath)).toEqual([
      'doc', 'doc', 'doc', 'doc', 'doc', 'asset', 'test', 'test', 'test', 'source', 'source',
    ]);
  });

  it("a tool's output is recognised by its first lines; a comment that merely uses the word is not", () => {
    for (const head of [
      '/* A Bison parser, made by GNU Bison 3.8.2.  */\n',
      '// Code generated by protoc-gen-go. DO NOT EDIT.\n',
      '/* This file was automatically generated by the build. */\n',
      '// Generated by Peggy 3.0.2.\n',
      '/*\n * catch_amalgamated.hpp: this file is an amalgamation of the library\'s headers\n */\n',
      '#line 2 "lexer.c"\n/* A lexical scanner generated by flex */\n',
      '# @generated by the schema tool\n',
    ])
      expect(classifyContent(head)).toBe('generated');
    for (const head of ['/** Returns the id generated for the row by the server. */\n', '// The tokens this parser reads are generated by the lexer on demand.\n', 'fn main() {}\n'])
      expect(classifyContent(head)).toBeUndefined();
  });

  it("a repository's own language families: those holding a tenth of its sources, never shell", () => {
    const paths = [...Array.from({ length: 20 }, (_, i) => `src/m${i}.rs`), 'support/release.py', 'ci/run.sh', 'ci/check.sh', 'ci/more.sh', 'web/app.js', 'web/view.js'];
    expect([...ownFamilies(paths)].sort()).toEqual(['rust']);
  });
});

describe('source before everything (item 1) and flags and printed messages mapped to the code (item 2)', () => {
  it('a prose-only issue about a CLI flag: the source that defines the flag first, no README, changelog, licence, CI script, logo or helper script', async () => {
    const root = writeRepo(CLI_REPO);
    const { files } = await loadedFiles(root, 'The word flag matches inside words\n\nWhen I pass --word-regexp, a pattern that sits inside a longer word still matches. I expected whole words only.');
    expect(files[0]).toBe('src/flags.rs');
    for (const f of ['README.md', 'README.zh-CN.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'LICENSE', 'ci/test.sh', '.github/workflows/ci.yml', 'assets/logo.svg', 'scripts/release.py', 'Cargo.toml']) expect(files).not.toContain(f);
  });

  it('a message the code spells with a placeholder (`\'{}\' is not a directory`) reaches the code that prints it', async () => {
    const root = writeRepo(CLI_REPO);
    const { files, outcome } = await loadedFiles(root, "Walking a file fails\n\nRunning `seek pattern notes.txt` prints\n\n    error: 'notes.txt' is not a directory\n\nbut a file should be searched too.");
    expect(files[0]).toBe('src/walk.rs');
    expect(outcome.artifacts.context_load_receipt.definitions![0]!.evidence[0]).toMatch(/^message /);
  });

  it('a helper script in another language than the repository\'s ranks below the sources, unless the issue is in its language', async () => {
    const root = writeRepo(CLI_REPO);
    const plain = await loadedFiles(root, 'checking every flag\n\nEvery flag should be checked and a flag that is not known reported, with the flag.');
    expect(plain.files[0]).toBe('src/flags.rs');
    const why = (o: typeof plain, file: string) => o.outcome.artifacts.navigation_map.tier_path_traversed.find((e) => e.files_loaded.includes(file))?.justification ?? '';
    expect(why(plain, 'scripts/release.py')).toMatch(/, script\)$/);
    const py = await loadedFiles(root, 'checking every flag\n\n```python\ncheck_flags()\n```\nEvery flag should be checked and a flag that is not known reported, with the flag.');
    expect(py.files).toContain('scripts/release.py');
    expect(why(py, 'scripts/release.py')).not.toMatch(/script\)$/);
  });

  it('a file a tool wrote (its first lines say so) ranks below the hand-written sources', async () => {
    const root = writeRepo({
      'package.json': '{"name": "calc", "type": "module"}\n',
      'src/grammar.js': '// Generated by Peggy 3.0.2.\n//\n// https://peggyjs.org/\n\n/** The expression grammar: operator precedence, power operator, expression evaluation order. */\nexport function precedence(input) {\n  // operator precedence of the expression grammar: power binds right, power before product\n  return { op: "power", precedence: "power", input };\n}\n',
      'src/evaluate.js': '/** Evaluates an expression tree: operator precedence decides the power order. */\nexport function evaluateExpression(tree) {\n  return tree.op === "power" ? 1 : 0;\n}\n',
      ...filler('src/ops', 'js', 8, (i) => `/** Operator ${i} of the calculator. */\nexport function op${i}(a, b) {\n  return a + b + ${i};\n}\n`),
    });
    const { files } = await loadedFiles(root, 'power operator precedence is wrong in expression grammar evaluation');
    expect(files.indexOf('src/evaluate.js')).toBeLessThan(files.indexOf('src/grammar.js') < 0 ? Infinity : files.indexOf('src/grammar.js'));
    expect(files[0]).toBe('src/evaluate.js');
  });
});

describe('fewer, better files (item 4)', () => {
  it('files are given in rank order, best first, whether reached through the trunk or a branch', async () => {
    const root = writeRepo(CLI_REPO);
    const { outcome } = await loadedFiles(root, 'Walking a file fails\n\n    error: \'notes.txt\' is not a directory\n');
    const scores = outcome.artifacts.context_load_receipt.files_loaded.map((f) => f.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // src/main.rs is a trunk file (an entry point): it comes after the file the message names.
    expect(outcome.artifacts.context_load_receipt.files_loaded[0]!.path).toBe('src/walk.rs');
  });

  it('conclusive evidence stops the pick early and says so; a vague task fills the places and says it is unsure', async () => {
    // A standard-library-like tree: many modules share the words of any task.
    const lib: Record<string, string> = {};
    for (const mod of ['shutil', 'pathlib', 'tarfile', 'zipfile', 'tempfile', 'glob', 'fnmatch', 'filecmp', 'stat', 'ntpath', 'posixpath', 'genericpath']) {
      lib[`Lib/${mod}.py`] = `"""${mod}: operations on files and directories."""\n\ndef ${mod}_copy(src, dst):\n    """Copy a file or a directory tree from src to dst."""\n    return dst\n\ndef ${mod}_remove(path):\n    """Remove a file or a directory."""\n    return path\n`;
    }
    lib['Lib/shutil.py'] += '\n\ndef copytree(src, dst, symlinks=False):\n    """Copy a directory tree."""\n    if not src:\n        raise ValueError("copytree source directory must not be empty")\n    return dst\n';
    const root = writeRepo(lib);
    const sure = await loadedFiles(root, 'copying a directory tree fails\n\n```python\nshutil.copytree("", "out")\n```\n\n    ValueError: copytree source directory must not be empty\n');
    expect(sure.files[0]).toBe('Lib/shutil.py');
    expect(sure.files.length).toBeLessThan(4);
    expect(sure.outcome.artifacts.context_load_receipt.confidence).toMatchObject({ level: 'high' });
    const vague = await loadedFiles(root, 'copy a file or a directory and remove it');
    expect(vague.files.length).toBeGreaterThanOrEqual(6);
    expect(vague.outcome.artifacts.context_load_receipt.confidence!.level).not.toBe('high');
  });
});
