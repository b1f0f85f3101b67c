/**
 * What kind of file a path is, from its path alone (no content): a source file, a test, a document, an
 * example, generated or build output, or vendored third-party code. The navigator ranks sources first
 * unless the task is about tests or docs; the scanner skips build output even without a `.gitignore`.
 */
export type FileClass = 'source' | 'test' | 'doc' | 'example' | 'generated' | 'vendored' | 'config' | 'asset' | 'script';

const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'testing', 'testdata', 'e2e', 'fixtures', '__fixtures__', '__mocks__', 'benchmark', 'benchmarks', 'bench']);
const DOC_DIRS = new Set(['doc', 'docs', 'documentation', 'man', 'site', 'website']);
const EXAMPLE_DIRS = new Set(['example', 'examples', 'demo', 'demos', 'sample', 'samples', 'playground', 'tutorial', 'tutorials']);
const VENDOR_DIRS = new Set(['vendor', 'vendors', 'third_party', 'third-party', 'thirdparty', 'external', 'externals', 'extern', 'deps', 'bower_components', 'jspm_packages']);
/** The code host's and CI's folders (issue and pull-request templates, workflows): configuration of the project. */
const HOSTING_DIR = /^\.(github|gitlab|circleci|gitea|forgejo)\//;
/**
 * A file named after a release of something (`jquery-3.5.1.js`, `underscore-1.13.1.js`, `bootstrap-4.3.1.min.css`): a copy of
 * another project's published build dropped into this one. A project does not put its own version in its own
 * source file names.
 */
const RELEASE_COPY = /[-.]v?\d+\.\d+(?:\.\d+)*(?:[-.](?:min|slim|umd|esm|prod|production))*\.(?:[cm]?js|css)$/i;
/** Folders that only ever hold build output or caches: skipped by the scanner wherever they are. */
export const BUILD_OUTPUT_DIRS = new Set([
  'dist', 'coverage', '__pycache__', '.next', '.nuxt', '.svelte-kit', '.turbo', '.parcel-cache', '.cache', '.tox', '.nox', '.venv', 'venv',
  '.pytest_cache', '.mypy_cache', '.ruff_cache', '.gradle', '.eggs', 'htmlcov', '.terraform',
]);
/** Folders that hold build output when a build manifest sits beside them (`build/` next to `package.json`). */
export const BUILD_DIRS_BESIDE_MANIFEST = new Set(['build', 'out', 'target', 'lib-cov', 'bin-release']);
export const BUILD_MANIFESTS = ['package.json', 'setup.py', 'pyproject.toml', 'Cargo.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'go.mod', 'tsconfig.json'];

/** Images, fonts and logos kept as text (an SVG logo): never the code a task is about. */
const ASSET_EXT = /\.(svg|ico|icns|ttf|otf|woff2?|eot|pdf|psd|sketch)$/i;
const DOC_EXT = /\.(md|mdx|markdown|rst|txt|adoc|asciidoc|textile|org)$/i;
const CONFIG_EXT = /\.(json|ya?ml|toml|ini|cfg|conf|lock|xml|properties|editorconfig|gitattributes|gitignore|npmrc|nvmrc)$/i;
/** Files that are build output or generated, by name alone (skipped by the scanner). */
const GENERATED_FILE = /(\.min\.(js|css|mjs)|\.bundle\.js|\.map|\.chunk\.js)$|^(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|npm-shrinkwrap\.json|bun\.lockb?|Cargo\.lock|poetry\.lock|Pipfile\.lock|go\.sum|composer\.lock|Gemfile\.lock|uv\.lock)$/;
/** Files that are generated but may be worth a look (declarations, protobuf stubs, message catalogs extracted from
 * the sources: a translation quotes the source's messages, it does not raise them): ranked last, not skipped. */
const GENERATED_SOURCE = /(\.pot?|\.d\.[mc]?ts|\.pb\.go|_pb2\.py|_pb2_grpc\.py|\.pb\.(cc|h)|_generated\.\w+|\.generated\.\w+|\.g\.dart|_string\.go)$/;

/** True for a file name the scanner skips as generated output (lock files, minified bundles, source maps). */
export function isGeneratedFileName(base: string): boolean {
  return GENERATED_FILE.test(base);
}

/** What a folder path says of the files in it (bits of DIR_*), by folder: files share their folders, rules test them once. */
const DIR_VENDORED = 1;
const DIR_GENERATED = 2;
const DIR_TEST = 4;
const DIR_EXAMPLE = 8;
const DIR_DOC = 16;
const folderBits = new Map<string, number>();
const FOLDER_MEMO_MAX = 50_000;

function bitsOfFolder(folder: string): number {
  let bits = folderBits.get(folder);
  if (bits !== undefined) return bits;
  // `_examples/`, `.docs/`: a leading underscore or dot (Go's "ignore this folder" convention) does not change what a folder holds.
  const raw = folder === '' ? [] : folder.split('/').map((d) => d.toLowerCase());
  const dirs = [...raw, ...raw.map((d) => d.replace(/^[_.]+(?=[a-z])/, '')).filter((d, i) => d !== raw[i])];
  bits = 0;
  if (dirs.some((d) => VENDOR_DIRS.has(d) || d === 'node_modules')) bits |= DIR_VENDORED;
  // gettext's layout (`locale/<lang>/LC_MESSAGES/`): catalogs in whatever form a project ships them (.po, .mo, .js).
  if (dirs.some((d) => BUILD_OUTPUT_DIRS.has(d) || d === 'lc_messages')) bits |= DIR_GENERATED;
  if (dirs.some((d) => TEST_DIRS.has(d))) bits |= DIR_TEST;
  if (dirs.some((d) => EXAMPLE_DIRS.has(d))) bits |= DIR_EXAMPLE;
  if (dirs.some((d) => DOC_DIRS.has(d))) bits |= DIR_DOC;
  if (folderBits.size >= FOLDER_MEMO_MAX) folderBits.clear();
  folderBits.set(folder, bits);
  return bits;
}

/** The class of a repository-relative POSIX path. */
export function classifyPath(rel: string): FileClass {
  // `.github/ISSUE_TEMPLATE/bug_report.md` is no document: every issue written from it repeats its headings.
  if (HOSTING_DIR.test(rel)) return 'config';
  const slash = rel.lastIndexOf('/');
  const base = rel.slice(slash + 1);
  const dirs = bitsOfFolder(slash < 0 ? '' : rel.slice(0, slash));
  if (dirs & DIR_VENDORED || RELEASE_COPY.test(base)) return 'vendored';
  if (ASSET_EXT.test(base)) return 'asset';
  if (isGeneratedFileName(base) || GENERATED_SOURCE.test(base) || dirs & DIR_GENERATED) return 'generated';
  const lower = base.toLowerCase();
  // Rust keeps a module's tests in a `tests.rs` (or `test.rs`) beside it.
  if (dirs & DIR_TEST || /^tests?\.rs$|^test_.*\.py$|_tests?\.(py|go|rs|rb|exs?)$|\.(test|spec|e2e)\.[cm]?[jt]sx?$|^conftest\.py$|Tests?\.(java|kt|cs|swift)$|_spec\.rb$/.test(base)) return 'test';
  if (dirs & DIR_EXAMPLE) return 'example';
  // `README.zh-CN.md`, `LICENSE-MIT`, `CHANGELOG-1.x`: a translation or a variant is a document too (`license.rs` is code).
  if (dirs & DIR_DOC || DOC_EXT.test(base) || /^(readme|changelog|changes|history|contributing|license|licence|copying|authors|contributors|notice|security|code_of_conduct|maintainers|support)([._-]|$)/.test(lower) && !languageFamily(base)) return 'doc';
  if (CONFIG_EXT.test(base) || base.startsWith('.') || /^(makefile|dockerfile|procfile|justfile)$/.test(lower)) return 'config';
  return 'source';
}

const JS_EXT = /\.(js|mjs|cjs|jsx)$/;
const TS_EXT = /\.(ts|tsx|mts|cts)$/;
const OUTPUT_ROOTS = new Set(['src', 'lib', 'dist', 'build', 'out', 'esm', 'cjs', 'es', 'module', 'source']);

function mirrorKey(rel: string): string {
  const parts = rel.replace(/\.[^./]+$/, '').split('/');
  // Up to two output roots: `src/lib/x.ts` compiles to `lib/x.js` (the SDK layout) as `src/x.ts` to `dist/x.js`.
  for (let k = 0; k < 2 && parts.length > 1 && OUTPUT_ROOTS.has(parts[0]!); k++) parts.shift();
  return parts.join('/');
}

/**
 * JavaScript files that mirror a TypeScript source of the same name (`lib/stream.mjs` beside
 * `src/lib/stream.ts`, `index.js` beside `src/index.ts`): compiled output shipped with its sources, so
 * generated. A JavaScript-only repository has no mirrors.
 */
export function compiledMirrors(paths: readonly string[]): Set<string> {
  const ts = new Set<string>();
  for (const p of paths) if (TS_EXT.test(p) && !/\.d\.[mc]?ts$/.test(p)) ts.add(mirrorKey(p));
  const out = new Set<string>();
  if (!ts.size) return out;
  for (const p of paths) if (JS_EXT.test(p) && ts.has(mirrorKey(p))) out.add(p);
  return out;
}

/**
 * Markers a tool leaves in the first lines of what it wrote: `@generated`, `DO NOT EDIT` (Go's `Code generated …
 * DO NOT EDIT.`), "this file was automatically generated", a comment line starting "Generated by …", an
 * amalgamation of many sources into one (single-header builds), and the output of parser and scanner generators
 * (Bison, yacc, flex, ANTLR, PEG generators).
 */
const GENERATED_MARKER = new RegExp(
  [
    '@generated\\b',
    '\\bDO NOT EDIT\\b',
    '\\b(?:this|the following) (?:file|code|source(?: file)?) (?:is|was|has been) (?:auto(?:matically)?[- ]?)?generated\\b',
    '^[\\s/*#;!-]*(?:auto(?:matically)?[- ]?)?generated (?:by|from|with|using)\\b',
    '\\bamalgamat(?:ed|ion)\\b',
    '\\bA Bison parser, made by\\b',
    '\\bgenerated by (?:GNU )?(?:Bison|yacc|byacc|flex|lex|re2c|ANTLR|peg|pegjs|peggy|nearley|jison|lemon|ragel|protoc|cbindgen|bindgen|swig|cython)\\b',
    '\\blexical scanner generated by flex\\b',
  ].join('|'),
  'im',
);

/** How many characters of a file's start are read for markers. */
export const CONTENT_HEAD_CHARS = 1500;

/** The class a file's first characters give it (`generated` for a tool's output), or undefined when they say nothing. */
export function classifyContent(head: string): FileClass | undefined {
  return GENERATED_MARKER.test(head.slice(0, CONTENT_HEAD_CHARS)) ? 'generated' : undefined;
}

/** Language families by extension: a repository's own code is mostly in one or two of them. */
const FAMILY: Record<string, string> = {};
for (const [family, exts] of Object.entries({
  rust: 'rs',
  go: 'go',
  jvm: 'java kt kts scala groovy',
  js: 'ts tsx mts cts js jsx mjs cjs',
  python: 'py pyi pyx',
  c: 'c h cc cpp cxx hpp hh hxx ipp inl tpp',
  ruby: 'rb',
  shell: 'sh bash zsh fish ps1 psm1 bat cmd',
  php: 'php',
  csharp: 'cs',
  swift: 'swift',
  lua: 'lua',
  perl: 'pl pm',
  r: 'r',
  cmake: 'cmake',
}))
  for (const e of exts.split(' ')) FAMILY[e] = family;

/** The language family of a path by its extension (`rust`, `js`, `shell`, …), or undefined for other files. */
export function languageFamily(rel: string): string | undefined {
  const dot = rel.lastIndexOf('.');
  if (dot < 0 || dot < rel.lastIndexOf('/')) return undefined;
  return FAMILY[rel.slice(dot + 1).toLowerCase()];
}

/** A family is the repository's own when it holds at least this share of its source files. */
export const OWN_FAMILY_SHARE = 0.1;

/**
 * The language families a repository's own source is written in: those holding at least OWN_FAMILY_SHARE of the
 * files classified `source` (shell never: build and CI scripts). A source file of another family is a helper
 * script (`support/release.py` in a C++ library, `scripts/gen.js` in a Go service).
 */
export function ownFamilies(paths: readonly string[], classOf: (p: string) => FileClass = classifyPath): Set<string> {
  const count = new Map<string, number>();
  let total = 0;
  for (const p of paths) {
    const fam = languageFamily(p);
    if (!fam || classOf(p) !== 'source') continue;
    count.set(fam, (count.get(fam) ?? 0) + 1);
    total++;
  }
  const own = new Set<string>();
  for (const [fam, n] of count) if (fam !== 'shell' && n >= OWN_FAMILY_SHARE * total) own.add(fam);
  return own;
}
