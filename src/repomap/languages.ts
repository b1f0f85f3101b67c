/// <reference types="emscripten" preserve="true" />
// web-tree-sitter's types name Emscripten globals: the reference keeps them resolvable in a consumer (skipLibCheck false).
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { requireOptionalPackage } from '../optional-package.js';

/** Languages the repo map parses with tree-sitter. */
export type CodeLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'cpp';
/** Every file kind the repo map renders: code, Markdown (headings as sections) or plain text. */
export type FileLanguage = CodeLanguage | 'markdown' | 'text';

export const CODE_LANGUAGES: readonly CodeLanguage[] = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'c', 'cpp'];

const EXTENSIONS: Record<string, FileLanguage> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.h++': 'cpp',
  '.ipp': 'cpp',
  '.tpp': 'cpp',
  '.inl': 'cpp',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
};

/**
 * The language of a repo-relative path (by extension; anything else is plain text). A `.h` header is C or C++
 * by the extension alone never: `headers` says which (see headerLanguage), C when not given.
 */
export function languageOf(relPath: string, headers: 'c' | 'cpp' = 'c'): FileLanguage {
  if (relPath.endsWith('.d.ts')) return 'typescript';
  const ext = path.extname(relPath).toLowerCase();
  if (ext === '.h') return headers;
  return EXTENSIONS[ext] ?? 'text';
}

/**
 * How a repository's `.h` headers are parsed: with the C++ grammar when its C++ files (`.cc`, `.cpp`, `.hpp`, …)
 * are at least as many as its `.c` files, else with the C grammar. The C++ grammar reads C headers well
 * (`extern "C"` guards, prototypes, macros) while the C grammar fails on classes, templates and namespaces; a C
 * project with a few C++ files (bindings, a test) keeps C. A repository with neither: C. `paths` should leave out
 * vendored and generated files (a bundled C library does not make a C++ project C).
 */
export function headerLanguage(paths: Iterable<string>): 'c' | 'cpp' {
  let c = 0;
  let cpp = 0;
  for (const p of paths) {
    const ext = path.extname(p).toLowerCase();
    if (ext === '.c') c++;
    else if (ext !== '.h' && EXTENSIONS[ext] === 'cpp') cpp++;
  }
  return cpp > 0 && cpp >= c ? 'cpp' : 'c';
}

export function isCodeLanguage(lang: FileLanguage): lang is CodeLanguage {
  return (CODE_LANGUAGES as readonly string[]).includes(lang);
}

const require = createRequire(import.meta.url);

/**
 * Where each grammar comes from: `@vscode/tree-sitter-wasm` 0.3.x (its `wasm/` folder) for all but C, which that set
 * lacks: C from `@repomix/tree-sitter-wasms` 0.1.x (its `out/` folder; its `main` is not shipped, so its
 * package.json is resolved). C++ stays with the first set: its grammar parses about 1.5× faster than the other's here.
 */
export function grammarPath(lang: CodeLanguage): string {
  if (lang === 'c') {
    requireOptionalPackage('@repomix/tree-sitter-wasms', 'the repo map of C files', '@repomix/tree-sitter-wasms/package.json');
    return path.join(path.dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out', 'tree-sitter-c.wasm');
  }
  requireOptionalPackage('@vscode/tree-sitter-wasm', 'the repo map (navigate, explore, renderFlightPlan)', '@vscode/tree-sitter-wasm/package.json');
  const dir = path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json'));
  return path.join(dir, 'wasm', `tree-sitter-${lang}.wasm`);
}

type TreeSitter = typeof import('web-tree-sitter');
let module_: Promise<TreeSitter> | undefined;

/** web-tree-sitter, imported on first use only: a warm index never loads it (nor any grammar). */
export function treeSitter(): Promise<TreeSitter> {
  module_ ??= import('web-tree-sitter');
  return module_;
}

let initialised: Promise<void> | undefined;
const languages = new Map<CodeLanguage, Promise<Language>>();
const parsers = new Map<CodeLanguage, Parser>();

/** Initialise web-tree-sitter once per process. */
export function initTreeSitter(): Promise<void> {
  initialised ??= treeSitter().then((ts) => ts.Parser.init());
  return initialised;
}

/** The loaded grammar of `lang` (loaded once per process). */
export async function loadLanguage(lang: CodeLanguage): Promise<Language> {
  await initTreeSitter();
  let p = languages.get(lang);
  if (!p) {
    p = treeSitter().then((ts) => ts.Language.load(grammarPath(lang)));
    languages.set(lang, p);
  }
  return p;
}

/** A parser set to `lang`, reused across files. */
export async function parserFor(lang: CodeLanguage): Promise<Parser> {
  const language = await loadLanguage(lang);
  let parser = parsers.get(lang);
  if (!parser) {
    parser = new (await treeSitter()).Parser();
    parser.setLanguage(language);
    parsers.set(lang, parser);
  }
  return parser;
}
