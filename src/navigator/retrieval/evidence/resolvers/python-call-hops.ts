// Python call hops (issue 40, recall): the function an issue names is often not where the fix goes; the fix is one
// call away, in a helper it calls or in the code that calls it, in another module. A reader follows the call and opens
// the other module when its body speaks of what the issue speaks of. So each of the best-evidenced Python functions
// passes a share of its score to the functions one call away in other files — its callees (any `f(` or `x.f(` whose
// name few sources define) and its callers (the functions whose body calls it) — in proportion to how many of the
// issue's rarer words the other body holds; a body sharing fewer than MIN_SHARED of them gets nothing.
// Switch: NAVKERNEL_ABLATE=python-call-hops.
import { ablated } from '../../ablation.js';
import { lineTerms } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type DefRef, type RepoView, escapeRe, innermost, nonTest, qualified } from './repo-view.js';
import type { EvidenceTally } from './tally.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

/** How many of the best-evidenced functions the hops start from. */
const SEEDS = 4;
/** A callee name defined in more non-test Python files than this says little about which one runs. */
const MAX_DEFINERS = 3;
/** A function called from more non-test Python files than this is a utility: its callers are not followed. */
const MAX_CALLER_FILES = 8;
/** Distinct rarer words of the issue a body must hold to be credited. */
const MIN_SHARED = 2;
/** A function with at most this many callers (in other files) passes a share to each even without shared words. */
const FEW_CALLERS = 2;
/** The match a lone caller gets without shared words (what one shared word would give: 1 / (1 + 3)). */
const LONE_CALLER_MATCH = 0.25;
/** Bodies longer than this (lines) are not read (a whole module's worth of code matches any issue). */
const BODY_LINES_MAX = 300;
/** An issue's word is rarer when at most this share of the files hold it. */
const RARE_SHARE = 0.1;

const isPython = (p: string) => p.endsWith('.py');
const FUNCTION_KINDS = new Set(['function', 'method']);
const CALL = /(?<![\w])(?:[A-Za-z_][\w]*\s*\.\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

/** The issue's rarer terms (the index's terms in at most RARE_SHARE of the files). */
function issueTerms(view: RepoView, ev: IssueEvidence): Set<string> {
  const max = Math.max(2, RARE_SHARE * view.files.length);
  const out = new Set<string>();
  for (const s of ev.segments) for (const t of lineTerms(s.text)) if (t.length >= 3 && !/^\d/.test(t) && !out.has(t)) {
    const df = view.text.docFreq(t);
    if (df > 0 && df <= max) out.add(t);
  }
  return out;
}

/** The share a body earns: its distinct rarer issue terms (not those of the names that link it), saturating; 0 below MIN_SHARED. */
function bodyMatch(body: string, words: ReadonlySet<string>, linking: ReadonlySet<string>): number {
  const seen = new Set<string>();
  for (const t of lineTerms(body)) if (words.has(t) && !linking.has(t)) seen.add(t);
  return seen.size < MIN_SHARED ? 0 : seen.size / (seen.size + 3);
}

/** Whether a definition is a Python function or method of a non-test source, short enough to read. */
function readable(view: RepoView, r: DefRef): boolean {
  const d = r.file.outline.defs[r.i]!;
  return isPython(r.file.path) && FUNCTION_KINDS.has(d.kind) && view.classOf(r.file.path) === 'source' && d.end - d.start <= BODY_LINES_MAX;
}

/** Passes a share of the best-evidenced Python functions' scores to their callers and callees in other files. */
export function creditPythonCallHops(view: RepoView, ev: IssueEvidence, tally: EvidenceTally): void {
  if (ablated('python-call-hops')) return;
  const seeds = [...tally.defs.values()]
    .filter((e) => readable(view, e.ref))
    .sort((a, b) => b.score - a.score || (a.ref.file.path < b.ref.file.path ? -1 : a.ref.file.path > b.ref.file.path ? 1 : a.ref.i - b.ref.i))
    .slice(0, SEEDS);
  if (!seeds.length) return;
  const words = issueTerms(view, ev);
  if (words.size < MIN_SHARED) return;
  const linesOf = new Map<string, string[]>();
  const lines = (p: string) => {
    let l = linesOf.get(p);
    if (!l) linesOf.set(p, (l = view.textOf(p).split('\n')));
    return l;
  };
  // A definition's lines, its signature included (its name and parameters speak of what it does).
  const bodyOf = (r: DefRef) => {
    const d = r.file.outline.defs[r.i]!;
    return lines(r.file.path).slice(d.start - 1, d.end).join('\n');
  };
  const credits: { ref: DefRef; score: number; why: string }[] = [];
  for (const seed of seeds) {
    const d = seed.ref.file.outline.defs[seed.ref.i]!;
    const seedName = qualified(seed.ref.file.outline.defs, seed.ref.i);
    const hops: { ref: DefRef; match: number; why: string }[] = [];
    // Callees: names called in the body, defined by at most MAX_DEFINERS non-test Python files, in another file.
    const called = new Set<string>();
    for (const m of bodyOf(seed.ref).matchAll(CALL)) {
      const name = m[1]!;
      if (name.length >= 4 && name !== d.name && !/^__\w+__$/.test(name)) called.add(name);
    }
    for (const name of [...called].sort()) {
      const defs = nonTest(view, view.defsByName.get(name) ?? []).filter((r) => isPython(r.file.path) && FUNCTION_KINDS.has(r.file.outline.defs[r.i]!.kind));
      const files = new Set(defs.map((r) => r.file.path));
      if (!defs.length || files.size > MAX_DEFINERS) continue;
      const linking = new Set([...lineTerms(name), ...lineTerms(d.name)]);
      for (const r of defs) {
        if (r.file === seed.ref.file || !readable(view, r)) continue;
        const match = bodyMatch(bodyOf(r), words, linking);
        if (match > 0) hops.push({ ref: r, match, why: `called by ${seedName}` });
      }
    }
    // Callers: functions of other non-test Python files whose body calls the seed by name.
    if (d.name.length >= 4 && !/^__\w+__$/.test(d.name)) {
      const term = lineTerms(d.name).at(-1)!;
      const files = view.text.filesWith(term).filter((p) => p !== seed.ref.file.path && isPython(p) && view.classOf(p) === 'source');
      // `f(` and `x.f(` alike: the name not glued to a word before it (a receiver's `.` is not a word character).
      const calls = new RegExp(`(?<!\\w)${escapeRe(d.name)}\\s*\\(`);
      const defLine = new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRe(d.name)}\\b`);
      const callers: DefRef[] = [];
      const callerFiles = new Set<string>();
      for (const p of files.sort()) {
        const f = view.byPath.get(p);
        // Most files holding the name's last word never call it: one test of the whole text spares splitting them.
        if (!f || !calls.test(view.textOf(p))) continue;
        lines(p).forEach((line, k) => {
          if (!calls.test(line) || defLine.test(line)) return;
          const i = innermost(f.outline.defs, k + 1);
          if (i === undefined || !FUNCTION_KINDS.has(f.outline.defs[i]!.kind)) return;
          callerFiles.add(p);
          if (!callers.some((c) => c.file === f && c.i === i)) callers.push({ file: f, i });
        });
      }
      if (callerFiles.size <= MAX_CALLER_FILES) {
        const linking = new Set(lineTerms(d.name));
        // A function called from one or two places: its caller is where a reader looks next even when the caller's
        // lines do not yet hold the issue's words (the fix adds them).
        const few = callers.length <= FEW_CALLERS;
        for (const r of callers) {
          if (!readable(view, r)) continue;
          const match = bodyMatch(bodyOf(r), words, linking) || (few ? LONE_CALLER_MATCH : 0);
          if (match > 0) hops.push({ ref: r, match, why: `calls ${seedName}` });
        }
      }
    }
    // Each hop's share of the seed's score, divided among the seed's hops (√, so a few good ones keep most).
    for (const h of hops) credits.push({ ref: h.ref, score: (seed.score * EVIDENCE_WEIGHTS.callHop * h.match) / Math.sqrt(hops.length), why: h.why });
  }
  // Applied after reading: a hop never starts from what another hop credited.
  for (const c of credits) tally.credit(c.ref, c.score, c.why);
}
