import picomatch from 'picomatch';
import type { SectionRule } from '../contracts/flight-plan.js';
import type { IndexedFile } from './repo-index.js';
import { splitWords } from './words.js';

export type Level = 0 | 1 | 2 | 3 | 4;

/** One file rendered at a level. */
export interface RenderedFile {
  path: string;
  level: Level;
  text: string;
  /** Lines read from the file to produce `text` (every line of every span read, kept or not). */
  lines_read: number;
  /** Lines shown (numbered lines, elisions excluded). */
  lines_shown: number;
  /** The part of `text` that belongs to definitions (or the path) matching `matchWords`. */
  matched_text: string;
  /** Names of top-level sections rendered above L1, in file order. */
  sections: { name: string; level: Level }[];
}

export interface RenderFileOptions {
  /** Section rules (first match wins; a specific pattern beats a catch-all `*`). */
  sections?: SectionRule[];
  /** 1-based lines to add (custom query captures), shown at levels >= 2. */
  extraLines?: Iterable<number>;
  /** Lowercase words: text owned by a definition whose name contains one counts as matched. */
  matchWords?: ReadonlySet<string>;
}

const MAX_LINE = 240;
const TEXT_PREVIEW: Record<2 | 3, number> = { 2: 10, 3: 30 };

function clip(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}

const CATCH_ALL = new Set(['*', '**']);

/** The header line of a file's block. Also the whole L1 rendering. */
export function fileHeader(file: IndexedFile, level: Level, note?: string): string {
  return level <= 1 ? `${file.path}\n` : `==> ${file.path} [L${level}, ${file.lines} lines${note ? `; ${note}` : ''}] <==\n`;
}

/**
 * Renders one file at `level` (0 nothing, 1 path, 2 definition lines, 3 signatures and doc comments,
 * 4 full text), with section rules overriding the level of matching definitions / headings.
 * `text` is the file's content (its hash is the index's).
 */
export function renderFile(file: IndexedFile, text: string, level: Level, options: RenderFileOptions = {}): RenderedFile {
  const empty = (l: Level, t: string): RenderedFile => ({ path: file.path, level: l, text: t, lines_read: 0, lines_shown: 0, matched_text: '', sections: [] });
  const pathMatched = options.matchWords ? splitWords(file.path).some((w) => options.matchWords!.has(w)) : false;
  const sectionTop = Math.max(0, ...(options.sections ?? []).map((r) => r.level)) as Level;
  const top = (sectionTop >= 2 ? Math.max(level, sectionTop) : level) as Level;
  if (top === 0) return empty(0, '');
  if (top === 1) {
    const h = fileHeader(file, 1);
    return { ...empty(1, h), matched_text: pathMatched ? h : '' };
  }
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const { defs, parse_error } = file.outline;
  const plain = defs.length === 0 && (file.language === 'text' || parse_error !== undefined);
  const note = parse_error ? (parse_error.startsWith('not parsed') ? 'generated, shown as plain text' : 'parse failed, shown as plain text') : undefined;
  const selected = new Set<number>();
  const owner = new Array<number>(lines.length + 1).fill(-1);

  // Effective level per definition.
  const rules = options.sections ?? [];
  const matchers = rules.map((r) => ({ rule: r, isMatch: picomatch(r.pattern, { nocase: true, dot: true }), catchAll: CATCH_ALL.has(r.pattern) }));
  const specific = (name: string): Level | undefined => {
    const m = matchers.find((x) => !x.catchAll && x.isMatch(name));
    return m ? (m.rule.level as Level) : undefined;
  };
  const catchAll = matchers.find((x) => x.catchAll)?.rule.level as Level | undefined;
  const defLevel: Level[] = [];
  defs.forEach((d, i) => {
    let lv: Level | undefined;
    if (rules.length) {
      for (let j: number | null = i; j !== null && lv === undefined; j = defs[j]!.parent) lv = specific(defs[j]!.name);
      lv ??= catchAll;
    }
    defLevel.push(lv ?? level);
  });
  // Owner of each line: the innermost definition containing it (defs are in start order, parents first).
  defs.forEach((d, i) => {
    for (let l = d.start; l <= Math.min(d.end, lines.length); l++) owner[l] = i;
  });
  const read = new Set<number>();
  if (plain) {
    const n = top >= 4 ? lines.length : Math.min(lines.length, TEXT_PREVIEW[top as 2 | 3]);
    for (let l = 1; l <= n; l++) selected.add(l);
  } else {
    for (let l = 1; l <= lines.length; l++) {
      const o = owner[l]!;
      const lv = o === -1 ? (rules.length && level < 4 ? 0 : level >= 4 ? 4 : 0) : defLevel[o]!;
      if (lv >= 4) selected.add(l);
    }
    defs.forEach((d, i) => {
      const lv = defLevel[i]!;
      if (lv < 2) return;
      if (lv === 2) selected.add(d.start);
      if (lv === 3) {
        for (let l = d.start; l <= d.header_end; l++) selected.add(l);
        if (d.doc) for (let l = d.doc[0]; l <= d.doc[1]; l++) selected.add(l);
        if (d.kind === 'heading') {
          let seen = 0;
          for (let l = d.header_end + 1; l <= Math.min(d.end, lines.length) && seen < 5; l++) {
            if (owner[l] !== i) break;
            if (lines[l - 1]!.trim() === '') {
              if (seen > 0) break;
              continue;
            }
            selected.add(l);
            seen++;
          }
        }
      }
      if (lv >= 4 && d.doc) for (let l = d.doc[0]; l <= d.doc[1]; l++) selected.add(l);
    });
  }
  for (const l of options.extraLines ?? []) if (l >= 1 && l <= lines.length) selected.add(l);
  for (const l of selected) read.add(l);
  if (selected.size === 0 && !plain && defs.length === 0) {
    const h = fileHeader(file, top, note ?? 'no definitions');
    return { ...empty(top, h), matched_text: pathMatched ? h : '' };
  }
  const full = selected.size === lines.length && lines.length > 0;
  const header = fileHeader(file, top, note);
  let body = '';
  let matched = pathMatched ? header : '';
  let prev = 0;
  const sorted = [...selected].sort((a, b) => a - b);
  const ownerMatches = new Map<number, boolean>();
  const defMatches = (i: number): boolean => {
    let v = ownerMatches.get(i);
    if (v === undefined) {
      v = false;
      for (let j: number | null = i; j !== null && !v; j = defs[j]!.parent) v = splitWords(defs[j]!.name).some((w) => options.matchWords!.has(w));
      ownerMatches.set(i, v);
    }
    return v;
  };
  for (const l of sorted) {
    if (!full && l > prev + 1) body += '⋮\n';
    const line = full ? `${clip(lines[l - 1]!)}\n` : `${l}│${clip(lines[l - 1]!)}\n`;
    body += line;
    if (options.matchWords && !pathMatched) {
      let o = owner[l]!;
      if (o === -1) o = defs.findIndex((d) => d.doc !== null && l >= d.doc[0] && l <= d.doc[1]);
      if (o !== -1 && defMatches(o)) matched += line;
    }
    prev = l;
  }
  if (!full && prev < lines.length && sorted.length) body += '⋮\n';
  if (pathMatched) matched = header + body;
  const sections = defs.flatMap((d, i) => (d.parent === null && defLevel[i]! >= 2 ? [{ name: d.name, level: defLevel[i]! }] : []));
  return { path: file.path, level: top, text: header + body, lines_read: read.size, lines_shown: selected.size, matched_text: matched, sections };
}
