import { readFileSync } from 'node:fs';
import { resolveInsideRoot } from '../../repomap/index.js';
import { fileLines } from '../retrieval/line-ranges.js';

const MAX_LINE = 240;
const clip = (line: string) => (line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);

/** Lines of context.md that are not (any longer) the repository's lines: `path:line` with what differs. */
export function staleContextLines(root: string, contextMd: string): string[] {
  const problems: string[] = [];
  const blocks = contextMd.split(/^==> /m).slice(1);
  for (const b of blocks) {
    const head = /^(.+?) \[L\d, (\d+) lines(; \d+ shown)?[^\]]*\] <==\n/.exec(b);
    if (!head) continue;
    const rel = head[1]!;
    let lines: string[];
    try {
      lines = fileLines(readFileSync(resolveInsideRoot(root, rel), 'utf8'));
    } catch (err) {
      problems.push(`${rel}: ${(err as Error).message}`);
      continue;
    }
    const body = b.slice(head[0].length).split('\n');
    if (body[body.length - 1] === '') body.pop();
    if (!head[3]) {
      if (body.length !== lines.length || body.some((l, i) => l !== clip(lines[i]!))) problems.push(`${rel}: the whole file shown is not the file's text`);
      continue;
    }
    for (const l of body) {
      const m = /^(\d+)│(.*)$/.exec(l);
      if (!m) continue;
      const n = Number(m[1]);
      if (n < 1 || n > lines.length || clip(lines[n - 1]!) !== m[2]) problems.push(`${rel}:${n} differs from the repository`);
    }
  }
  return problems;
}

