// The running tally of credits: per definition and per file, scores summed in the order credits arrive, reasons kept once.
import type { Credit, DefRef } from './repo-view.js';

export interface DefinitionTally {
  ref: DefRef;
  score: number;
  line?: number;
  evidence: string[];
}

export interface EvidenceTally {
  /** By `path#index`, in the order definitions were first credited. */
  readonly defs: Map<string, DefinitionTally>;
  readonly files: Map<string, { score: number; reasons: string[] }>;
  /** Adds to a definition (nothing for a score <= 0); its line is the first one named. */
  credit(ref: DefRef, score: number, why: string, line?: number): void;
  creditFile(p: string, score: number, why: string): void;
  apply(c: Credit): void;
}

export function createTally(): EvidenceTally {
  const defs = new Map<string, DefinitionTally>();
  const files = new Map<string, { score: number; reasons: string[] }>();
  const credit = (ref: DefRef, score: number, why: string, line?: number) => {
    if (score <= 0) return;
    const key = `${ref.file.path}#${ref.i}`;
    let e = defs.get(key);
    if (!e) defs.set(key, (e = { ref, score: 0, evidence: [] }));
    e.score += score;
    if (line !== undefined && e.line === undefined) e.line = line;
    if (!e.evidence.includes(why)) e.evidence.push(why);
  };
  const creditFile = (p: string, score: number, why: string) => {
    let e = files.get(p);
    if (!e) files.set(p, (e = { score: 0, reasons: [] }));
    e.score += score;
    if (!e.reasons.includes(why)) e.reasons.push(why);
  };
  return { defs, files, credit, creditFile, apply: (c) => (c.to === 'definition' ? credit(c.ref, c.score, c.why, c.line) : creditFile(c.path, c.score, c.why)) };
}
