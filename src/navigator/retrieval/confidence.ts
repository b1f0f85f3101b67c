import { EVIDENCE_MAX, type RankedFile } from './ranking.js';

/**
 * How sure the navigator is of its first file, and how many files a pick needs (issue 40, item 4). A pick is
 * conclusive when the best file is held by resolved evidence (a frame, a message, a qualified name, a file the issue
 * names: `evidence` in the ranking) and stands well clear of the second; then the files far below it are left out
 * instead of filling every place with what merely shares words with the task.
 */
export interface PickConfidence {
  /** `high`: conclusive (the pick stops early); `medium`: clear lead or evidence, not both; `low`: a close ranking. */
  level: 'high' | 'medium' | 'low';
  /** 1 − second score / best score (0 when the two tie, 1 when nothing else ranks). */
  margin: number;
  /** The best file's evidence as a share of the most evidence can add (0–1). */
  evidence: number;
  /** Files the pick keeps (before the budget). */
  kept: number;
  /** Why, in a sentence. */
  reason: string;
}

/** The lead over the second file a conclusive pick needs (as 1 − second / best). */
export const CONCLUSIVE_MARGIN = 0.5;
/** The evidence share of the best file a conclusive pick needs (a deepest frame or a raised message reaches it, a bare mention does not). */
export const CONCLUSIVE_EVIDENCE = 0.5;
/** In a conclusive pick, a file is kept while its score is at least this share of the best one's. */
export const CONCLUSIVE_KEEP = 0.25;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The confidence of a ranking, and how many of its files to take within `maxFiles`. */
export function pickConfidence(files: readonly RankedFile[], maxFiles: number): PickConfidence {
  const top = files[0];
  if (!top || top.score <= 0) return { level: 'low', margin: 0, evidence: 0, kept: 0, reason: 'no file ranks for the task' };
  const second = files[1]?.score ?? 0;
  const margin = r3(Math.max(0, 1 - second / top.score));
  const evidence = r3(top.evidence / EVIDENCE_MAX);
  const cap = Math.min(maxFiles, files.length);
  if (margin >= CONCLUSIVE_MARGIN && evidence >= CONCLUSIVE_EVIDENCE) {
    let kept = 1;
    while (kept < cap && files[kept]!.score >= CONCLUSIVE_KEEP * top.score) kept++;
    return { level: 'high', margin, evidence, kept, reason: `${top.path} holds the evidence (${evidence}) and leads the next file by ${Math.round(margin * 100)}%: files below ${CONCLUSIVE_KEEP} of its score are left out` };
  }
  const level = margin >= CONCLUSIVE_MARGIN || evidence >= CONCLUSIVE_EVIDENCE ? 'medium' : 'low';
  const why = level === 'medium' ? (evidence >= CONCLUSIVE_EVIDENCE ? `evidence points at ${top.path} (${evidence}) but the next file is close (lead ${Math.round(margin * 100)}%)` : `${top.path} leads by ${Math.round(margin * 100)}% on the task's words alone, no resolved evidence`) : `a close ranking (lead ${Math.round(margin * 100)}%) and no resolved evidence on the best file`;
  return { level, margin, evidence, kept: cap, reason: why };
}
