/// <reference types="emscripten" preserve="true" />
// web-tree-sitter's types name Emscripten globals: the reference keeps them resolvable in a consumer (skipLibCheck false).
import type { Query } from 'web-tree-sitter';
import { type CodeLanguage, loadLanguage, parserFor, treeSitter } from './languages.js';

/** Why a custom query does not compile for a language (tree-sitter's QueryError, flattened). */
export interface QueryProblem {
  language: CodeLanguage;
  message: string;
  kind?: string;
  offset?: number;
}

const compiled = new Map<string, Query | QueryProblem>();

/** Compiles `source` for `lang` (cached); a bad query gives a problem, never a throw. */
export async function compileCustomQuery(lang: CodeLanguage, source: string): Promise<Query | QueryProblem> {
  const key = `${lang}\0${source}`;
  let q = compiled.get(key);
  if (!q) {
    try {
      q = new (await treeSitter()).Query(await loadLanguage(lang), source);
    } catch (err) {
      const e = err as Error & { kind?: unknown; index?: unknown };
      q = { language: lang, message: e.message, ...(e.kind !== undefined ? { kind: String(e.kind) } : {}), ...(typeof e.index === 'number' ? { offset: e.index } : {}) };
    }
    compiled.set(key, q);
  }
  return q;
}

/** True for a compile problem (not a compiled query). */
export function isQueryProblem(q: Query | QueryProblem): q is QueryProblem {
  return typeof (q as QueryProblem).message === 'string' && 'language' in q && !('captures' in q);
}

/** 1-based lines covered by the captures of `query` in `text` (each capture capped at `maxLinesPerCapture`). */
export async function captureLines(lang: CodeLanguage, query: Query, text: string, maxLinesPerCapture = 30): Promise<{ lines: number[]; captures: number }> {
  const parser = await parserFor(lang);
  const tree = parser.parse(text);
  if (!tree) return { lines: [], captures: 0 };
  try {
    const lines = new Set<number>();
    const caps = query.captures(tree.rootNode);
    for (const c of caps) {
      const s = c.node.startPosition.row + 1;
      const e = Math.min(c.node.endPosition.row + 1, s + maxLinesPerCapture - 1);
      for (let l = s; l <= e; l++) lines.add(l);
    }
    return { lines: [...lines].sort((a, b) => a - b), captures: caps.length };
  } finally {
    tree.delete();
  }
}
