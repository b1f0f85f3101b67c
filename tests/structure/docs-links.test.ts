import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

const DOCS = ['README.md', 'examples/README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Markdown anchors GitHub makes from a file's headings. */
function anchors(text: string): Set<string> {
  return new Set([...text.matchAll(/^#+\s+(.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));
}

describe('documentation links', () => {
  it('every relative link of the README, examples/README.md and docs/ points at a file (and heading) that exists', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(path.join(ROOT, doc), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/i.test(link)) continue;
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file ? path.join(path.dirname(path.join(ROOT, doc)), file) : path.join(ROOT, doc);
        if (!existsSync(target)) broken.push(`${doc}: ${link}`);
        else if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${doc}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
