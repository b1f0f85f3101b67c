import { realpathSync } from 'node:fs';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { NavigatorMachineContext } from '../../../machines/navigator.machine.js';
import { navigatorFsm, type NavigatorContext, type StepOutput } from './navigator-machine.js';
import type { FlightPlan } from '../../contracts/index.js';
import { NavkernelError } from '../../contracts/errors.js';
import { indexRepo, type IndexPlan, type IndexSink, type IndexStats, type MapFile, preloadTokenizer, type RepoIndex } from '../../repomap/index.js';
import { MIN_PARALLEL_BYTES } from '../../repomap/extract-pool.js';
import { setTokenCountStore } from '../../repomap/tokens.js';
import { holdCacheWrites } from '../../repomap/cache-writes.js';
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
  NavigationInputs,
  PassStage,
  Progress,
  ReviewResult,
  Reviewed,
  TierMap,
  TierRegistry,
  TrunkResult,
  Violation,
} from './types.js';

/** The work of each FSM state. Replaceable (tests provoke forbidden states this way); the invariant checks are not. */
export interface NavigatorSteps {
  intakeQuery(capsule: unknown): Promise<IntakeResult>;
  extractMagicWords(inputs: NavigationInputs): Promise<MagicWordsResult>;
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
    extractMagicWords: async ({ intake, task, repo_root }) => {
      const cacheDir = options.cacheDir === undefined ? `${process.cwd()}/runs/.cache` : options.cacheDir;
      // The full-text index is written while the files are parsed (not in a shuffled order: rows are placed by path order).
      const feed = options.fileOrderSeed === undefined ? textIndexFeed(textIndexTarget(cacheDir, repo_root)) : undefined;
      let index: RepoIndex = await indexRepo(repo_root, {
        extras: LEX_FIELDS_EXTRAS,
        ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.onIndexPlan ? { onPlan: options.onIndexPlan } : {}),
        // A new text index is a cold run: the tokenizer it will need (no token count is stored yet) loads before a
        // large parse, while the heap is small, not after it, where its load (~65 MB, mostly transient) set a cold
        // run's peak RSS (a 1,800-file package: 252 -> 232 MB, measured); before a small one it only adds to the peak
        // (the 17-file shop fixture: +12 MB), so it loads when needed there. Worker threads: it loads as they start.
        ...(feed
          ? {
              sink: {
                open: (paths, bytesToRead) => {
                  feed.open!(paths, bytesToRead);
                  if (feed.live && bytesToRead >= MIN_PARALLEL_BYTES) preloadTokenizer();
                },
                begin: (files) => feed.begin(files),
                records: (batch) => feed.records(batch),
                whileParsing: preloadTokenizer,
              } satisfies IndexSink,
            }
          : {}),
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
      const query = withoutIssueTemplate(task, readIssueTemplate(repo_root));
      const { words, unknown_hint } = extractMagicWords(withoutFenceLanguages(query), hint, registry);
      const evidenceOf = () => {
        const read = readIssue(query);
        return { read, resolved: resolveEvidence(read, index, registry.text) };
      };
      const hintState = hint === undefined ? 'absent' : hint.length === 0 ? 'empty' : 'unmatched';
      if (words.length && intake.northstars?.length && !servedByTask(intake.northstars, task).length) {
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

/** A step ran out of the machine's order: never on a real run (the machine orders them), a fault when it happens. */
function outOfOrder(what: string): never {
  throw new NavkernelError('NAVIGATOR_FAULT', `navigator: ${what}`);
}

/** NULL_CHECK → EXTRACT_MAGIC_WORDS: the intake with its task and repository defined. */
function inputsOf(p: Progress): NavigationInputs {
  if (p.at !== 'intake') return outOfOrder('EXTRACT_MAGIC_WORDS ran before INTAKE_QUERY');
  const { intake } = p;
  if (intake.task === null || intake.repo_root === null) return outOfOrder('EXTRACT_MAGIC_WORDS ran with the task or the repository missing');
  return { intake, task: intake.task, repo_root: intake.repo_root };
}

/** EXTRACT_MAGIC_WORDS → what comes next: the words found (and the task as ranked), or none. */
function afterExtraction(inputs: NavigationInputs, magic: MagicWordsResult): Progress {
  if (magic.kind === 'none_found') return { at: 'no_words', inputs, magic };
  return { at: 'words', inputs, found: { magic, query: magic.query ?? inputs.task, evidence: magic.evidence ?? null } };
}

/** The words a traversal step reads: found by EXTRACT_MAGIC_WORDS, with the tiers once MAP_TO_TIERS ran. */
function wordsOf(p: Progress): Extract<Progress, { at: 'words' }> {
  if (p.at !== 'words') return outOfOrder('a traversal step ran without magic words');
  return p;
}
function navigatingOf(p: Progress): Extract<Progress, { at: 'navigating' }> {
  if (p.at !== 'navigating') return outOfOrder('a traversal step ran without magic words');
  return p;
}
/** The current pass at the stage a step needs. */
function passAt<A extends PassStage['at']>(n: Extract<Progress, { at: 'navigating' }>, at: A, step: string): Extract<PassStage, { at: A }> {
  if (n.pass.at !== at) return outOfOrder(`${step} ran after ${n.pass.at}, not ${at}`);
  return n.pass as Extract<PassStage, { at: A }>;
}
/** The same navigation with the current pass moved on. */
const withPass = (n: Extract<Progress, { at: 'navigating' }>, pass: PassStage): Progress => ({ ...n, pass });

function traversalInput(n: Extract<Progress, { at: 'navigating' }>, c: NavigatorContext): TraversalInput {
  const skip = c.violations.length > 0;
  const review = n.prior?.review;
  return {
    task: n.found.query,
    words: skip ? [] : n.found.magic.words,
    registry: n.found.magic.registry,
    index: n.found.magic.index,
    constraints: n.inputs.intake.capsule.constraints,
    max_files: n.inputs.intake.capsule.budget.max_files,
    pass: c.pass,
    ...(review ? { review } : {}),
    ...(n.found.evidence ? { evidence: n.found.evidence.resolved } : {}),
  };
}

/** Loaded files with the magic words each matched. */
function loadedWords(load: LoadResult | undefined): { path: string; words: string[] }[] {
  return (load?.files ?? []).map((f) => ({ path: f.path, words: load?.matches[f.path] ?? [] }));
}

/** navigation_map.json's northstar_metric: only when the capsule gives a NORTHSTAR that was read. */
function northstarMetric(intake: IntakeResult | undefined, load: LoadResult | undefined): { northstar_metric?: NorthstarMetric | null } {
  const docs = intake?.northstars ?? [];
  if (!docs.length) return {};
  return { northstar_metric: chooseMetric(docs, intake?.task ?? '', loadedWords(load)) ?? null };
}

/**
 * Where a navigation ended, read once at its exit: the intake, the magic words, and the latest result of each
 * traversal step (the current pass's, else the pass before it: a second pass that stops at VALIDATE_COMPRESSION
 * still has the first one's artifacts and review).
 */
interface Ending {
  intake?: IntakeResult;
  magic?: MagicWordsResult;
  load?: LoadResult;
  compression?: CompressionResult;
  artifacts?: Artifacts;
  review?: ReviewResult;
}
function endingOf(p: Progress): Ending {
  switch (p.at) {
    case 'received':
      return {};
    case 'intake':
      return { intake: p.intake };
    case 'no_words':
      return { intake: p.inputs.intake, magic: p.magic };
    case 'words':
      return { intake: p.inputs.intake, magic: p.found.magic };
    case 'navigating': {
      const latest = <K extends 'load' | 'compression' | 'artifacts' | 'review'>(k: K) => (k in p.pass ? (p.pass as Partial<Reviewed>)[k] : p.prior?.[k]);
      const load = latest('load');
      const compression = latest('compression');
      const artifacts = latest('artifacts');
      const review = latest('review');
      return {
        intake: p.inputs.intake,
        magic: p.found.magic,
        ...(load ? { load } : {}),
        ...(compression ? { compression } : {}),
        ...(artifacts ? { artifacts } : {}),
        ...(review ? { review } : {}),
      };
    }
  }
}

function stopReason(end: Ending, violations: Violation[], exit: NavigatorExit): string {
  if (exit === 'EXIT_PASS') return 'PASS';
  if (exit === 'EXIT_NEED_INFO') {
    if (end.intake && end.intake.missing.length) return `NEED_INFO: ${end.intake.missing.join('; ')}`;
    if (end.magic?.kind === 'none_found') return `NEED_INFO: ${end.magic.reason}`;
    return 'NEED_INFO: inputs incomplete';
  }
  const v = violations[0];
  if (v) return `BLOCKED: ${v.state} (${v.detail})`;
  if (end.review?.limits_exceeded.length) return `BLOCKED: BUDGET_EXCEEDED (${end.review.limits_exceeded.join('; ')})`;
  if (end.compression && !end.review) return `BLOCKED: COMPRESSION_GATE (${end.compression.report.notes})`;
  if (end.review && !end.review.compression_valid) return `BLOCKED: COMPRESSION_GATE (${end.review.compression_problem ?? 'invalid'})`;
  if (end.artifacts && !end.artifacts.complete) return `BLOCKED: ARTIFACTS_INCOMPLETE (${end.artifacts.problems.join('; ')})`;
  return 'BLOCKED: unknown';
}

/**
 * A navigator: the seed-002 machine with its actors provided. `navigate(capsule)` runs one
 * navigation to its exit; each call starts a fresh actor, so nothing carries over between queries.
 * Each actor is a stage: it reads the progress the step before it left (narrowed to the stage it needs) and returns
 * its result, the forbidden states its check found, and the progress the next step reads.
 */
export function createNavigator(options: NavigatorOptions = {}) {
  const steps: NavigatorSteps = { ...defaultSteps(options), ...options.steps };
  const rung = options.rungTarget !== undefined ? { rung_target: options.rungTarget } : {};
  const step = <T>(fn: (ctx: NavigatorContext) => Promise<StepOutput<T>>) =>
    fromPromise<unknown, { context: NavigatorMachineContext }>(async ({ input }) => fn(input.context as NavigatorContext));
  const machine = navigatorFsm.provide({
    actors: {
      intakeQuery: step(async (c) => {
        const result = await steps.intakeQuery(c.capsule);
        return { result, violations: [], progress: { at: 'intake', intake: result } };
      }),
      extractMagicWords: step(async (c) => {
        const inputs = inputsOf(c.progress);
        const result = await steps.extractMagicWords(inputs);
        return { result, violations: checkExtraction(inputs.intake, result), progress: afterExtraction(inputs, result) };
      }),
      mapToTiers: step(async (c) => {
        const w = wordsOf(c.progress);
        const result = steps.mapToTiers(w.found.magic.words, w.found.magic.registry);
        return { result, violations: [], progress: { at: 'navigating', inputs: w.inputs, found: w.found, tiers: result, prior: null, pass: { at: 'start' } } };
      }),
      traverseTrunk: step(async (c) => {
        const n = navigatingOf(c.progress);
        passAt(n, 'start', 'TRAVERSE_TRUNK');
        const result = steps.traverseTrunk(traversalInput(n, c));
        return { result, violations: checkTrunk(result), progress: withPass(n, { at: 'traversed', trunk: result, branch: null }) };
      }),
      branchIfNeeded: step(async (c) => {
        const n = navigatingOf(c.progress);
        const { trunk } = passAt(n, 'traversed', 'BRANCH_IF_NEEDED');
        const result = steps.branchIfNeeded(traversalInput(n, c), trunk);
        return { result, violations: checkBranch(true, result), progress: withPass(n, { at: 'traversed', trunk, branch: result }) };
      }),
      loadContext: step(async (c) => {
        const n = navigatingOf(c.progress);
        const traversed = passAt(n, 'traversed', 'LOAD_CONTEXT');
        const skip = c.violations.length > 0;
        // Rank order, best first, whether a file was reached through the trunk or a branch (the first file given is the best guess).
        const planned = skip ? [] : [...traversed.trunk.planned, ...(traversed.branch?.planned ?? [])].map((p, i) => ({ p, i })).sort((a, b) => b.p.relevance - a.p.relevance || a.i - b.i).map(({ p }) => p);
        const { budget, constraints } = n.inputs.intake.capsule;
        const confidence = skip ? undefined : pickConfidence(rankingFor(traversalInput(n, c)).files, budget.max_files);
        const result = await steps.loadContext({
          task: n.found.query,
          words: n.found.magic.words,
          planned,
          index: n.found.magic.index,
          text: n.found.magic.registry.text,
          budget,
          constraints,
          pass: c.pass,
          tool_calls_before: n.prior?.load.tool_calls ?? 0,
          ...(n.found.evidence ? { definitions: n.found.evidence.resolved.definitions } : {}),
          ...(confidence ? { confidence } : {}),
        });
        return {
          result,
          violations: skip ? [] : checkLoad(planned, c.pass, n.inputs.intake, result),
          progress: withPass(n, { at: 'loaded', trunk: traversed.trunk, branch: traversed.branch, load: result }),
        };
      }),
      validateCompression: step(async (c) => {
        const n = navigatingOf(c.progress);
        const loaded = passAt(n, 'loaded', 'VALIDATE_COMPRESSION');
        const result = steps.validateCompression(n.inputs.task, loaded.load);
        return { result, violations: [], progress: withPass(n, { ...loaded, at: 'measured', compression: result }) };
      }),
      buildArtifacts: step(async (c) => {
        const n = navigatingOf(c.progress);
        const measured = passAt(n, 'measured', 'BUILD_ARTIFACTS');
        const { intake } = n.inputs;
        const result = steps.buildArtifacts({ query: n.inputs.task, words: n.found.magic.words, tier_path: c.tier_path, load: measured.load, compression: measured.compression, stop_reason: 'PASS', max_lines: intake.capsule.budget.max_lines, ...rung, ...northstarMetric(intake, measured.load) });
        return { result, violations: checkNorthstar(intake, loadedWords(measured.load)), progress: withPass(n, { ...measured, at: 'built', artifacts: result }) };
      }),
      socraticReview: step(async (c) => {
        const n = navigatingOf(c.progress);
        const built = passAt(n, 'built', 'SOCRATIC_REVIEW');
        const result = steps.socraticReview({
          words: n.found.magic.words,
          load: built.load,
          compression: built.compression,
          artifacts: built.artifacts,
          budget: n.inputs.intake.capsule.budget,
          pass: c.pass,
          tool_calls: built.load.tool_calls,
        });
        return { result, violations: c.violations.length ? [] : checkCompression(built.load, built.compression), progress: withPass(n, { ...built, at: 'reviewed', review: result }) };
      }),
    },
  });

  /** One navigation: the caches its index run writes are written once it has answered (see cache-writes.ts). */
  async function navigate(capsule: unknown): Promise<NavigationOutcome> {
    const release = holdCacheWrites();
    try {
      return await navigateOnce(capsule);
    } finally {
      release();
    }
  }

  async function navigateOnce(capsule: unknown): Promise<NavigationOutcome> {
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
    const end = endingOf(ctx.progress);
    const stop_reason = stopReason(end, ctx.violations, exit);
    const words = end.magic?.kind === 'found' ? end.magic.words : [];
    const art = steps.buildArtifacts({
      query: end.intake?.task ?? '',
      words,
      tier_path: ctx.tier_path,
      ...(end.load ? { load: end.load } : {}),
      ...(end.compression ? { compression: end.compression } : {}),
      stop_reason,
      max_lines: end.intake?.capsule.budget.max_lines ?? 400,
      ...rung,
      ...northstarMetric(end.intake, end.load),
    });
    const reg = end.magic?.registry;
    return {
      exit,
      stop_reason,
      violations: ctx.violations,
      states,
      artifacts: { navigation_map: art.navigation_map, context_load_receipt: art.context_load_receipt, compression_report: art.compression_report, context_md: art.context_md },
      magic_words: words,
      loaded: end.load?.files ?? [],
      ...(end.load ? { flight_plan: end.load.flight_plan } : {}),
      ...(end.review ? { review: end.review } : {}),
      passes: ctx.pass,
      ...(end.magic ? { index_stats: end.magic.index.stats, index: indexHandle(end.magic.index, end.magic.registry.text) } : {}),
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
