import type { FileClass } from '../../../repomap/file-class.js';
import type { RepoIndex } from '../../../repomap/repo-index.js';
import type { TextIndex } from '../text-index.js';
import type { IssueEvidence } from './read-issue.js';
import { creditDerived } from './resolvers/derived.js';
import { implMemberShares } from './resolvers/impl-members.js';
import { creditPythonCallHops } from './resolvers/python-call-hops.js';
import { EVIDENCE_RESOLVERS, qualified, repoViewOf } from './resolvers/index.js';
import { createTally } from './resolvers/tally.js';

export { EVIDENCE_WEIGHTS, withoutRelease } from './resolvers/index.js';

/** A definition (function, method, class) the evidence points at, with the score and the reasons. */
export interface RankedDefinition {
  path: string;
  /** Qualified name inside the file (`Class.method`). */
  symbol: string;
  kind: string;
  /** 1-based inclusive line range of the whole definition, and the last line of its signature. */
  start: number;
  end: number;
  header_end: number;
  score: number;
  /** A line inside the definition the evidence names (a frame's line, a message's raise site). */
  line?: number;
  evidence: string[];
}

/** Evidence resolved against one repository: ranked definitions and the per-file scores they roll up to. */
export interface ResolvedEvidence {
  definitions: RankedDefinition[];
  /** Per file: evidence score (best definition plus a share of the others, plus file-level evidence) and reasons. */
  files: Map<string, { score: number; reasons: string[] }>;
}

/**
 * Resolves an issue's evidence against a repository's index: frames to files by path suffix and to the
 * function (or the definition holding the line), messages to the definitions whose string literals
 * hold their words in order, imports and dotted names through the repository's own module layout,
 * called and attribute names to their definitions (rarer names weigh more). Deterministic.
 */
export function resolveEvidence(ev: IssueEvidence, index: RepoIndex, text: TextIndex, classOf: (p: string) => FileClass = (p) => text.classOf(p)): ResolvedEvidence {
  const view = repoViewOf(index, text, classOf);
  const tally = createTally();
  // What the issue says, kind by kind, in a fixed order: each resolver reads the repository, none reads another's scores.
  for (const resolve of EVIDENCE_RESOLVERS) for (const c of resolve(view, ev)) tally.apply(c);
  creditDerived(view, ev, tally);
  creditPythonCallHops(view, ev, tally);
  const { defs: defScore, files: fileScore } = tally;
  const implShares = implMemberShares(view, tally);
  const keys = new Map<RankedDefinition, string>();

  const definitions: RankedDefinition[] = [...defScore.entries()].map(([key, e]) => {
    const d = e.ref.file.outline.defs[e.ref.i]!;
    const ranked: RankedDefinition = {
      path: e.ref.file.path,
      symbol: qualified(e.ref.file.outline.defs, e.ref.i),
      kind: d.kind,
      start: d.start,
      end: d.end,
      header_end: d.header_end,
      score: Math.round(e.score * 1e4) / 1e4,
      ...(e.line !== undefined ? { line: e.line } : {}),
      evidence: e.evidence,
    };
    keys.set(ranked, key);
    return ranked;
  });
  definitions.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start));
  // Files: the best definition, plus a third of the rest (capped), plus file-level evidence.
  const perFile = new Map<string, number[]>();
  for (const d of definitions) {
    let l = perFile.get(d.path);
    if (!l) perFile.set(d.path, (l = []));
    l.push(d.score);
  }
  for (const [p, scores] of perFile) {
    const rest = scores.slice(1).reduce((a, b) => a + b, 0);
    const s = scores[0]! + Math.min(scores[0]!, rest / 3);
    const e = fileScore.get(p);
    const reasons = definitions.filter((d) => d.path === p).slice(0, 3).map((d) => `${d.symbol}: ${d.evidence[0]}`);
    fileScore.set(p, { score: s + (e?.score ?? 0), reasons: [...reasons, ...(e?.reasons ?? [])] });
  }
  for (const e of fileScore.values()) e.score = Math.round(e.score * 1e4) / 1e4;
  // A Rust impl's method of a named type or trait ranks above its same-named rivals within the file; file scores
  // above were rolled up before, so the files' order does not change (impl-members.ts).
  if (implShares.size) {
    for (const d of definitions) {
      const share = implShares.get(keys.get(d)!);
      if (!share) continue;
      d.score = Math.round((d.score + share.score) * 1e4) / 1e4;
      d.evidence.push(share.why);
    }
    definitions.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start));
  }
  return { definitions, files: fileScore };
}
