// gpt-tokenizer counts every token navkernel counts (docs/decisions.md, "Tokenizer"); js-tiktoken is only a dev
// dependency that pins the counts in tests/repomap/tokens.test.ts. The published schemas and the contracts they are
// generated from must say so, not name the tokenizer that went (issue 22.10).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';

const files = (dir: string, ext: string) =>
  (readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith(ext)).map((f) => path.join(dir, f));

describe('the tokenizer the schemas and contracts name', () => {
  it('no schema and no contract names js-tiktoken', () => {
    const stale = [...files('schemas', '.json'), ...files('src/contracts', '.ts')].filter((f) => /tiktoken/i.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(stale).toEqual([]);
  });

  it("the capsule's token budget names gpt-tokenizer and its encoding", () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas', 'cnf-capsule.schema.json'), 'utf8')) as unknown;
    const descriptions: string[] = [];
    const walk = (v: unknown, key?: string) => {
      if (Array.isArray(v)) v.forEach((x) => walk(x));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
      else if (key === 'description' && typeof v === 'string') descriptions.push(v);
    };
    walk(schema);
    expect(descriptions.filter((d) => /^Tokens of the loaded context/.test(d))).toEqual(['Tokens of the loaded context (counted by gpt-tokenizer, o200k_base), at most']);
  });
});
