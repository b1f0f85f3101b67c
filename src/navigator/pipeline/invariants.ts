import { countTokens } from '../../repomap/index.js';
import { reachableWords } from './magic-words.js';
import { contradictedNonGoals } from './northstar.js';
import { inScope } from './traverse.js';
import type { ContextLoadReceipt } from '../../contracts/index.js';
import type { BranchResult, CompressionResult, IntakeResult, LoadResult, MagicWordsResult, PlannedFile, TrunkResult, Violation } from './types.js';

/**
 * The receipt's own arithmetic: totals are the sums of the files' counts, each file's lines_shown is the
 * length of its ranges (ascending, inside the lines read), one hash per range, and the used fraction is
 * total_lines_loaded / budget_limit_lines. Each problem as a sentence (empty when it adds up).
 */
export function receiptTotals(r: ContextLoadReceipt): string[] {
  const out: string[] = [];
  const read = r.files_loaded.reduce((s, f) => s + f.lines_read, 0);
  const shown = r.files_loaded.reduce((s, f) => s + f.lines_shown, 0);
  if (shown !== r.total_lines_loaded) out.push(`total_lines_loaded ${r.total_lines_loaded} is not the sum of files_loaded[].lines_shown (${shown})`);
  if (read !== r.total_lines_read) out.push(`total_lines_read ${r.total_lines_read} is not the sum of files_loaded[].lines_read (${read})`);
  const fraction = Math.round((r.total_lines_loaded / r.budget_limit_lines) * 10000) / 10000;
  if (Math.abs(fraction - r.budget_used_fraction) > 1e-9) out.push(`budget_used_fraction ${r.budget_used_fraction} is not total_lines_loaded / budget_limit_lines (${fraction})`);
  for (const f of r.files_loaded) {
    const inRanges = f.ranges.reduce((s, [a, b]) => s + (b - a + 1), 0);
    if (inRanges !== f.lines_shown) out.push(`${f.path}: lines_shown ${f.lines_shown} is not the length of its ranges (${inRanges})`);
    if (f.lines_shown > f.lines_read) out.push(`${f.path}: lines_shown ${f.lines_shown} is more than lines_read ${f.lines_read}`);
    if (f.ranges.some(([a, b], i) => b < a || b > f.lines_read || (i > 0 && a <= f.ranges[i - 1]![1]))) out.push(`${f.path}: ranges are not ascending, disjoint runs inside the ${f.lines_read} lines read`);
    if (f.range_sha256.length !== f.ranges.length) out.push(`${f.path}: ${f.ranges.length} ranges but ${f.range_sha256.length} range_sha256`);
  }
  return out;
}

// The seed-002 forbidden states, checked on each step's output by code the steps cannot replace.

/** After EXTRACT_MAGIC_WORDS: NULL_ZERO_CONFUSION and MAGIC_WORD_INVENTION. */
export function checkExtraction(intake: IntakeResult, r: MagicWordsResult): Violation[] {
  const out: Violation[] = [];
  const at = 'EXTRACT_MAGIC_WORDS';
  if (r.kind === 'found' && r.words.length === 0) out.push({ state: 'NULL_ZERO_CONFUSION', at, detail: 'an empty magic-word list was reported as "found"; no words found must be reported as none_found' });
  if (r.kind === 'none_found') {
    const hint = intake.capsule.magic_words_hint;
    const expected = hint === undefined ? 'absent' : hint.length === 0 ? 'empty' : 'unmatched';
    if (r.hint !== expected) out.push({ state: 'NULL_ZERO_CONFUSION', at, detail: `the hint was ${expected} but was reported as ${r.hint}` });
  }
  if (r.kind === 'found') {
    const allowed = reachableWords(intake.task ?? '', r.registry);
    for (const h of intake.capsule.magic_words_hint ?? []) for (const w of reachableWords(h, r.registry)) allowed.add(w);
    for (const w of r.words) {
      if (!r.registry.lookup.has(w.word)) out.push({ state: 'MAGIC_WORD_INVENTION', at, detail: `"${w.word}" is not a word of the tier registry` });
      else if (!allowed.has(w.word)) out.push({ state: 'MAGIC_WORD_INVENTION', at, detail: `"${w.word}" is neither in the query nor in MAGIC_WORDS_HINT` });
    }
  }
  return out;
}

/** After TRAVERSE_TRUNK: the trunk node must come first and the step may visit only tier 0. */
export function checkTrunk(r: TrunkResult): Violation[] {
  const at = 'TRAVERSE_TRUNK';
  if (!r.entries.length || r.entries[0]!.tier !== 'T0') return [{ state: 'SKIP_TRUNK', at, detail: 'the trunk was not visited first' }];
  const bad = r.entries.find((e) => e.tier !== 'T0');
  if (bad) return [{ state: 'SKIP_TRUNK', at, detail: `a ${bad.tier} node ("${bad.anchor}") was visited during the trunk traversal` }];
  if (r.planned.some((p) => p.tier !== 0)) return [{ state: 'SKIP_TRUNK', at, detail: 'the trunk traversal planned branch files' }];
  return [];
}

/** After BRANCH_IF_NEEDED: only after this pass's trunk, and only below it. */
export function checkBranch(trunkDone: boolean, r: BranchResult): Violation[] {
  const at = 'BRANCH_IF_NEEDED';
  if (!trunkDone) return [{ state: 'SKIP_TRUNK', at, detail: 'branched before the trunk was traversed in this pass' }];
  const bad = r.entries.find((e) => e.tier === 'T0');
  return bad ? [{ state: 'SKIP_TRUNK', at, detail: 'a trunk node was visited after branching' }] : [];
}

/** After LOAD_CONTEXT: FULL_CORPUS_LOAD, SCOPE_EXPANSION and CONTEXT_ACCUMULATION. */
export function checkLoad(planned: PlannedFile[], pass: number, intake: IntakeResult, r: LoadResult): Violation[] {
  const out: Violation[] = [];
  const at = 'LOAD_CONTEXT';
  const plannedSet = new Set(planned.map((p) => p.path));
  const rendered = r.files.map((f) => f.path);
  const renderedSet = new Set(rendered);
  const corpus = new Set(r.corpus_files);
  if (corpus.size >= 2 && rendered.length >= corpus.size && [...corpus].some((p) => !plannedSet.has(p)))
    out.push({ state: 'FULL_CORPUS_LOAD', at, detail: `all ${corpus.size} corpus files were loaded although the magic words selected ${plannedSet.size}` });
  const allowed = inScope(intake.capsule.constraints);
  for (const p of rendered) {
    if (!plannedSet.has(p)) out.push({ state: 'SCOPE_EXPANSION', at, detail: `${p} was loaded but is not on the tier path` });
    else if (!allowed(p)) out.push({ state: 'SCOPE_EXPANSION', at, detail: `${p} is outside the capsule's scope constraint` });
  }
  const listed = r.receipt.files_loaded.map((f) => f.path);
  if (r.pass !== pass) out.push({ state: 'CONTEXT_ACCUMULATION', at, detail: `the receipt belongs to pass ${r.pass}, not ${pass}` });
  const stale = listed.filter((p) => !renderedSet.has(p));
  if (stale.length || new Set(listed).size !== listed.length)
    out.push({ state: 'CONTEXT_ACCUMULATION', at, detail: `the receipt was not reset: it lists ${stale.length ? stale.join(', ') : 'a file twice'}, not loaded in this pass` });
  for (const p of receiptTotals(r.receipt)) out.push({ state: 'CONTEXT_ACCUMULATION', at, detail: p });
  return out;
}

/** At SOCRATIC_REVIEW: a PASS needs a compression report computed from real token counts. */
export function checkCompression(load: LoadResult | undefined, c: CompressionResult | undefined): Violation[] {
  const at = 'SOCRATIC_REVIEW';
  if (!c || !c.computed || !Number.isFinite(c.ratio)) return load && load.files.length ? [{ state: 'COMPRESSION_BYPASS', at, detail: 'context was loaded but no compression ratio was computed' }] : [];
  if (!load) return [{ state: 'COMPRESSION_BYPASS', at, detail: 'a compression ratio was reported without a load' }];
  const recount = countTokens(load.context);
  if (c.report.context_loaded_tokens !== recount) return [{ state: 'COMPRESSION_BYPASS', at, detail: `context_loaded_tokens ${c.report.context_loaded_tokens} ≠ ${recount} counted` }];
  const expected = Math.round((load.corpus_tokens / recount) * 100) / 100;
  if (Math.abs(expected - c.ratio) > 0.01) return [{ state: 'COMPRESSION_BYPASS', at, detail: `compression_ratio ${c.ratio} ≠ ${expected} from the counts` }];
  return [];
}

/**
 * At BUILD_ARTIFACTS: NORTHSTAR_UNREAD (the capsule gives a NORTHSTAR that was not read before the
 * artifacts are built) and NORTHSTAR_MISALIGNED (a loaded file contradicts one of its stated non-goals).
 */
export function checkNorthstar(intake: IntakeResult, loaded: { path: string; words: string[] }[]): Violation[] {
  const at = 'BUILD_ARTIFACTS';
  const out: Violation[] = [];
  for (const field of ['northstar', 'ecosystem_northstar'] as const)
    if (intake.capsule[field] !== undefined && !(intake.northstars ?? []).some((d) => d.field === field))
      out.push({ state: 'NORTHSTAR_UNREAD', at, detail: `the capsule's ${field} was given but not read before BUILD_ARTIFACTS` });
  for (const c of contradictedNonGoals(intake.northstars ?? [], loaded))
    out.push({ state: 'NORTHSTAR_MISALIGNED', at, detail: `${c.file} contradicts the NORTHSTAR non-goal "${c.non_goal}"` });
  return out;
}
