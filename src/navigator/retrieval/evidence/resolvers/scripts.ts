// Resolves a script named in prose ("the install script") to the code files carrying that name, when they are few.
import { languageFamily } from '../../../../repomap/file-class.js';
import type { IndexedFile } from '../../../../repomap/repo-index.js';
import { ablated } from '../../ablation.js';
import type { IssueEvidence } from '../read-issue.js';
import { nameWords, stemOfPath } from '../script-mentions.js';
import { type Credit, type RepoView, creditFile } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** More code files than this carrying a name ("the index script" where every folder has an index) name none. */
const SCRIPT_NAMESAKES_MAX = 3;

export function resolveScripts(view: RepoView, ev: IssueEvidence): Credit[] {
  if (!ev.scripts?.length || ablated('named-scripts')) return [];
  const out: Credit[] = [];
  const said = new Set(ev.scripts);
  const named = new Map<string, IndexedFile[]>();
  for (const f of view.files) {
    if (!languageFamily(f.path) || view.classOf(f.path) === 'test') continue;
    const key = nameWords(stemOfPath(f.path));
    if (said.has(key)) named.set(key, [...(named.get(key) ?? []), f]);
  }
  for (const [key, files] of named) if (files.length <= SCRIPT_NAMESAKES_MAX) for (const f of files) out.push(creditFile(f.path, EVIDENCE_WEIGHTS.script, `names script ${key}`));
  return out;
}
