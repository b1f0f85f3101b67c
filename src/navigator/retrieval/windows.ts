import type { Definition } from '../../repomap/outline.js';
import { rankDefinitionsByTerms } from './definition-scores.js';
import type { FileLanguage } from '../../repomap/languages.js';
import { importLinesUsed, importStatements } from './import-lines.js';
import { textLineTerms } from './terms.js';
import { ablated } from './ablation.js';
import { guardLines } from './c-guard-lines.js';

/** The lines chosen in one file, and why. */
export interface LineSelection {
  /** 1-based line numbers, ascending. */
  lines: number[];
  /** The windows of matched terms (after widening), in the order they were chosen. */
  windows: [number, number][];
  /** Lines holding a matched term (a subset of `lines`). */
  matched: number[];
  /** Top-level definition lines added as the outline of the rest. */
  outline: number[];
}

const RADIUS = 3;

/** A definition to show first (from the task's evidence): its range, its signature's end, and a line inside it the evidence names. */
export interface FocusRange {
  start: number;
  end: number;
  header_end: number;
  line?: number;
  /** How strongly the evidence points here (RankedDefinition.score); without it, every focus counts alike. */
  score?: number;
  /** Qualified name inside the file (`Decoder.flush`), when known. */
  symbol?: string;
}

/** A focus's own name, the last segment of its symbol (`Decoder.flush` → `flush`). */
const focusName = (f: FocusRange): string | undefined => f.symbol?.slice(f.symbol.lastIndexOf('.') + 1);

/**
 * A focus definition is shown first only while the evidence for it is at least this share of the file's best focus:
 * a definition a stack frame lands in is shown before one the issue merely names in passing, and the weak ones compete
 * with the definitions matching the task's words instead (windows inside them count triple).
 */
export const FOCUS_SHARE = 0.5;

/** Definitions ranked by their own lines' terms that are shown before the windows, at most. */
export const BEST_DEFINITIONS = 3;
/** A ranked definition is shown while it scores at least this share of the best one. */
export const BEST_DEFINITION_SHARE = 0.5;
/** A ranked definition longer than this (or than 60% of the lines left) is not shown whole: windows inside it count triple. */
export const BEST_DEFINITION_MAX_LINES = 40;

/** Import lines shown at most in one file (those binding names the shown code uses). */
export const IMPORT_LINES = 6;

/** A window centred in a folded docstring scores this share: prose about the code ranks below the code. */
export const FOLDED_WINDOW_SHARE = 1 / 3;
// Doc comments written before a definition are not scored down like folded docstrings: tried (a window centred in
// one scoring a third), it lost line hits and coverage on Rust in both halves of the public set, so it was dropped.
/**
 * A window centred in a test module inside a source file (Rust's `#[cfg(test)] mod tests`) scores this share, and
 * the definitions in it are not ranked: a test calls the code a task names more often than the code itself does.
 */
export const INLINE_TEST_SHARE = 1 / 3;

/** A module of tests inside a source file, by its name (`mod tests`, `mod test`, `mod unit_tests`). */
export function isInlineTestModule(d: Definition): boolean {
  return d.kind === 'module' && /^(tests?|\w+_tests?)$/.test(d.name);
}

/** Whether definition `i` is, or sits inside, an inline test module. */
export function inInlineTests(defs: readonly Definition[], i: number): boolean {
  for (let j: number | null = i; j !== null; j = defs[j]!.parent) if (isInlineTestModule(defs[j]!)) return true;
  return false;
}

/** Per line (1..n) the share a window centred there scores beyond folded docstrings: INLINE_TEST_SHARE inside an inline test module, else 1. */
export function proseShares(defs: readonly Definition[], n: number): Float64Array {
  const share = new Float64Array(n + 2).fill(1);
  for (const d of defs) {
    if (isInlineTestModule(d)) for (let l = Math.max(1, d.start); l <= Math.min(d.end, n); l++) share[l] = Math.min(share[l]!, INLINE_TEST_SHARE);
  }
  return share;
}

/**
 * Lines of the docstrings inside definitions (Python's first-statement strings), but their first line: 1 per
 * folded line, indexed 1..n. A doc comment before a definition (JSDoc, Go) is outside its range and not folded.
 */
export function foldedDocLines(defs: readonly Definition[], n: number): Uint8Array {
  const folded = new Uint8Array(n + 2);
  for (const d of defs) {
    if (d.kind === 'heading' || !d.doc) continue;
    const [a, b] = d.doc;
    if (a <= d.start || a > d.end) continue;
    for (let l = a + 1; l <= Math.min(b, d.end, n); l++) folded[l] = 1;
  }
  return folded;
}

/** Lines around an evidenced line of a definition too long to show whole. */
const FOCUS_RADIUS = 8;

/**
 * Lines of one file for a task. `focus` definitions (the task's evidence) come first: whole when they
 * fit in most of what is left, else their signature and the lines around the evidenced line, and word
 * windows inside them count triple. Then the definitions whose own lines best match the task's terms
 * (rankDefinitionsByTerms; up to BEST_DEFINITIONS, each at least half the best): whole when they fit,
 * else windows inside them count triple. Then the densest windows of matched terms (distinct terms
 * weighted by rarity, repeats counting a little), each widened to its innermost enclosing definition
 * when that fits, else to the window plus the definition's signature; then the outline (top-level
 * definitions) of the rest. Never more than `allowance` lines. `weights` maps index terms to their weight (idf).
 * Docstrings inside definitions are folded to their first line (a definition's size counts its code), and with a
 * `language`, lines are kept back for the imports the shown code uses (importLinesUsed).
 */
export function selectLines(text: string, defs: Definition[], weights: Map<string, number>, allowance: number, focus: readonly FocusRange[] = [], language?: FileLanguage): LineSelection {
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const n = lines.length;
  const chosen = new Set<number>();
  const windows: [number, number][] = [];
  const outline: number[] = [];
  if (n === 0 || allowance <= 0) return { lines: [], windows, matched: [], outline };
  // Terms matched on each line.
  const hits: (string[] | undefined)[] = new Array(n + 1);
  const matched: number[] = [];
  const lineTerms = textLineTerms(text, lines);
  for (let l = 1; l <= n; l++) {
    const all = lineTerms[l - 1];
    if (!all) continue;
    let ts: string[] | undefined;
    for (const t of all) if (weights.has(t)) (ts ??= []).push(t);
    if (ts) {
      hits[l] = ts;
      matched.push(l);
    }
  }
  // A docstring inside a definition is folded to its first line: the code that runs is what a fix changes, and a
  // long-documented function then fits whole. `codeBefore[l]` counts the unfolded lines before line l.
  const folded = foldedDocLines(defs, n);
  const codeBefore = new Int32Array(n + 2);
  for (let l = 2; l <= n + 1; l++) codeBefore[l] = codeBefore[l - 1]! + 1 - folded[l - 1]!;
  const span = (a: number, b: number): number => codeBefore[Math.min(n, b) + 1]! - codeBefore[Math.max(1, a)]!;
  const prose = proseShares(defs, n);
  // Lines kept back for the imports the shown code uses (IMPORT_LINES at most, a tenth of a file's lines).
  const imports = language && allowance >= 20 ? importStatements(language, lines) : [];
  const reserve = imports.length ? Math.min(IMPORT_LINES, Math.floor(allowance / 10)) : 0;
  let limit = allowance - reserve;
  // A window's score depends only on which lines within RADIUS of its centre are chosen: it is kept until one is.
  const scoreAt = new Float64Array(n + 2).fill(-1);
  const take = (a: number, b: number, showFolded = false): number => {
    let added = 0;
    for (let l = Math.max(1, a); l <= Math.min(n, b) && chosen.size < limit; l++) {
      if (folded[l] && !showFolded) continue;
      if (!chosen.has(l)) {
        chosen.add(l);
        added++;
        scoreAt.fill(-1, Math.max(1, l - RADIUS), Math.min(n, l + RADIUS) + 1);
      }
    }
    return added;
  };
  const windowScore = (c: number): number => {
    const known = scoreAt[c]!;
    return known >= 0 ? known : (scoreAt[c] = scoreOfWindow(c));
  };
  const scoreOfWindow = (c: number): number => {
    // Per term: the lines holding it and the best share of those (a term in code next to a test module counts as code).
    const seen = new Map<string, [number, number]>();
    for (let l = Math.max(1, c - RADIUS); l <= Math.min(n, c + RADIUS); l++) {
      if (chosen.has(l)) continue;
      const w = prose[l]! / prose[c]!;
      for (const t of hits[l] ?? []) {
        const e = seen.get(t);
        if (e) {
          e[0]++;
          if (w > e[1]) e[1] = w;
        } else seen.set(t, [1, w]);
      }
    }
    let s = 0;
    for (const [t, [k, w]] of seen) s += weights.get(t)! * (1 + 0.2 * Math.log(k)) * Math.min(1, w);
    return (folded[c] ? s * FOLDED_WINDOW_SHARE : s) * prose[c]!;
  };
  const innermost = (l: number): Definition | undefined => {
    let best: Definition | undefined;
    for (const d of defs) if (d.kind !== 'heading' && d.start <= l && l <= d.end && (!best || d.end - d.start < best.end - best.start)) best = d;
    return best;
  };
  const preferred: [number, number][] = [];
  const bestFocus = Math.max(0, ...focus.map((f) => f.score ?? 0));
  const weak = (f: FocusRange) => f.score !== undefined && f.score < bestFocus * FOCUS_SHARE;
  // In Rust, a weak focus named like a strong one (the same method in another impl) is the rival the evidence ranked
  // below it: its lines get no boost, so the windows go to the strong one's body first (switch: rival-focus).
  const strongNames = new Set(ablated('rival-focus') || language !== 'rust' ? [] : focus.filter((f) => !weak(f)).map(focusName).filter((x) => x !== undefined));
  const rivals = new Set<number>();
  for (const fd of focus) {
    const left = limit - chosen.size;
    if (left <= 0) break;
    if (weak(fd)) {
      const name = focusName(fd);
      if (name !== undefined && strongNames.has(name)) rivals.add(fd.start);
      else preferred.push([fd.start, fd.end]);
      continue;
    }
    if (span(fd.start, fd.end) <= Math.max(12, Math.floor(left * 0.7))) {
      take(fd.start, fd.end);
      windows.push([fd.start, fd.end]);
      continue;
    }
    take(fd.start, Math.min(fd.header_end, fd.start + 4));
    if (fd.line !== undefined) {
      const a = Math.max(fd.start, fd.line - FOCUS_RADIUS);
      const b = Math.min(fd.end, fd.line + FOCUS_RADIUS);
      take(a, b, true);
      windows.push([a, b]);
    }
    preferred.push([fd.start, fd.end]);
  }
  // The definitions whose own lines best match the task: whole when they fit, else windows inside them count triple.
  const ranked = rankDefinitionsByTerms(defs, hits, weights, n, prose, (i) => inInlineTests(defs, i));
  for (const { index, score } of ranked.slice(0, BEST_DEFINITIONS)) {
    const left = limit - chosen.size;
    if (left <= 0 || score < ranked[0]!.score * BEST_DEFINITION_SHARE) break;
    const d = defs[index]!;
    if (rivals.has(d.start)) continue;
    if (span(d.start, d.end) <= Math.min(BEST_DEFINITION_MAX_LINES, Math.floor(left * 0.6))) {
      take(d.start, d.end);
      windows.push([d.start, d.end]);
    } else preferred.push([d.start, d.end]);
  }
  // Two rules tried here were dropped (issue 40, measured on both halves of the public Multi-SWE set and on Rust and C
  // repositories of our own): showing a Rust item's doc comment, attributes and impl header with it (Rust line hit
  // unchanged on half A, one lost on half B), and showing with a C/C++/Rust function shown whole the small functions of
  // its file it calls (one more line hit in each of lua and ripgrep, no change in line hit on either public half), and
  // giving a window in a Rust/Go doc comment its item's signature and first lines (`doc-head`: half A +1, half B none).
  const boost = (c: number) => (preferred.some(([a, b]) => a <= c && c <= b) ? 3 : 1);
  let first = 0;
  // Windows, densest first, while they are worth a third of the best one and lines remain.
  for (;;) {
    if (chosen.size >= limit) break;
    let best = 0;
    let at = 0;
    for (const c of matched) {
      if (chosen.has(c)) continue;
      const s = windowScore(c) * boost(c);
      if (s > best) {
        best = s;
        at = c;
      }
    }
    if (!at || best < first / 3) break;
    if (!first) first = best;
    const left = limit - chosen.size;
    const d = innermost(at);
    if (d && !folded[at] && span(d.start, d.end) <= Math.max(12, Math.floor(left * 0.6))) {
      take(d.start, d.end);
      windows.push([d.start, d.end]);
    } else {
      if (d) take(d.start, Math.min(d.header_end, d.start + 2));
      const a = Math.max(1, at - RADIUS);
      const b = Math.min(n, at + RADIUS);
      take(a, b, folded[at] === 1);
      windows.push([a, b]);
    }
  }
  // The imports the shown code uses, from the lines kept back for them: a fix that calls something new adds to
  // them, and a reader needs to know where a name comes from.
  limit = allowance;
  for (const l of importLinesUsed(imports, lines, chosen, reserve)) take(l, l);
  // The outline of the rest: top-level definitions, those nearest the windows first, at most a quarter of the allowance.
  const cap = Math.min(allowance - chosen.size, Math.max(3, Math.floor(allowance / 4)));
  if (cap > 0) {
    const centres = windows.map(([a, b]) => (a + b) / 2);
    const dist = (l: number) => (centres.length ? Math.min(...centres.map((c) => Math.abs(c - l))) : l);
    const tops = defs.filter((d) => d.parent === null && !chosen.has(d.start)).sort((a, b) => dist(a.start) - dist(b.start) || a.start - b.start);
    for (const d of tops.slice(0, cap)) {
      chosen.add(d.start);
      outline.push(d.start);
    }
  }
  // Nothing matched and no outline: the head of the file.
  if (chosen.size === 0) take(1, Math.min(n, allowance, 10));
  for (const l of guardLines(language, lines, chosen, allowance - chosen.size)) chosen.add(l);
  const sorted = [...chosen].sort((a, b) => a - b);
  return { lines: sorted, windows, matched: matched.filter((l) => chosen.has(l)), outline: outline.sort((a, b) => a - b) };
}
