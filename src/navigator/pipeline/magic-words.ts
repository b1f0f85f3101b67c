import { splitWords } from '../../repomap/index.js';
import { isCandidateWord } from '../retrieval/stop-words.js';
import { isReportWord } from '../retrieval/report-words.js';
import type { MagicWord, TierRegistry } from './types.js';

function tokensOf(text: string): string[] {
  return text.split(/[^A-Za-z0-9_-]+/).filter(Boolean);
}

/** Compound lookup keys of some parts: `forbidden_state`, `forbidden-state`, `forbiddenstate`. */
function compoundKeys(parts: string[]): string[] {
  return [parts.join('_'), parts.join('-'), parts.join('')];
}

/**
 * Walks the tokens of a text: a pair of adjacent tokens that is a registry compound wins, then a token
 * as a whole (a compound like `countTokens` or a plain word), then its camel/snake parts. Stop words
 * are dropped as parts, never inside a compound. Calls `hit` for every registry word found.
 */
function walk(text: string, registry: TierRegistry, hit: (word: string, via: string) => void): boolean {
  if (registry.source === 'built') return textWalk(text, registry, hit);
  const tokens = tokensOf(text);
  const look = (keys: string[]) => keys.map((k) => registry.lookup.get(k)).find((w) => w !== undefined);
  let any = false;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const parts = splitWords(tok);
    const next = tokens[i + 1];
    if (next) {
      const w = look(compoundKeys([...parts, ...splitWords(next)]));
      if (w) {
        hit(w, `${tok} ${next}`);
        any = true;
        i++;
        continue;
      }
    }
    const whole = parts.length > 1 ? look(compoundKeys(parts)) : parts.length === 1 && isCandidateWord(parts[0]!) ? look([parts[0]!]) : undefined;
    if (whole) {
      hit(whole, tok);
      any = true;
      continue;
    }
    if (parts.length > 1)
      for (const p of parts) {
        if (!isCandidateWord(p)) continue;
        const w = look([p]);
        if (w) {
          hit(w, tok);
          any = true;
        }
      }
  }
  return any;
}

/**
 * Tokens the task writes as code — in backticks, called (`Use()`), or dotted (`a.b`): they are names,
 * kept even when they are also English stop words.
 */
export function codeTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`/g)) for (const t of m[1]!.split(/[^A-Za-z0-9_]+/)) if (t) out.add(t);
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\(/g)) out.add(m[1]!);
  for (const m of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+/g)) if (!/\.(com|org|net|io|md|txt)$/i.test(m[0])) for (const t of m[0].split('.')) out.add(t);
  return out;
}

/**
 * The walk over a built registry (the full-text index): each token whole when it is a compound
 * (`backoffLimit` → `backofflimit`), then each of its parts that is not a stop word (two-letter parts
 * only when written as an acronym, `IP`) — each kept when the index holds it or its stem.
 */
function textWalk(text: string, registry: TierRegistry, hit: (word: string, via: string) => void): boolean {
  let any = false;
  const code = codeTokens(text);
  for (const tok of text.split(/[^A-Za-z0-9_]+/)) {
    if (!tok) continue;
    const parts = splitWords(tok);
    if (parts.length > 1) {
      const whole = registry.lookup.get(parts.join(''));
      if (whole) {
        hit(whole, tok);
        any = true;
      }
    }
    const acronym = tok.length === 2 && tok === tok.toUpperCase() && /^[A-Z]{2}$/.test(tok);
    for (const p of parts) {
      if (!((isCandidateWord(p) && !isReportWord(p)) || (acronym && p.length === 2) || (code.has(tok) && p.length >= 2))) continue;
      const w = registry.lookup.get(p);
      if (w) {
        hit(w, tok);
        any = true;
      }
    }
  }
  return any;
}

/** The canonical registry words a text can legitimately yield (what MAGIC_WORD_INVENTION checks against). */
export function reachableWords(text: string, registry: TierRegistry): Set<string> {
  const out = new Set<string>();
  walk(text, registry, (w) => out.add(w));
  return out;
}

export interface ExtractedWords {
  words: MagicWord[];
  /** Hint words that are not registry words or aliases (ignored, never invented). */
  unknown_hint: string[];
}

/**
 * Magic words of a task and hint: only tokens that are registry words or direct aliases (tokenised,
 * case-folded, camel/snake split, stop words dropped). Never invents a word; related words are not
 * followed. Order: task order, then hint order.
 */
export function extractMagicWords(task: string, hint: string[] | undefined, registry: TierRegistry): ExtractedWords {
  const tiers = new Map(registry.records.map((r) => [r.word, r.tier]));
  const trunk = new Set(registry.trunk);
  // A built registry's word sits at tier 0 when a trunk file holds it, else at the depth of its shallowest file.
  const tierOf = (w: string) => {
    const t = tiers.get(w);
    if (t !== undefined) return t;
    const files = registry.files.get(w) ?? [];
    if (files.some((f) => trunk.has(f))) return 0;
    return Math.min(3, ...files.map((f) => f.split('/').length));
  };
  const found = new Map<string, MagicWord>();
  const add = (source: MagicWord['source']) => (word: string, via: string) => {
    if (!found.has(word)) found.set(word, { word, tier: tierOf(word), source, via });
  };
  walk(task, registry, add('task'));
  const unknown: string[] = [];
  for (const h of hint ?? []) if (!walk(h, registry, add('hint'))) unknown.push(h);
  return { words: [...found.values()], unknown_hint: unknown };
}
