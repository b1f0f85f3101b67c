import path from 'node:path';
import { writeFileSync, mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readIssue, resolveEvidence } from '../../src/navigator/retrieval/evidence/index.js';
import { EVIDENCE_RESOLVERS, EVIDENCE_WEIGHTS, repoViewOf } from '../../src/navigator/retrieval/evidence/resolvers/index.js';
import { resolveFlags } from '../../src/navigator/retrieval/evidence/resolvers/flags.js';
import { resolveFrames } from '../../src/navigator/retrieval/evidence/resolvers/frames.js';
import { LEX_FIELDS_EXTRAS } from '../../src/navigator/retrieval/lex-fields.js';
import { openTextIndex } from '../../src/navigator/index.js';
import { indexRepo } from '../../src/repomap/index.js';
import { scratch } from '../repomap/fixture.js';

const dirs = scratch();
afterAll(() => dirs.cleanup());

async function fixture() {
  const root = dirs.tmp('nk-resolvers-');
  const files: Record<string, string> = {
    'tool/cli.py': ['def parse(argv):', '    if "--word-regexp" in argv:', '        return True', '    return False', ''].join('\n'),
    'tool/core.py': ['def run(x):', '    return explode(x)', '', 'def explode(x):', '    raise ValueError("cannot explode this value")', ''].join('\n'),
  };
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    writeFileSync(path.join(root, p), t);
  }
  const index = await indexRepo(root, { extras: LEX_FIELDS_EXTRAS, cacheDir: false });
  const text = openTextIndex(index, false);
  return { index, text, view: repoViewOf(index, text, (p) => text.classOf(p)) };
}

const ISSUE = [
  'Passing `--word-regexp` crashes:',
  '',
  'Traceback (most recent call last):',
  '  File "tool/core.py", line 2, in run',
  '  File "tool/core.py", line 5, in explode',
  'ValueError: cannot explode this value',
].join('\n');

describe('evidence resolvers over a repository view', () => {
  it('each resolver is a function of the view and the issue: a frame credits its function, a flag the definition spelling it', async () => {
    const { view } = await fixture();
    const ev = readIssue(ISSUE);
    const frames = resolveFrames(view, ev).filter((c) => c.to === 'definition');
    expect(frames.map((c) => (c.to === 'definition' ? [c.ref.file.outline.defs[c.ref.i]!.name, c.score, c.line] : []))).toEqual([
      ['explode', EVIDENCE_WEIGHTS.frame, 5],
      ['run', EVIDENCE_WEIGHTS.frame / 2, 2],
    ]);
    const flags = resolveFlags(view, ev);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ to: 'definition', why: 'flag --word-regexp at line 2', line: 2 });
    // Reading the view twice gives the same credits: resolvers share no state through it.
    expect(resolveFlags(view, ev)).toEqual(flags);
  });

  it('the combined evidence holds every direct credit of every resolver, under the same reason', async () => {
    const { index, text, view } = await fixture();
    const ev = readIssue(ISSUE);
    const resolved = resolveEvidence(ev, index, text);
    for (const resolve of EVIDENCE_RESOLVERS) {
      for (const c of resolve(view, ev)) {
        if (c.score <= 0) continue;
        if (c.to === 'definition') {
          const d = resolved.definitions.find((x) => x.path === c.ref.file.path && x.start === c.ref.file.outline.defs[c.ref.i]!.start);
          expect(d?.evidence).toContain(c.why);
        } else expect(resolved.files.get(c.path)?.reasons).toContain(c.why);
      }
    }
  });
});
