/**
 * Keyword arguments of the calls in an issue's code (`draw(data, gutter_width=-2)`, a call spread over several
 * lines): names a function's signature declares. A keyword is often passed on through `**kwargs` to the code that
 * takes it, where no name of the snippet is defined, so it is evidence of its own kind (resolvers/keywords.ts). Pure.
 */

const KEYWORD = /(?:^|[(,])\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/g;

/** The code without strings and comments (a `=` in a string is no keyword). */
const bare = (line: string) => line.replace(/"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, '""').replace(/#.*$/, '');

/**
 * Keyword names (three characters or more) passed in calls of `code`, first seen first: `name=` right after a call's
 * `(` or a `,`, or at the start of a line inside an open call. Assignments and comparisons are not keywords.
 */
export function keywordArguments(code: string): string[] {
  const out: string[] = [];
  let depth = 0;
  for (const raw of code.split('\n')) {
    const line = bare(raw.replace(/^\s*(>>>|\.\.\.|In \[\d+\]:)\s?/, ''));
    for (const m of line.matchAll(KEYWORD)) {
      // At the start of a line only inside an open call (`x = 3` at depth 0 is an assignment).
      const atStart = !/[(,]/.test(line.slice(m.index, m.index + m[0].indexOf(m[1]!)));
      if (atStart && (m.index > 0 || depth === 0)) continue;
      // Inside a call's brackets: the text before this match opens more `(` than it closes (or an earlier line did).
      const before = line.slice(0, m.index + 1);
      const open = depth + (before.match(/\(/g) ?? []).length - (before.match(/\)/g) ?? []).length;
      if (open <= 0) continue;
      const name = m[1]!;
      if (name.length >= 3 && !out.includes(name)) out.push(name);
    }
    depth = Math.max(0, depth + (line.match(/\(/g) ?? []).length - (line.match(/\)/g) ?? []).length);
  }
  return out;
}
