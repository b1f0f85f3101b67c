import type { Query, Node } from 'web-tree-sitter';
import { type CodeLanguage, type FileLanguage, isCodeLanguage, loadLanguage, parserFor, treeSitter } from './languages.js';
import { definitionQuery, referenceQuery } from './queries.js';

/** A definition found in a file. Lines are 1-based and inclusive. */
export interface Definition {
  name: string;
  kind: string;
  /** First line of the definition (including `export`, decorators). */
  start: number;
  end: number;
  /** Last line of the signature: the line where the body starts (or `start`). */
  header_end: number;
  /** Doc comment lines (preceding comments, or a Python docstring), if any. */
  doc: [number, number] | null;
  /** Index of the enclosing definition in the outline, or null at top level. */
  parent: number | null;
}

/** What the repo map knows of a file without reading it again: its definitions and referenced names. */
export interface Outline {
  defs: Definition[];
  /** Referenced identifiers with counts, sorted by name. */
  refs: [string, number][];
  /** Set when tree-sitter could not parse the file (rendered as plain text then). */
  parse_error?: string;
  /** C and C++: the files `#include` names (`"kv.h"` → `kv.h`, `<fmt/core.h>` → `fmt/core.h`), in source order, once each. */
  includes?: string[];
}

const queries = new Map<CodeLanguage, Promise<Query>>();

/**
 * The definitions and references patterns of `lang` as one query, compiled once per process: one pass
 * over the tree finds both (two passes cost twice the walk). References capture `@reference` only.
 */
function outlineQuery(lang: CodeLanguage): Promise<Query> {
  let q = queries.get(lang);
  if (!q) {
    q = Promise.all([treeSitter(), loadLanguage(lang)]).then(([ts, language]) => new ts.Query(language, definitionQuery(lang) + referenceQuery(lang)));
    queries.set(lang, q);
  }
  return q;
}

const KIND_PRIORITY = ['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'module', 'type', 'method', 'function', 'macro', 'constant', 'variable'];

/** The outer node that carries a definition's comments and modifiers (export, decorators). */
function outerNode(node: Node): Node {
  let n = node;
  for (;;) {
    const p = n.parent;
    if (!p) return n;
    if (p.type === 'export_statement' || p.type === 'decorated_definition' || p.type === 'template_declaration') n = p;
    else if ((p.type === 'lexical_declaration' || p.type === 'variable_declaration') && n.type === 'variable_declarator') n = p;
    else return n;
  }
}

/** Declarator types whose `declarator` field leads on to the declared name (`*f`, `&f`, `f(…)`, `(f)`). */
const DECLARATOR_CHAIN = new Set(['function_declarator', 'pointer_declarator', 'reference_declarator', 'parenthesized_declarator', 'array_declarator', 'attributed_declarator']);

/**
 * The name a C or C++ declarator or type name declares: down the declarator chain to the name, then its last
 * segment (`ns::A::f` → `f`, `A::~A` → `~A`) without template arguments (`formatter<T, Char>` → `formatter`);
 * an operator keeps its symbol (`operator<<`). Undefined when there is no name (an abstract declarator).
 */
export function cDeclaredName(node: Node): string | undefined {
  let d: Node | null = node;
  while (d && DECLARATOR_CHAIN.has(d.type)) d = d.childForFieldName('declarator') ?? d.namedChildren.find((c) => c !== null) ?? null;
  if (!d) return undefined;
  return cxxShortName(d.text);
}

function withoutTemplateArguments(t: string): string {
  let flat = '';
  let depth = 0;
  for (const ch of t) {
    if (ch === '<') depth++;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) flat += ch;
  }
  return flat;
}

/** The last segment of a C++ qualified name without template arguments (see cDeclaredName). */
export function cxxShortName(text: string): string | undefined {
  const t = text.replace(/\s+/g, ' ').trim();
  const op = /\boperator\b/.exec(t);
  if (op) {
    // `operator()`, `operator<<`, `operator new`, a conversion `operator std::string() const` → `operator std::string`.
    const rest = t.slice(op.index + 'operator'.length).trim();
    const sym = /^(\(\)|\[\]|""\s*\w+|[^\w\s(]+|(?:new|delete)(?:\s*\[\])?)/.exec(rest);
    if (sym) return /^(new|delete)/.test(sym[1]!) ? `operator ${sym[1]!.replace(/\s+/g, '')}` : `operator${sym[1]!.replace(/\s+/g, '')}`;
    const conv = withoutTemplateArguments(rest.split('(')[0]!).trim();
    return conv ? `operator ${conv}` : 'operator';
  }
  const last = withoutTemplateArguments(t).split('::').pop()!.trim();
  return /^~?[A-Za-z_$][\w$]*$/.test(last) ? last : undefined;
}

function bodyOf(node: Node): Node | null {
  const direct = node.childForFieldName('body');
  if (direct) return direct;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'variable_declarator') {
      const value = child.childForFieldName('value');
      const b = value?.childForFieldName('body');
      if (b) return b;
    }
    if (child.type === 'type_spec') {
      const t = child.childForFieldName('type');
      if (t && (t.type === 'struct_type' || t.type === 'interface_type')) return t;
    }
  }
  return null;
}

function docOf(lang: CodeLanguage, node: Node, outer: Node): [number, number] | null {
  if (lang === 'python') {
    const body = node.childForFieldName('body');
    const first = body?.namedChildren[0];
    if (first && first.type === 'expression_statement' && first.namedChildren[0]?.type === 'string') {
      return [first.startPosition.row + 1, first.endPosition.row + 1];
    }
  }
  let prev = outer.previousNamedSibling;
  let start: number | null = null;
  let end: number | null = null;
  let expectRow = outer.startPosition.row;
  for (; prev; prev = prev.previousNamedSibling) {
    // Rust attributes (`#[inline]`, `#[derive(…)]`) sit between an item and its doc comment.
    if (prev.type === 'attribute_item') {
      if (prev.endPosition.row < expectRow - 1) break;
      expectRow = prev.startPosition.row;
      continue;
    }
    if (prev.type !== 'comment' && prev.type !== 'line_comment' && prev.type !== 'block_comment') break;
    if (prev.endPosition.row < expectRow - 1) break;
    start = prev.startPosition.row + 1;
    // A line comment node may include its newline and end at column 0 of the next row.
    end ??= prev.endPosition.column === 0 ? prev.endPosition.row : prev.endPosition.row + 1;
    expectRow = prev.startPosition.row;
  }
  return start !== null && end !== null ? [start, end] : null;
}

/**
 * Definitions in source order (by start offset, the outer one first when two start together), each with the
 * index of the innermost definition whose span holds it as its parent.
 */
export function nestDefinitions(found: { def: Omit<Definition, 'parent'>; startIndex: number; endIndex: number }[]): Definition[] {
  const sorted = [...found].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const defs: Definition[] = [];
  const stack: { idx: number; endIndex: number }[] = [];
  for (const s of sorted) {
    while (stack.length && stack[stack.length - 1]!.endIndex < s.endIndex) stack.pop();
    while (stack.length && stack[stack.length - 1]!.endIndex <= s.startIndex) stack.pop();
    defs.push({ ...s.def, parent: stack.length ? stack[stack.length - 1]!.idx : null });
    stack.push({ idx: defs.length - 1, endIndex: s.endIndex });
  }
  return defs;
}

/** Parses `text` as `lang` and extracts its outline. Never throws for bad code: a parse failure is recorded. */
export async function extractOutline(lang: FileLanguage, text: string): Promise<Outline> {
  if (lang === 'markdown') return markdownOutline(text);
  if (!isCodeLanguage(lang)) return { defs: [], refs: [] };
  const parser = await parserFor(lang);
  const tree = parser.parse(text);
  if (!tree) return { defs: [], refs: [], parse_error: 'tree-sitter returned no tree' };
  try {
    const root = tree.rootNode;
    const query = await outlineQuery(lang);
    const counts = new Map<string, number>();
    const byNode = new Map<number, { def: Omit<Definition, 'parent'>; prio: number; startIndex: number; endIndex: number }>();
    const includes: string[] = [];
    for (const match of query.matches(root)) {
      let defNode: Node | undefined;
      let kind = '';
      let name = '';
      for (const c of match.captures) {
        if (c.name === 'include') {
          const inc = c.node.text.slice(1, -1).trim();
          if (inc && inc.length <= 200 && !includes.includes(inc)) includes.push(inc);
        } else if (c.name === 'reference') {
          const t = c.node.text;
          if (t.length > 0 && t.length <= 100) counts.set(t, (counts.get(t) ?? 0) + 1);
        } else if (c.name === 'name') name = (lang === 'c' || lang === 'cpp' ? cDeclaredName(c.node) : c.node.text) ?? '';
        else if (c.name.startsWith('definition.')) {
          defNode = c.node;
          kind = c.name.slice('definition.'.length);
        }
      }
      if (!defNode || !name) continue;
      const outer = outerNode(defNode);
      const body = bodyOf(defNode);
      const start = outer.startPosition.row + 1;
      // A node that takes its line's newline (a `#define`) ends at column 0 of the next row: it ends on the row before.
      const end = outer.endPosition.column === 0 && outer.endPosition.row > outer.startPosition.row ? outer.endPosition.row : outer.endPosition.row + 1;
      // Python blocks start on the line after the colon; brace bodies start on the signature's last line.
      const bodyLine = body ? body.startPosition.row + 1 : defNode.startPosition.row + 1;
      const headerEnd = body && lang === 'python' ? Math.max(defNode.startPosition.row + 1, bodyLine - 1) : Math.max(start, bodyLine);
      const prio = KIND_PRIORITY.indexOf(kind);
      const key = outer.startIndex * 1_000_003 + outer.endIndex;
      const prev = byNode.get(key);
      if (prev && prev.prio <= prio) continue;
      byNode.set(key, {
        def: { name: name.split('\n')[0]!.slice(0, 200), kind, start, end, header_end: Math.min(headerEnd, end), doc: docOf(lang, defNode, outer) },
        prio,
        startIndex: outer.startIndex,
        endIndex: outer.endIndex,
      });
    }
    const defs = nestDefinitions([...byNode.values()]);
    const refs = [...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const out: Outline = { defs, refs, ...(includes.length ? { includes } : {}) };
    if (root.hasError && defs.length === 0) out.parse_error = 'syntax errors and no definitions found';
    return out;
  } finally {
    tree.delete();
  }
}

/** Markdown: every ATX heading is a section that runs to the next heading of the same or a higher rank. */
export function markdownOutline(text: string): Outline {
  const lines = text.split('\n');
  const heads: { line: number; rank: number; name: string }[] = [];
  let fence = false;
  lines.forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    if (fence) return;
    const m = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(l);
    if (m) heads.push({ line: i + 1, rank: m[1]!.length, name: m[2]! });
  });
  const total = text.endsWith('\n') ? lines.length - 1 : lines.length;
  const defs: Definition[] = [];
  const stack: { idx: number; rank: number }[] = [];
  heads.forEach((h, i) => {
    let end = total;
    for (let j = i + 1; j < heads.length; j++) {
      if (heads[j]!.rank <= h.rank) {
        end = heads[j]!.line - 1;
        break;
      }
    }
    while (stack.length && stack[stack.length - 1]!.rank >= h.rank) stack.pop();
    defs.push({ name: h.name, kind: 'heading', start: h.line, end: Math.max(h.line, end), header_end: h.line, doc: null, parent: stack.length ? stack[stack.length - 1]!.idx : null });
    stack.push({ idx: defs.length - 1, rank: h.rank });
  });
  return { defs, refs: [] };
}
