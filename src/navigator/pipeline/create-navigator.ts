import { realpathSync } from 'node:fs';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { NavigatorMachineContext } from '../../../machines/navigator.machine.js';
import { navigatorFsm, type NavigatorContext, type StepOutput } from './navigator-machine.js';
import type { FlightPlan } from '../../contracts/index.js';
import { NavkernelError } from '../../contracts/errors.js';
import { indexRepo, type IndexPlan, type IndexSink, type IndexStats, type MapFile, preloadTokenizer, type RepoIndex } from '../../repomap/index.js';
import { setTokenCountStore } from '../../repomap/tokens.js';
import { buildArtifacts, type ArtifactInput, type RungTarget } from './artifacts.js';
import { measureCompression } from './compression.js';
import { intakeCapsule } from './intake.js';
import { chooseMetric, servedByTask, type NorthstarMetric } from './northstar.js';
import { checkBranch, checkCompression, checkExtraction, checkLoad, checkNorthstar, checkTrunk } from './invariants.js';
import { LEX_FIELDS_EXTRAS } from '../retrieval/lex-fields.js';
import { loadContext, type LoadInput } from './load.js';
import { extractMagicWords } from './magic-words.js';
import { readIssue, readIssueTemplate, resolveEvidence, withoutFenceLanguages, withoutIssueTemplate } from '../retrieval/evidence/index.js';
import { loadRegistry, textIndexFile } from './registry.js';
import { openTextIndex, type TextIndex, textIndexFeed } from '../retrieval/text-index.js';
import { splitWords } from '../../repomap/words.js';
import { stemOf } from '../retrieval/terms.js';
import { socraticReview, type ReviewInput } from './review.js';
import { branchIfNeeded, inScope, mapToTiers, rankingFor, type TraversalInput, traverseTrunk } from './traverse.js';
import { pickConfidence } from '../retrieval/confidence.js';
import type {
  Artifacts,
  BranchResult,
  CompressionResult,
  IntakeResult,
  LoadResult,
  MagicWord,
  MagicWordsResult,
  ReviewResult,
  TierMap,
  TierRegistry,
  TrunkResult,
  Violation,
} from './types.js';

/** The work of each FSM state. Replaceable (tests provoke forbidden states this way); the invariant checks are not. */
export interface NavigatorSteps {
  intakeQuery(capsule: unknown): Promise<IntakeResult>;
  extractMagicWords(intake: IntakeResult): Promise<MagicWordsResult>;
  mapToTiers(words: MagicWord[], registry: TierRegistry): TierMap;
  traverseTrunk(input: TraversalInput): TrunkResult;
  branchIfNeeded(input: TraversalInput, trunk: TrunkResult): BranchResult;
  loadContext(input: LoadInput): Promise<LoadResult>;
  validateCompression(task: string, load: LoadResult): CompressionResult;
  buildArtifacts(input: ArtifactInput): Artifacts;
  socraticReview(input: ReviewInput): ReviewResult;
}

/** Options of the context navigator: the repository, budgets, cache and steps. */
export interface NavigatorOptions {
  /** Cache directory for the repo index and built registries (default `runs/.cache`); false disables. */
  cacheDir?: string | false;
  /** A magic-words.jsonl to use instead of the repo's own or a built one. */
  registryFile?: string;
  /** Progress of indexing (files done / total). */
  onProgress?: (done: number, total: number) => void;
  /** What indexing expects to do, before it reads any file (files to read, an estimate of the time: see IndexPlan). */
  onIndexPlan?: (plan: IndexPlan) => void;
  /** Working directory a relative REPO_ROOT resolves against. */
  cwd?: string;
  /** Visit the indexed files in a seeded random order instead of by path (rung 65537 checks nothing depends on it). */
  fileOrderSeed?: number;
  /** Replace steps (for tests and experiments). */
  steps?: Partial<NavigatorSteps>;
  /** The rung asked for, written as navigation_map.json's `rung_target` (default 641, seed 002's `rung_default`). */
  rungTarget?: RungTarget;
}

/** How a navigation ended: passed, needs information, or blocked. */
export type NavigatorExit = 'EXIT_PASS' | 'EXIT_NEED_INFO' | 'EXIT_BLOCKED';

/** Everything a navigation produced. */
export interface NavigationOutcome {
  exit: NavigatorExit;
  /** As written in navigation_map.json: `PASS`, `NEED_INFO: …`, `BLOCKED: …`. */
  stop_reason: string;
  violations: Violation[];
  /** FSM states entered, in order. */
  states: string[];
  artifacts: Pick<Artifacts, 'navigation_map' | 'context_load_receipt' | 'compression_report' | 'context_md'>;
  magic_words: MagicWord[];
  /** Files loaded (level > 0). */
  loaded: MapFile[];
  /** The FlightPlan that rendered the context (a starting point for the explorer). */
  flight_plan?: FlightPlan;
  review?: ReviewResult;
  passes: number;
  index_stats?: IndexStats;
  /**
   * The index this navigation used, for a caller that goes on working on the same repository (the
   * explorer): the repo index (outlines) and the full-text lookup of a word's files (its stem and
   * compound forms included). Not part of the artifacts.
   */
  index?: { repo: RepoIndex; filesWith(word: string): readonly string[] };
  registry?: { source: TierRegistry['source']; origin: string; words: number };
}

/** A seeded Fisher–Yates shuffle (mulberry32), so a "shuffled order" check is itself reproducible. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The default steps: the real implementations. */
export function defaultSteps(options: NavigatorOptions = {}): NavigatorSteps {
  return {
    intakeQuery: async (capsule) => intakeCapsule(capsule, options.cwd),
    extractMagicWords: async (intake) => {
      const cacheDir = options.cacheDir === undefined ? `${process.cwd()}/runs/.cache` : options.cacheDir;
      // The full-text index is written while the files are parsed (not in a shuffled order: rows are placed by path order).
      const feed = options.fileOrderSeed === undefined ? textIndexFeed(textIndexTarget(cacheDir, intake.repo_root!)) : undefined;
      let index: RepoIndex = await indexRepo(intake.repo_root!, {
        extras: LEX_FIELDS_EXTRAS,
        ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.onIndexPlan ? { onPlan: options.onIndexPlan } : {}),
        // A parse large enough for worker threads is a cold run: the tokenizer it will need loads meanwhile.
        ...(feed ? { sink: { begin: (files) => feed.begin(files), records: (batch) => feed.records(batch), whileParsing: preloadTokenizer } satisfies IndexSink } : {}),
      }).catch((err: unknown) => {
        feed?.discard();
        throw err;
      });
      if (options.fileOrderSeed !== undefined) index = { ...index, files: shuffled(index.files, options.fileOrderSeed) };
      const registry = loadRegistry(index, {
        ...(options.registryFile ? { registryFile: options.registryFile } : {}),
        cacheDir,
        ...(feed ? { feed } : {}),
      });
      setTokenCountStore(registry.text.tokenStore);
      const hint = intake.capsule.magic_words_hint;
      // What the navigator ranks with: the task without the repository's issue-template prompts.
      const query = withoutIssueTemplate(intake.task!, readIssueTemplate(intake.repo_root!));
      const { words, unknown_hint } = extractMagicWords(withoutFenceLanguages(query), hint, registry);
      const evidenceOf = () => {
        const read = readIssue(query);
        return { read, resolved: resolveEvidence(read, index, registry.text) };
      };
      const hintState = hint === undefined ? 'absent' : hint.length === 0 ? 'empty' : 'unmatched';
      if (words.length && intake.northstars?.length && !servedByTask(intake.northstars, intake.task!).length) {
        const metrics = intake.northstars.flatMap((d) => d.metrics.map((m) => m.text));
        const reason = metrics.length
          ? `the task serves no NORTHSTAR metric: it shares no word with ${metrics.map((m) => JSON.stringify(m)).join(', ')}`
          : `the NORTHSTAR (${intake.northstars.map((d) => d.origin).join(', ')}) states no metric the task could serve`;
        return { kind: 'none_found', reason, hint: hintState, unknown_hint, registry, index };
      }
      if (words.length) {
        // Words that occur only outside the capsule's scope select nothing: that is not a pass with zero files.
        const allowed = inScope(intake.capsule.constraints);
        if (words.some((w) => (registry.files.get(w.word) ?? []).some(allowed))) return { kind: 'found', query, words, unknown_hint, registry, index, evidence: evidenceOf() };
        const reason = `no magic words found in scope: ${words.map((w) => w.word).join(', ')} occur${words.length === 1 ? 's' : ''} in no file the capsule's scope allows`;
        return { kind: 'none_found', reason, hint: hintState, unknown_hint, registry, index };
      }
      const reason =
        hintState === 'absent'
          ? 'no magic words found: no word of the task is a registry word or alias, and no hint was given'
          : hintState === 'empty'
            ? 'no magic words found: no word of the task is a registry word or alias, and the hint is empty'
            : `no magic words found: neither the task nor the hint (${hint!.join(', ')}) contains a registry word or alias`;
      return { kind: 'none_found', reason, hint: hintState, unknown_hint, registry, index };
    },
    mapToTiers,
    traverseTrunk,
    branchIfNeeded,
    loadContext,
    validateCompression: measureCompression,
    buildArtifacts,
    socraticReview,
  };
}

function found(ctx: NavigatorContext): Extract<MagicWordsResult, { kind: 'found' }> {
  if (ctx.magic?.kind !== 'found') throw new NavkernelError('NAVIGATOR_FAULT', 'navigator: a traversal step ran without magic words');
  return ctx.magic;
}

function traversalInput(ctx: NavigatorContext): TraversalInput {
  const m = found(ctx);
  const skip = ctx.violations.length > 0;
  return {
    task: m.query ?? ctx.intake!.task!,
    words: skip ? [] : m.words,
    registry: m.registry,
    index: m.index,
    constraints: ctx.intake!.capsule.constraints,
    max_files: ctx.intake!.capsule.budget.max_files,
    pass: ctx.pass,
    ...(ctx.review ? { review: ctx.review } : {}),
    ...(m.evidence ? { evidence: m.evidence.resolved } : {}),
  };
}


/** Loaded files with the magic words each matched. */
function loadedWords(ctx: NavigatorContext): { path: string; words: string[] }[] {
  return (ctx.load?.files ?? []).map((f) => ({ path: f.path, words: ctx.load!.matches[f.path] ?? [] }));
}

/** navigation_map.json's northstar_metric: only when the capsule gives a NORTHSTAR that was read. */
function northstarMetric(ctx: NavigatorContext): { northstar_metric?: NorthstarMetric | null } {
  const docs = ctx.intake?.northstars ?? [];
  if (!docs.length) return {};
  return { northstar_metric: chooseMetric(docs, ctx.intake!.task ?? '', loadedWords(ctx)) ?? null };
}

function stopReason(ctx: NavigatorContext, exit: NavigatorExit): string {
  if (exit === 'EXIT_PASS') return 'PASS';
  if (exit === 'EXIT_NEED_INFO') {
    if (ctx.intake && ctx.intake.missing.length) return `NEED_INFO: ${ctx.intake.missing.join('; ')}`;
    if (ctx.magic?.kind === 'none_found') return `NEED_INFO: ${ctx.magic.reason}`;
    return 'NEED_INFO: inputs incomplete';
  }
  const v = ctx.violations[0];
  if (v) return `BLOCKED: ${v.state} (${v.detail})`;
  if (ctx.review?.limits_exceeded.length) return `BLOCKED: BUDGET_EXCEEDED (${ctx.review.limits_exceeded.join('; ')})`;
  if (ctx.compression && !ctx.review) return `BLOCKED: COMPRESSION_GATE (${ctx.compression.report.notes})`;
  if (ctx.review && !ctx.review.compression_valid) return `BLOCKED: COMPRESSION_GATE (${ctx.review.compression_problem ?? 'invalid'})`;
  if (ctx.artifacts && !ctx.artifacts.complete) return `BLOCKED: ARTIFACTS_INCOMPLETE (${ctx.artifacts.problems.join('; ')})`;
  return 'BLOCKED: unknown';
}

/**
 * A navigator: the seed-002 machine with its actors provided. `navigate(capsule)` runs one
 * navigation to its exit; each call starts a fresh actor, so nothing carries over between queries.
 */
export function createNavigator(options: NavigatorOptions = {}) {
  const steps: NavigatorSteps = { ...defaultSteps(options), ...options.steps };
  const rung = options.rungTarget !== undefined ? { rung_target: options.rungTarget } : {};
  const step = <T>(fn: (ctx: NavigatorContext) => Promise<StepOutput<T>>) =>
    fromPromise<unknown, { context: NavigatorMachineContext }>(async ({ input }) => fn(input.context as NavigatorContext));
  const machine = navigatorFsm.provide({
    actors: {
      intakeQuery: step(async (ctx) => ({ result: await steps.intakeQuery(ctx.capsule), violations: [] })),
      extractMagicWords: step(async (ctx) => {
        const result = await steps.extractMagicWords(ctx.intake!);
        return { result, violations: checkExtraction(ctx.intake!, result) };
      }),
      mapToTiers: step(async (ctx) => ({ result: steps.mapToTiers(found(ctx).words, found(ctx).registry), violations: [] })),
      traverseTrunk: step(async (ctx) => {
        const result = steps.traverseTrunk(traversalInput(ctx));
        return { result, violations: checkTrunk(result) };
      }),
      branchIfNeeded: step(async (ctx) => {
        const result = steps.branchIfNeeded(traversalInput(ctx), ctx.trunk ?? { entries: [], planned: [], covered: [], uncovered: [], resolves: false });
        return { result, violations: checkBranch(ctx.trunk !== undefined, result) };
      }),
      loadContext: step(async (ctx) => {
        const m = found(ctx);
        const skip = ctx.violations.length > 0;
        // Rank order, best first, whether a file was reached through the trunk or a branch (the first file given is the best guess).
        const planned = skip ? [] : [...(ctx.trunk?.planned ?? []), ...(ctx.branch?.planned ?? [])].map((p, i) => ({ p, i })).sort((a, b) => b.p.relevance - a.p.relevance || a.i - b.i).map(({ p }) => p);
        const confidence = skip ? undefined : pickConfidence(rankingFor(traversalInput(ctx)).files, ctx.intake!.capsule.budget.max_files);
        const result = await steps.loadContext({
          task: m.query ?? ctx.intake!.task!,
          words: m.words,
          planned,
          index: m.index,
          text: m.registry.text,
          budget: ctx.intake!.capsule.budget,
          constraints: ctx.intake!.capsule.constraints,
          pass: ctx.pass,
          tool_calls_before: ctx.load?.tool_calls ?? 0,
          ...(m.evidence ? { definitions: m.evidence.resolved.definitions } : {}),
          ...(confidence ? { confidence } : {}),
        });
        return { result, violations: skip ? [] : checkLoad(planned, ctx.pass, ctx.intake!, result) };
      }),
      validateCompression: step(async (ctx) => ({ result: steps.validateCompression(ctx.intake!.task!, ctx.load!), violations: [] })),
      buildArtifacts: step(async (ctx) => ({
        result: steps.buildArtifacts({ query: ctx.intake!.task!, words: found(ctx).words, tier_path: ctx.tier_path, ...(ctx.load ? { load: ctx.load } : {}), ...(ctx.compression ? { compression: ctx.compression } : {}), stop_reason: 'PASS', max_lines: ctx.intake!.capsule.budget.max_lines, ...rung, ...northstarMetric(ctx) }),
        violations: checkNorthstar(ctx.intake!, loadedWords(ctx)),
      })),
      socraticReview: step(async (ctx) => {
        const result = steps.socraticReview({
          words: found(ctx).words,
          ...(ctx.load ? { load: ctx.load } : {}),
          ...(ctx.compression ? { compression: ctx.compression } : {}),
          ...(ctx.artifacts ? { artifacts: ctx.artifacts } : {}),
          budget: ctx.intake!.capsule.budget,
          pass: ctx.pass,
          tool_calls: ctx.load?.tool_calls ?? 0,
        });
        return { result, violations: ctx.violations.length ? [] : checkCompression(ctx.load, ctx.compression) };
      }),
    },
  });

  async function navigate(capsule: unknown): Promise<NavigationOutcome> {
    const states: string[] = [];
    // Microsteps too, so transient states (NULL_CHECK) appear in the trace.
    const actor = createActor(machine, {
      inspect: (ev) => {
        if ((ev.type === '@xstate.microstep' || ev.type === '@xstate.snapshot') && ev.actorRef === actor) {
          const value = String((ev as { snapshot: { value?: unknown } }).snapshot.value);
          if (states[states.length - 1] !== value) states.push(value);
        }
      },
    });
    actor.subscribe({ error: () => undefined });
    actor.start();
    actor.send({ type: 'CAPSULE', capsule });
    let snap;
    try {
      snap = await waitFor(actor, (s) => s.status !== 'active');
    } finally {
      actor.stop();
    }
    if (snap.status === 'error') {
      const err = snap.error;
      if (err instanceof NavkernelError) throw err;
      throw new NavkernelError('NAVIGATOR_FAULT', `navigator failed in ${states[states.length - 1]}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
    const ctx = snap.context as NavigatorContext;
    const exit = String(snap.value) as NavigatorExit;
    const stop_reason = stopReason(ctx, exit);
    const words = ctx.magic?.kind === 'found' ? ctx.magic.words : [];
    const art = steps.buildArtifacts({
      query: ctx.intake?.task ?? '',
      words,
      tier_path: ctx.tier_path,
      ...(ctx.load ? { load: ctx.load } : {}),
      ...(ctx.compression ? { compression: ctx.compression } : {}),
      stop_reason,
      max_lines: ctx.intake?.capsule.budget.max_lines ?? 400,
      ...rung,
      ...northstarMetric(ctx),
    });
    const reg = ctx.magic?.registry;
    return {
      exit,
      stop_reason,
      violations: ctx.violations,
      states,
      artifacts: { navigation_map: art.navigation_map, context_load_receipt: art.context_load_receipt, compression_report: art.compression_report, context_md: art.context_md },
      magic_words: words,
      loaded: ctx.load?.files ?? [],
      ...(ctx.load ? { flight_plan: ctx.load.flight_plan } : {}),
      ...(ctx.review ? { review: ctx.review } : {}),
      passes: ctx.pass,
      ...(ctx.magic ? { index_stats: ctx.magic.index.stats, index: indexHandle(ctx.magic.index, ctx.magic.registry.text) } : {}),
      ...(reg ? { registry: { source: reg.source, origin: reg.origin, words: reg.records.length } } : {}),
    };
  }

  return { machine, steps, navigate };
}

/** Where the text index of a repository goes (false: in memory), or undefined when its root cannot be resolved. */
function textIndexTarget(cacheDir: string | false, root: string): string | false {
  if (!cacheDir) return false;
  try {
    return textIndexFile(cacheDir, realpathSync(root));
  } catch {
    return false;
  }
}

function indexHandle(repo: RepoIndex, text: TextIndex): NonNullable<NavigationOutcome['index']> {
  const memo = new Map<string, readonly string[]>();
  return {
    repo,
    filesWith(word) {
      const w = word.toLowerCase();
      let list = memo.get(w);
      if (!list) {
        // A plain word: the files holding it or its stem. A compound (`computeDelay`): the files holding
        // it whole, else those holding every one of its stemmed parts (never any one part alone).
        const parts = splitWords(w);
        const union = (terms: string[]) => [...new Set(terms.flatMap((t) => text.filesWith(t)))].sort();
        if (parts.length <= 1) list = union([w, stemOf(w)]);
        else {
          list = text.filesWith(parts.join(''));
          if (!list.length) {
            const sets = parts.map((p) => new Set(union([p, stemOf(p)])));
            list = [...sets[0]!].filter((f) => sets.every((s) => s.has(f))).sort();
          }
        }
        memo.set(w, list);
      }
      return list;
    },
  };
}

/** The handle type of `NavigationOutcome.index`. */
export type NavigatorIndex = NonNullable<NavigationOutcome['index']>;

/**
 * The navigator's index of a repository without a navigation: the repo index and the full-text
 * lookup, from the same persistent cache (for the explorer resuming a session).
 */
export async function openNavigatorIndex(repoRoot: string, options: Pick<NavigatorOptions, 'cacheDir'> = {}): Promise<NavigatorIndex> {
  const repo = await indexRepo(repoRoot, { extras: LEX_FIELDS_EXTRAS, ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}) });
  const cacheDir = options.cacheDir === undefined ? `${process.cwd()}/runs/.cache` : options.cacheDir;
  const text = openTextIndex(repo, cacheDir ? textIndexFile(cacheDir, repo.root) : false);
  return indexHandle(repo, text);
}

/** Runs one navigation with the default steps. */
export function navigate(capsule: unknown, options: NavigatorOptions = {}): Promise<NavigationOutcome> {
  return createNavigator(options).navigate(capsule);
}
