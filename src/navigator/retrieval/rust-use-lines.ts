import type { ImportStatement } from './import-statement.js';

/** A top-level `use` declaration (`pub use`, `pub(crate) use`) or `extern crate`, starting in column 0. */
const USE_START = /^(?:pub(?:\s*\([^)]*\))?\s+)?(?:use\s|extern\s+crate\s)/;
const TOKEN = /[A-Za-z_][A-Za-z0-9_]*|::|[{},;*]/g;

/**
 * The top-level `use` declarations (and `extern crate`) of a Rust file, read from its lines (no parse: a
 * declaration starts in column 0 and ends at the `;` outside its braces). Each binds the last segment of every path
 * in it, or its `as` alias (`use a::{b::{C, D as E}, self as f};` binds C, E and f on the lines naming them; a
 * `self` binds the segment before its braces; a glob binds nothing). At most the first `limit` lines are read.
 */
export function rustUseStatements(lines: readonly string[], limit: number): ImportStatement[] {
  const out: ImportStatement[] = [];
  const n = Math.min(lines.length, limit);
  for (let i = 0; i < n; i++) {
    if (!USE_START.test(lines[i]!)) continue;
    const names = new Map<string, number>();
    // Per open brace, the segment before it (what a `self` inside binds); the current path's last segment.
    const stack: (readonly [string, number] | undefined)[] = [];
    let last: readonly [string, number] | undefined;
    let started = false;
    let prev = '';
    let end = -1;
    const bind = (at: readonly [string, number] | undefined) => {
      if (!at) return;
      const [name, line] = at[0] === 'self' ? [stack.at(-1)?.[0], at[1]] : at;
      if (name && name !== 'super' && name !== 'crate' && name !== '_') names.set(name, line);
    };
    for (let j = i; j < n && end < 0; j++) {
      const code = lines[j]!.replace(/\/\/.*$/, '');
      for (const m of code.matchAll(TOKEN)) {
        const tok = m[0];
        if (!started) {
          // Skip `pub`, `pub(crate)`, `extern` up to the keyword that opens the path (`use`, or `crate` after `extern`).
          started = tok === 'use' || (tok === 'crate' && prev === 'extern');
          prev = tok;
          continue;
        }
        // `a as b`: the alias replaces the segment.
        if (tok === 'as' || tok === '::') continue;
        if (/^[A-Za-z_]/.test(tok)) last = [tok, j + 1];
        else if (tok === '*') last = undefined;
        else if (tok === '{') {
          stack.push(last);
          last = undefined;
        } else {
          // `,`, `}` or `;` closes a path: its last segment (or alias) is bound.
          bind(last);
          last = undefined;
          if (tok === '}') stack.pop();
          else if (tok === ';' && stack.length === 0) {
            end = j;
            break;
          }
        }
      }
    }
    if (end < 0) end = Math.min(i, n - 1);
    out.push({ start: i + 1, end: end + 1, names });
    i = end;
  }
  return out;
}
