import type { CnfCapsule, CompressionReport, ContextLoadReceipt, FlightPlan, MagicWordRecord, NavigationMap, TierPathEntry } from '../../contracts/index.js';
import type { MapFile, RepoIndex } from '../../repomap/index.js';
import type { NorthstarDoc } from './northstar.js';
import type { TextIndex } from '../retrieval/text-index.js';
import type { IssueEvidence, RankedDefinition, ResolvedEvidence } from '../retrieval/evidence/index.js';

/** The seed-002 forbidden states: named with the machine (machines/navigator.machine.ts). */
import { FORBIDDEN_STATES } from '../../../machines/navigator.machine.js';
export { FORBIDDEN_STATES };
export type ForbiddenState = (typeof FORBIDDEN_STATES)[number];

/** A forbidden state detected while the machine ran. */
export interface Violation {
  state: ForbiddenState;
  /** The FSM state in which it was detected. */
  at: string;
  detail: string;
}

/** Word → canonical registry word. */
export interface WordLookup {
  get(key: string): string | undefined;
  has(key: string): boolean;
}

/** The tier registry in use: its records and how a word resolves to files. */
export interface TierRegistry {
  /** `repo` (a magic-words.jsonl found in or given for the repo) or `built` (derived from the repo). */
  source: 'repo' | 'built';
  /** Where it came from: the registry file, or the cache file of a built one. */
  origin: string;
  records: MagicWordRecord[];
  /** Lowercase word or alias → canonical word (a built registry: any word whose terms the full-text index holds). */
  lookup: WordLookup;
  /** Canonical word → repo-relative files it anchors, sorted (a built registry: the files containing it). */
  files: { get(word: string): string[] | undefined };
  /** The full-text index of the repository (built registries are this index). */
  text: TextIndex;
  /** Files of the trunk (tier 0), sorted. */
  trunk: string[];
}

/** Output of INTAKE_QUERY, read by NULL_CHECK. */
export interface IntakeResult {
  capsule: CnfCapsule;
  /** The verbatim task, or null when missing/blank. */
  task: string | null;
  /** Real path of REPO_ROOT, or null when missing or not a directory. */
  repo_root: string | null;
  /** Why NULL_CHECK must stop (empty when the inputs are defined). */
  missing: string[];
  /** The NORTHSTARs the capsule gives, read and parsed (a field that could not be read is in `missing`). */
  northstars: NorthstarDoc[];
}

/** One magic word and where it came from. */
export interface MagicWord {
  word: string;
  tier: number;
  source: 'task' | 'hint';
  /** The task/hint token it was read from. */
  via: string;
}

/** EXTRACT_MAGIC_WORDS: found words, or none — which is not the same as an empty list. */
export type MagicWordsResult =
  /** `query`: the task as ranked (the issue template's prompts removed, see evidence/issue-template.ts). */
  | { kind: 'found'; query?: string; words: MagicWord[]; unknown_hint: string[]; registry: TierRegistry; index: RepoIndex; evidence?: TaskEvidence }
  | { kind: 'none_found'; reason: string; hint: 'absent' | 'empty' | 'unmatched'; unknown_hint: string[]; registry: TierRegistry; index: RepoIndex };

/** What the task says as evidence (read-issue) and what it resolves to in the repository (ranked definitions). */
export interface TaskEvidence {
  read: IssueEvidence;
  resolved: ResolvedEvidence;
}

/** A file planned for loading, with its rendering rule and why. */
export interface PlannedFile {
  path: string;
  tier: 0 | 1 | 2 | 3;
  /** Magic words this file matches, best first. */
  words: string[];
  relevance: number;
  /** Level the file should be rendered at, and section rules inside it. */
  level: 1 | 2 | 3 | 4;
  sections?: { pattern: string; level: number }[];
  /** Definitions of this file the evidence points at, best first: shown before the word windows. */
  focus?: RankedDefinition[];
}

/** MAP_TO_TIERS: each magic word with its tier and anchored files. */
export interface TierMap {
  words: { word: string; tier: number; files: string[] }[];
}

/** TRAVERSE_TRUNK: the trunk visit and which words it covers. */
export interface TrunkResult {
  entries: TierPathEntry[];
  planned: PlannedFile[];
  covered: string[];
  uncovered: string[];
  /** True when the trunk covers every magic word (no branch is needed). */
  resolves: boolean;
}

/** BRANCH_IF_NEEDED: branch and leaf visits for the words the trunk left uncovered. */
export interface BranchResult {
  entries: TierPathEntry[];
  planned: PlannedFile[];
}

/** LOAD_CONTEXT: what was rendered and loaded, with a receipt reset for this pass. */
export interface LoadResult {
  pass: number;
  context: string;
  receipt: ContextLoadReceipt;
  /** Words each loaded file matched (path → words). */
  matches: Record<string, string[]>;
  /** Files loaded: `lines_read` every line read from the file, `lines_shown` the lines put in the context. */
  files: (MapFile & { lines_shown: number })[];
  flight_plan: FlightPlan;
  tokens_loaded: number;
  matched_tokens: number;
  /** Lines read from files, those read and then left out included. */
  lines_read: number;
  /** Lines shown in the context (what BUDGET.max_lines bounds). */
  lines_shown: number;
  /** Tool calls of every pass so far, this one included. */
  tool_calls: number;
  /** Planned files the budget dropped or degraded (the demand exceeded the budget). */
  cut_for_budget: string[];
  corpus_tokens: number;
  corpus_files: string[];
}

/** VALIDATE_COMPRESSION. */
export interface CompressionResult {
  report: CompressionReport;
  computed: boolean;
  ratio: number;
  gate: number;
  /** The planned load did not fit the budget (files cut or degraded). */
  demand_over_budget: boolean;
}

/** BUILD_ARTIFACTS: the three seed artifacts and context.md (stop_reason completed at exit). */
export interface Artifacts {
  navigation_map: NavigationMap;
  context_load_receipt: ContextLoadReceipt;
  compression_report: CompressionReport;
  context_md: string;
  /** Every required key present and every loaded file has a magic_word_match. */
  complete: boolean;
  problems: string[];
}

/** SOCRATIC_REVIEW: a deterministic critique. */
export interface ReviewResult {
  critiques: string[];
  uncovered: string[];
  unmatched_files: string[];
  /** The critique asks for another traversal. */
  renavigate: boolean;
  /** Headroom left in every limit, and the one re-navigation not yet used. */
  budget_allows: boolean;
  /** A hard limit (tokens, files, lines, tool calls) is over. */
  limits_exceeded: string[];
  /** Compression was computed from real counts and passes the 2.0 gate. */
  compression_valid: boolean;
  compression_problem?: string;
}

/** NULL_CHECK passed: the task and the repository are defined (what EXTRACT_MAGIC_WORDS reads). */
export interface NavigationInputs {
  intake: IntakeResult;
  task: string;
  repo_root: string;
}

/** EXTRACT_MAGIC_WORDS found words: what every traversal pass reads. */
export interface FoundWords {
  /** The step's result as returned (its registry and index are the outcome's). */
  magic: Extract<MagicWordsResult, { kind: 'found' }>;
  /** The task as ranked: the step's `query`, else the task itself. */
  query: string;
  /** The task's evidence, or null when the step read none. */
  evidence: TaskEvidence | null;
}

/** TRAVERSE_TRUNK and, when the trunk left words uncovered, BRANCH_IF_NEEDED (null when it did not run). */
export interface Traversed {
  trunk: TrunkResult;
  branch: BranchResult | null;
}
/** LOAD_CONTEXT done. */
export interface Loaded extends Traversed {
  load: LoadResult;
}
/** VALIDATE_COMPRESSION done. */
export interface Measured extends Loaded {
  compression: CompressionResult;
}
/** BUILD_ARTIFACTS done. */
export interface Built extends Measured {
  artifacts: Artifacts;
}
/** SOCRATIC_REVIEW done: a whole pass. */
export interface Reviewed extends Built {
  review: ReviewResult;
}

/** How far the current traversal pass got: each state's output is the next one's input. */
export type PassStage =
  | { at: 'start' }
  | ({ at: 'traversed' } & Traversed)
  | ({ at: 'loaded' } & Loaded)
  | ({ at: 'measured' } & Measured)
  | ({ at: 'built' } & Built)
  | ({ at: 'reviewed' } & Reviewed);

/** How far a navigation got, one variant per step that changes what the next step reads. */
export type Progress =
  | { at: 'received' }
  | { at: 'intake'; intake: IntakeResult }
  | { at: 'no_words'; inputs: NavigationInputs; magic: Extract<MagicWordsResult, { kind: 'none_found' }> }
  | { at: 'words'; inputs: NavigationInputs; found: FoundWords }
  /** `prior`: the pass SOCRATIC_REVIEW sent back (its review and tool calls carry over), null on the first pass. */
  | { at: 'navigating'; inputs: NavigationInputs; found: FoundWords; tiers: TierMap; prior: Reviewed | null; pass: PassStage };
