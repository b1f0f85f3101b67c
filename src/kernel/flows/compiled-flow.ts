import type { Bounds, Charter, Flow, Step } from '../../contracts/index.js';
import type { SignatureMatcher } from '../signatures.js';
import type { IssuePath } from '../../contracts/errors.js';
import type { CycleBound, WitnessEdge } from './proof-types.js';

/** A detour-table entry resolved to what it does. */
export type ResolvedDetour =
  | { kind: 'step'; step: string; max_attempts: number }
  | { kind: 'flow'; flow: string; max_attempts: number };

/** A step with its edges precomputed for routing. */
export interface CompiledStep {
  readonly def: Step;
  readonly id: string;
  /** `<flow>/<step>`: the step's key in a run's loop counters, visits and trail, built once (not per route). */
  readonly key: string;
  /** Lower-cased status -> branch target. */
  readonly branches: ReadonlyMap<string, string>;
  /**
   * Whether the step routes by a branch table: `next` is then the default for every status no branch names. An empty
   * table with a `next` (`branches: {}`) counts, so its next stays the default; without a table (or an empty one and
   * no next) the step is linear: only its successes go on.
   */
  readonly branched: boolean;
  /** Lower-cased exit statuses of the step's microloop. */
  readonly exitWhen: ReadonlySet<string>;
  /** The loop's target (defaults to the step itself), when the step has a microloop. */
  readonly loopTo: string | undefined;
  /** Steps a runner may legally go to from here: next, branch targets, the loop target. */
  readonly edges: ReadonlySet<string>;
  /** Lower-cased statuses that mean success here: the built-in ones and the step's `success`. */
  readonly success: ReadonlySet<string>;
  /** Lower-cased statuses that mean failure here: the built-in ones and the step's `failure`. */
  readonly failure: ReadonlySet<string>;
  /** What a failure status that matches no branch does (step, else flow, else `warn`). */
  readonly failureDefault: 'warn' | 'off';
  /** What the iteration cap does (loop, else flow, else `advance`). */
  readonly onExhausted: 'advance' | 'escalate';
  /** What the iteration cap does with a HIGH/CRITICAL concern still open (loop, else flow, else `escalate`). */
  readonly onOpenConcern: 'escalate' | 'advance';
  /** How many times a run may be sent here (the step's max_visits, else the flow's bounds, else DEFAULT_BOUNDS). */
  readonly maxVisits: number;
}

/** A validated flow ready for routing: lookups instead of scans on the hot path. */
export interface CompiledFlow {
  readonly id: string;
  readonly def: Flow;
  readonly charter: Charter;
  readonly firstStep: string;
  readonly steps: ReadonlyMap<string, CompiledStep>;
  readonly detours: ReadonlyMap<string, ResolvedDetour>;
  readonly injectFlows: readonly string[];
  readonly signatures: readonly SignatureMatcher[];
  /** Agents of the flow's steps: the only agents INJECT_NODES may use. */
  readonly roster: readonly string[];
  /** The flow's bounds with the kernel's defaults filled in (DEFAULT_BOUNDS). */
  readonly bounds: Readonly<Required<Bounds>>;
  /** Which of `bounds` the flow states itself (the rest are the kernel's defaults). */
  readonly statedBounds: Readonly<Bounds>;
}

/** The set of flows a kernel routes, with the hash of their definitions recorded on every route. */
export interface FlowSet {
  readonly flows: ReadonlyMap<string, CompiledFlow>;
  /** sha256 of the canonical JSON of all flow definitions, sorted by flow id. */
  readonly hash: string;
  get(flow: string): CompiledFlow | undefined;
  /**
   * What `loadFlows` and `defineFlows` found that does not stop the flows loading (flowWarnings): statuses no rule
   * handles, cycles only the kernel's default bounds. Absent on a set built by makeFlowSet alone.
   */
  readonly warnings?: readonly FlowWarning[];
  /** Entries of a flows folder that `loadFlows` did not read (FIFO, device, dangling symlink, …), with why. */
  readonly skipped?: readonly SkippedFlowFile[];
}

/** A folder entry `loadFlows` skipped, and why (`not a regular file (FIFO)`, `dangling symlink`, …). */
export interface SkippedFlowFile {
  file: string;
  reason: string;
}

export const DEFAULT_MAX_ATTEMPTS = 2;

/** The data a flow warning carries beside its flow, step, path and message, per code. */
export interface FlowWarningData {
  /** The status the step reports that no rule of it handles. */
  unhandled_status: { status: string };
  /** The cycle's steps, a witness path around it, and the default bound that is all that holds it. */
  unstated_bound: { steps: string[]; witness: WitnessEdge[]; bound: CycleBound };
  /** How deep side trips can nest, and the flow's max_depth. */
  depth_exceeds: { depth: number; max_depth: number };
}

/**
 * Something in a valid flow that will not route as its author likely expects (not an error: the flow loads): a
 * union keyed on `code`, each member with its own data ({@link FlowWarningData}).
 */
export type FlowWarning = {
  [C in keyof FlowWarningData]: {
    code: C;
    flow: string;
    step: string;
    /** Where in the flow file, as an issue path (`['steps', 0, 'statuses']`). */
    path: IssuePath;
    message: string;
  } & FlowWarningData[C];
}[keyof FlowWarningData];

