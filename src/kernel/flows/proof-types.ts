// The vocabulary of the termination proof (bounds-proof.ts), apart so that flow warnings (compiled-flow.ts) can carry
// a witness and a bound without importing the prover.

export type ProofEdgeKind = 'next' | 'branch' | 'loop' | 'detour' | 'inject' | 'nodes' | 'return';

/** A step of some flow. */
export interface ProofNode {
  flow: string;
  step: string;
}

/** One move of a witness path: from a step to a step, by an edge of the compiled graph. */
export interface WitnessEdge {
  from: ProofNode;
  to: ProofNode;
  kind: ProofEdgeKind;
  /** What takes the edge: a status (`BOUNCE`, `VERIFIED`), `(other)` for a branch table's default, `LOOP`, `DETOUR lint_errors`, `INJECT rebase`, `RETURN`. */
  label: string;
}

/** What bounds a cycle. */
export interface CycleBound {
  /** `visits`: a step's visit cap; `microloop`: a loop's max_iterations; `routes`: the run's route budget. */
  kind: 'visits' | 'microloop' | 'routes';
  value: number;
  /** Whether the flow states this bound itself (false: the kernel's default, DEFAULT_BOUNDS). */
  stated: boolean;
  /** The step whose counter it is (visits, microloop). */
  step?: string;
}
