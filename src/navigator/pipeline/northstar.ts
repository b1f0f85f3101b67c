import { readRegularFile } from '../../repomap/scan.js';
import { splitWordsShared } from '../../repomap/words.js';
import { isCandidateWord } from '../retrieval/stop-words.js';
import { stemOf } from '../retrieval/terms.js';

/**
 * NORTHSTAR alignment (issue 16 item 1). A capsule may give `northstar` and `ecosystem_northstar`: the
 * text itself, or the path of a file inside the repository (read only as a regular file under 256 KiB).
 * Its metric lines are the list items (or paragraphs) under a heading that names a metric / north star
 * / goal, and `Metric:` lines; its non-goals are the list items under a "Non-goals" / "Out of scope"
 * heading. Matching is by stemmed content words, deterministic, first line first on ties.
 */
export type NorthstarField = 'northstar' | 'ecosystem_northstar';

export interface NorthstarLine {
  text: string;
  /** 1-based line in the NORTHSTAR. */
  line: number;
  terms: string[];
}

export interface NorthstarDoc {
  field: NorthstarField;
  /** `text` (given inline) or the repository-relative path read. */
  origin: string;
  metrics: NorthstarLine[];
  non_goals: NorthstarLine[];
}

/** The metric a navigation serves, as written to navigation_map.json. */
export interface NorthstarMetric {
  metric: string;
  source: NorthstarField;
  origin: string;
  line: number;
  /** Content words the metric shares with the task and the loaded files. */
  evidence: string[];
  /** Loaded files whose path or matched words share a word with the metric. */
  files: string[];
}

export const NORTHSTAR_MAX_BYTES = 256 * 1024;

/** Stemmed content words of a text (stop words and one- or two-letter words dropped), unique, in order. */
export function contentTerms(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z0-9_]+/g)) for (const p of splitWordsShared(m[0])) if (isCandidateWord(p)) out.add(stemOf(p));
  return [...out];
}

/** Metric lines and non-goals of a NORTHSTAR text. */
export function parseNorthstar(text: string): { metrics: NorthstarLine[]; non_goals: NorthstarLine[] } {
  const metrics: NorthstarLine[] = [];
  const nonGoals: NorthstarLine[] = [];
  const items: NorthstarLine[] = [];
  let section: 'metric' | 'non_goal' | 'other' = 'other';
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const h = heading[1]!.toLowerCase();
      section = /non[- ]?goals?|out of scope|not (a )?goals?|anti[- ]?goals?/.test(h) ? 'non_goal' : /metric|north\s*star|goals?|success|kpi|measure/.test(h) ? 'metric' : 'other';
      return;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    const labelled = /^(?:\*\*)?(?:north\s*star\s+)?metric(?:\*\*)?\s*:\s*(.+)$/i.exec(line);
    const body = (labelled?.[1] ?? item?.[1] ?? (section !== 'other' ? line : '')).trim();
    if (!body) return;
    const entry = { text: body, line: i + 1, terms: contentTerms(body) };
    if (labelled || (section === 'metric' && (item || line))) metrics.push(entry);
    else if (section === 'non_goal') nonGoals.push(entry);
    else if (item) items.push(entry);
  });
  // A NORTHSTAR without a metric section: its list items outside the non-goals are its metrics.
  return { metrics: metrics.length ? metrics : items, non_goals: nonGoals };
}

/**
 * Reads one NORTHSTAR field: a single-line value naming a file inside the root (`NORTHSTAR.md`,
 * `docs/northstar.md`) is read from it; anything else is the text itself. Returns why a named file could
 * not be read (not a regular file, outside the root, over the cap).
 */
export function readNorthstar(field: NorthstarField, value: string, root: string | null): NorthstarDoc | { problem: string } {
  const single = !value.includes('\n') && value.trim().length < 300;
  const looksLikePath = single && /^[^\s]+\.(md|markdown|txt)$/i.test(value.trim());
  if (looksLikePath) {
    const rel = value.trim();
    if (!root) return { problem: `${field} ${rel}: no repository to read it from` };
    if (rel.startsWith('/') || rel.split(/[\\/]/).includes('..')) return { problem: `${field} ${rel}: not a path inside the repository` };
    const text = readRegularFile(root, rel, NORTHSTAR_MAX_BYTES);
    if (text === undefined) return { problem: `${field} ${rel} does not exist in the repository` };
    if (typeof text !== 'string') return { problem: `${field} ${rel} was not read: ${text.reason.replace(/_/g, ' ')}` };
    return { field, origin: rel, ...parseNorthstar(text) };
  }
  return { field, origin: 'text', ...parseNorthstar(value) };
}

/** The metrics that share a content word with the task (what EXTRACT_MAGIC_WORDS requires when a NORTHSTAR is given). */
export function servedByTask(docs: NorthstarDoc[], task: string): NorthstarLine[] {
  const t = new Set(contentTerms(task));
  return docs.flatMap((d) => d.metrics.filter((m) => m.terms.some((x) => t.has(x))));
}

/**
 * The metric the navigation serves: the metric line sharing the most content words with the task
 * (counted twice) and the loaded files (their paths and matched words), first in document order on ties;
 * undefined when none shares a word.
 */
export function chooseMetric(docs: NorthstarDoc[], task: string, loaded: { path: string; words: string[] }[]): NorthstarMetric | undefined {
  const taskTerms = new Set(contentTerms(task));
  const fileTerms = loaded.map((f) => ({ path: f.path, terms: new Set([...contentTerms(f.path), ...contentTerms(f.words.join(' '))]) }));
  let best: { m: NorthstarLine; d: NorthstarDoc; score: number; evidence: string[]; files: string[] } | undefined;
  for (const d of docs)
    for (const m of d.metrics) {
      const fromTask = m.terms.filter((x) => taskTerms.has(x));
      const files = fileTerms.filter((f) => m.terms.some((x) => f.terms.has(x)));
      const fromFiles = m.terms.filter((x) => files.some((f) => f.terms.has(x)));
      const score = 2 * fromTask.length + fromFiles.length;
      if (score > 0 && (!best || score > best.score)) best = { m, d, score, evidence: [...new Set([...fromTask, ...fromFiles])], files: files.map((f) => f.path) };
    }
  if (!best) return undefined;
  return { metric: best.m.text, source: best.d.field, origin: best.d.origin, line: best.m.line, evidence: best.evidence, files: best.files };
}

/**
 * Non-goals the loaded context contradicts: a loaded file whose path and matched words contain every
 * content word of a non-goal (at least two of them when it has more than two).
 */
export function contradictedNonGoals(docs: NorthstarDoc[], loaded: { path: string; words: string[] }[]): { non_goal: string; file: string }[] {
  const out: { non_goal: string; file: string }[] = [];
  for (const d of docs)
    for (const g of d.non_goals) {
      if (!g.terms.length) continue;
      const need = g.terms.length > 2 ? 2 : g.terms.length;
      for (const f of loaded) {
        const terms = new Set([...contentTerms(f.path), ...contentTerms(f.words.join(' '))]);
        if (g.terms.filter((x) => terms.has(x)).length >= need) {
          out.push({ non_goal: g.text, file: f.path });
          break;
        }
      }
    }
  return out;
}
