import { appendFileSync } from 'node:fs';
import type { FileClass } from '../../repomap/file-class.js';

/**
 * Writes a task's whole ranking for measurement only: `NAVKERNEL_RANK_DUMP=FILE` appends one JSON line per ranking
 * (the best RANK_DUMP_FILES files with their score parts, and the reference-graph neighbours of the first
 * RANK_DUMP_NEIGHBOURS), so a candidate rule can be tried offline on every task of a set — where the file a fix needs
 * ranks, what moving it would gain and cost — before a full run. Unset in normal use: nothing is written, and what
 * is picked never depends on it. Like `ablation.ts`, read once a process.
 */
const TARGET = process.env.NAVKERNEL_RANK_DUMP ?? '';

export const RANK_DUMP_FILES = 200;
export const RANK_DUMP_NEIGHBOURS = 3;

/** One ranked file as the dump writes it. */
export interface DumpedFile {
  path: string;
  score: number;
  text: number;
  definition: number;
  graph: number;
  evidence: number;
  class: FileClass;
  words: string[];
}

/** What the dump asks of the ranking beyond the files (only when dumping is on). */
export interface DumpDetail {
  /** The reference-graph neighbours of a file: path → edge weight. */
  neighbours(path: string): Record<string, number>;
  /** The names a file defines that the task names as whole words (each once, at most 30). */
  named(path: string): string[];
}

/** Whether rankings are dumped in this process. */
export function rankDumpOn(): boolean {
  return TARGET !== '';
}

/**
 * Appends the ranking (best first; each file with the names it defines that the task names) and the neighbours of its
 * first files, as one line of JSON. `detail` is asked only when dumping is on.
 */
export function dumpRanking(files: readonly DumpedFile[], detail: DumpDetail): void {
  if (!rankDumpOn()) return;
  const top = files.slice(0, RANK_DUMP_FILES);
  const line = {
    files: top.map((f) => ({ path: f.path, score: f.score, text: f.text, definition: f.definition, graph: f.graph, evidence: f.evidence, class: f.class, words: f.words, named: detail.named(f.path) })),
    neighbours: top.slice(0, RANK_DUMP_NEIGHBOURS).map((f) => ({ path: f.path, of: detail.neighbours(f.path) })),
  };
  appendFileSync(TARGET, `${JSON.stringify(line)}\n`);
}

/** Appends plain search's best files for a task (whole-file.ts) as one line of JSON, after the ranking's line. */
export function dumpWhole(task: string, hits: readonly { path: string; score: number }[]): void {
  if (!rankDumpOn()) return;
  appendFileSync(TARGET, `${JSON.stringify({ task, whole: hits })}\n`);
}
