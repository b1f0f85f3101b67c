import type { FileLanguage } from '../../repomap/languages.js';
import { ablated } from './ablation.js';
import type { ImportStatement } from './import-statement.js';
import { rustUseStatements } from './rust-use-lines.js';

export type { ImportStatement };


const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * The top-level import statements of a Python, JavaScript/TypeScript, Go or Rust file, read from its lines (no
 * parse: an import is a line starting in column 0, continued by brackets or a trailing backslash; Rust's `use`
 * declarations: rust-use-lines.ts, switch `rust-use`). Other languages have none here. At most the first `limit`
 * lines are read: imports sit at a file's head.
 */
export function importStatements(language: FileLanguage, lines: readonly string[], limit = 400): ImportStatement[] {
  if (language === 'rust') return ablated('rust-use') ? [] : rustUseStatements(lines, limit);
  const out: ImportStatement[] = [];
  const n = Math.min(lines.length, limit);
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    let kind: 'py' | 'js' | 'go' | undefined;
    if (language === 'python' && /^(from\s+[\w.]+\s+import\b|import\s+[\w.])/.test(line)) kind = 'py';
    else if ((language === 'typescript' || language === 'javascript' || language === 'tsx') && /^import\b/.test(line)) kind = 'js';
    else if (language === 'go' && /^import\b/.test(line)) kind = 'go';
    if (!kind) continue;
    // The statement's last line: brackets balanced (and, for JavaScript, its `from '…'` or a bare `import '…'` seen).
    let depth = 0;
    let j = i;
    for (; j < n; j++) {
      const l = lines[j]!;
      for (const ch of l) if (ch === '(' || ch === '{') depth++;
      else if (ch === ')' || ch === '}') depth--;
      const continued = kind === 'py' && l.endsWith('\\');
      const open = kind === 'js' && depth <= 0 && !/\bfrom\s*['"]|^import\s*['"]|['"]\s*;?\s*$/.test(l);
      if (depth <= 0 && !continued && !open) break;
    }
    const end = Math.min(j, n - 1);
    const names = new Map<string, number>();
    for (let k = i; k <= end; k++) bindNames(kind, lines[k]!, k === i, k + 1, names);
    out.push({ start: i + 1, end: end + 1, names });
    i = end;
  }
  return out;
}

/** The names one line of an import statement binds (aliases win; module paths and keywords are not names). */
function bindNames(kind: 'py' | 'js' | 'go', line: string, first: boolean, at: number, names: Map<string, number>): void {
  let body = line;
  if (kind === 'py') {
    if (first) {
      const m = /^from\s+[\w.]+\s+import\b(.*)$/.exec(line) ?? /^import\b(.*)$/.exec(line);
      body = m ? m[1]! : '';
      // `import a.b.c` binds `a`.
      if (line.startsWith('import')) body = body.replace(/([A-Za-z_][\w]*)(\.[\w.]+)/g, '$1');
    }
    body = body.replace(/#.*$/, '');
    for (const part of body.split(',')) {
      const m = /([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?/.exec(part);
      if (m) names.set(m[2] ?? m[1]!, at);
    }
    return;
  }
  if (kind === 'js') {
    body = body.replace(/\bfrom\s*['"][^'"]*['"].*$/, '').replace(/['"][^'"]*['"]/g, '').replace(/^import\b/, '').replace(/\btype\b/g, '');
    for (const part of body.split(',')) {
      const m = /([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?/.exec(part.replace(/\*\s*as\s+/, ''));
      if (m) names.set(m[2] ?? m[1]!, at);
    }
    return;
  }
  // Go: `import "a/b"`, `import x "a/b"`, or a line of an import block.
  const m = /^\s*(?:import\s*\(?\s*)?([A-Za-z_]\w*\s+)?"([^"]+)"/.exec(line);
  if (m) names.set(m[1]?.trim() ?? m[2]!.slice(m[2]!.lastIndexOf('/') + 1), at);
}

/**
 * The import lines to show beside the `shown` lines of a file: for each statement binding a name that a shown line
 * (not itself an import) uses, its first line and the line binding the name; at most `max`, in file order.
 */
export function importLinesUsed(statements: readonly ImportStatement[], lines: readonly string[], shown: ReadonlySet<number>, max: number): number[] {
  if (!statements.length || max <= 0) return [];
  const inImport = (l: number) => statements.some((st) => st.start <= l && l <= st.end);
  const used = new Set<string>();
  for (const l of shown) if (!inImport(l)) for (const id of lines[l - 1]!.match(IDENT) ?? []) used.add(id);
  const wanted = new Set<number>();
  for (const st of statements)
    for (const [name, at] of st.names)
      if (used.has(name)) {
        wanted.add(st.start);
        wanted.add(at);
      }
  return [...wanted].sort((a, b) => a - b).slice(0, max);
}
