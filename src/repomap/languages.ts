/// <reference types="emscripten" preserve="true" />
// web-tree-sitter's types name Emscripten globals: the reference keeps them resolvable in a consumer (skipLibCheck false).
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { requireOptionalPackage } from '../optional-package.js';

/** Languages the repo map parses with tree-sitter. */
export type CodeLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java';
/** Every file kind the repo map renders: code, Markdown (headings as sections) or plain text. */
export type FileLanguage = CodeLanguage | 'markdown' | 'text';

export const CODE_LANGUAGES: readonly CodeLanguage[] = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java'];

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
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
};

/** The language of a repo-relative path (by extension; anything else is plain text). */
export function languageOf(relPath: string): FileLanguage {
  if (relPath.endsWith('.d.ts')) return 'typescript';
  return EXTENSIONS[path.extname(relPath).toLowerCase()] ?? 'text';
}

export function isCodeLanguage(lang: FileLanguage): lang is CodeLanguage {
  return (CODE_LANGUAGES as readonly string[]).includes(lang);
}

const require = createRequire(import.meta.url);

/** Where each grammar comes from: one grammar set, `@vscode/tree-sitter-wasm` 0.3.x (its `wasm/` folder). */
export function grammarPath(lang: CodeLanguage): string {
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
