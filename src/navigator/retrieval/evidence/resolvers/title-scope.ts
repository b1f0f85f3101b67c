// The component a commit-style title names before its colon: `fix(binding): …`, `reverseproxy: …` → that folder's or file's code.
import { ablated } from '../../ablation.js';
import { splitWords } from '../../../../repomap/words.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditFile } from './repo-view.js';

/** Conventional commit types (`fix: …`) and scopes that name no part of the code (`fix(deps): …`). */
const NOT_A_COMPONENT = new Set([
  'fix', 'fixes', 'fixed', 'feat', 'feature', 'chore', 'docs', 'doc', 'refactor', 'perf', 'test', 'tests', 'build', 'ci', 'style', 'revert', 'bug',
  'bugfix', 'hotfix', 'release', 'deps', 'dep', 'dependencies', 'security', 'breaking', 'wip', 'misc', 'all', 'core', 'lint', 'typo', 'types',
  'note', 'question', 'help', 'proposal', 'enhancement', 'regression', 'error', 'errors', 'warning', 'panic', 'crash', 'issue', 'problem', 'idea',
  'request', 'suggestion', 'improvement', 'update', 'add', 'remove', 'support', 'todo', 'api',
]);
/** A folder or a file stem holding more than this many source files is too wide a component to say where the change goes. */
const MAX_FILES = 16;
/** What the scope adds to each file of its component (a named file adds EVIDENCE_WEIGHTS.file = 1), shared out by √n. */
const SCOPE_WEIGHT = 0.6;

/** The scopes of a title: `type(a,b): …` or `a/b: …` (lower-cased), none for a title without that shape. */
export function titleScopes(title: string): string[] {
  const m = /^\s*[A-Za-z]+\(([\w./,\s-]{2,40})\)!?:\s/.exec(title) ?? /^\s*([A-Za-z][\w./-]{1,30}):\s+\S/.exec(title);
  if (!m) return [];
  return [...new Set(m[1]!.split(/[,/\s]+/).map((s) => s.trim().toLowerCase()).filter((s) => s.length >= 3 && !NOT_A_COMPONENT.has(s)))];
}

const squash = (s: string) => s.toLowerCase().replace(/[-_.]/g, '');

/**
 * A commit or an issue titled `fix(render): …`, `reverseproxy: …`, `bash: …` names the component it changes before
 * its colon (a Go package is its folder; a file's stem names its part: `bash_completions.go`). Its words are often
 * too common in the repository to count in the text query (a scope is the project's own vocabulary), so the files of
 * that component get a share of file evidence: the source files directly in a folder of that name, or else those whose
 * stem is or has the scope as a word. Nothing when the scope names no component, or one of more than MAX_FILES files.
 */
export function resolveTitleScope(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('title-scope')) return [];
  const first = ev.segments.find((s) => s.text.trim() !== '');
  if (!first || first.kind !== 'prose') return [];
  const title = first.text.split('\n').find((l) => l.trim() !== '') ?? '';
  const scopes = titleScopes(title);
  if (!scopes.length) return [];
  const out: Credit[] = [];
  const sources = view.allPaths.filter((p) => view.classOf(p) === 'source');
  const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
  for (const scope of scopes) {
    const want = squash(scope);
    let files = sources.filter((p) => squash(dirOf(p).split('/').pop() ?? '') === want);
    if (!files.length) {
      files = sources.filter((p) => {
        const stem = p.slice(p.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
        return squash(stem) === want || splitWords(stem).includes(want);
      });
    }
    if (!files.length || files.length > MAX_FILES) continue;
    for (const p of files) out.push(creditFile(p, SCOPE_WEIGHT / Math.sqrt(files.length), `title scope ${scope}`));
  }
  return out;
}
