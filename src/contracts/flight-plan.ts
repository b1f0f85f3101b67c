import { z } from 'zod';

/** A non-empty glob (picomatch syntax, matched against repo-relative POSIX paths). */
const Glob = z.string().min(1);

/**
 * Verbosity level of a rendering (seed 000 / flight-plan-schema):
 * 0 EXCLUDE (hidden), 1 EXISTENCE (path), 2 STRUCTURE (definition lines / headings),
 * 3 INTERFACE (signatures and doc comments), 4 IMPLEMENTATION (full text).
 */
export const VerbosityLevel = z.int().min(0).max(4);
export type VerbosityLevel = z.infer<typeof VerbosityLevel>;

/** Boosts files whose path matches `pattern` in the ranking of what fits the token budget. */
export const PathBoost = z
  .object({
    pattern: Glob,
    weight: z.number().positive().default(10),
  })
  .strict();
export type PathBoost = z.infer<typeof PathBoost>;

/** Boosts files that define (strongly) or reference (weakly) a symbol named `name`. */
export const SymbolBoost = z
  .object({
    name: z.string().min(1),
    weight: z.number().positive().default(10),
  })
  .strict();
export type SymbolBoost = z.infer<typeof SymbolBoost>;

/** Focus boosting configuration. */
export const Focus = z
  .object({
    paths: z.array(PathBoost).default([]),
    symbols: z.array(SymbolBoost).default([]),
  })
  .strict();
export type Focus = z.infer<typeof Focus>;

/**
 * A section rule inside a file: `pattern` is a glob matched (case-insensitively) against the names of
 * the file's top-level definitions (classes, functions, …) or Markdown headings. The first matching
 * section rule wins, so specific patterns go before a catch-all `*`.
 */
export const SectionRule = z
  .object({
    pattern: Glob,
    level: VerbosityLevel,
  })
  .strict();
export type SectionRule = z.infer<typeof SectionRule>;

/**
 * A verbosity rule for the files matching `pattern`. Rules apply in order and the last match wins.
 * `level` sets the file's level, `sections` the levels of its sections; at least one must be given.
 */
export const VerbosityRule = z
  .object({
    pattern: Glob,
    level: VerbosityLevel.optional(),
    sections: z.array(SectionRule).min(1).optional(),
  })
  .strict()
  .refine((r) => r.level !== undefined || r.sections !== undefined, {
    message: "Either 'level' or 'sections' must be specified",
  });
export type VerbosityRule = z.infer<typeof VerbosityRule>;

/**
 * Structural check of a tree-sitter query (S-expression): balanced parentheses and brackets outside
 * string literals, and at least one `@capture`. The full check (node types of a grammar) happens when
 * the query is compiled for a file's language (`compileCustomQuery` in repomap).
 */
export function queryStructureProblem(query: string): string | undefined {
  let depth = 0;
  const stack: string[] = [];
  let inString = false;
  let inComment = false;
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!;
    if (inComment) {
      if (c === '\n') inComment = false;
      continue;
    }
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ';') inComment = true;
    else if (c === '"') inString = true;
    else if (c === '(' || c === '[') {
      stack.push(c);
      depth++;
    } else if (c === ')' || c === ']') {
      const open = stack.pop();
      if (open === undefined || (open === '(') !== (c === ')')) return `unbalanced '${c}' at offset ${i}`;
      depth--;
    }
  }
  if (inString) return 'unterminated string literal';
  if (depth !== 0) return `unclosed '${stack[stack.length - 1] ?? '('}'`;
  if (!/@[A-Za-z_][\w.-]*/.test(query.replace(/"(?:[^"\\]|\\.)*"/g, ''))) return 'the query has no @capture';
  return undefined;
}

/** A custom tree-sitter query run on the files matching `pattern`; its captures are added to their rendering. */
export const CustomQuery = z
  .object({
    pattern: Glob,
    query: z
      .string()
      .min(1)
      .superRefine((q, ctx) => {
        const problem = queryStructureProblem(q);
        if (problem) ctx.addIssue({ code: 'custom', message: `not a valid tree-sitter query: ${problem}` });
      }),
  })
  .strict();
export type CustomQuery = z.infer<typeof CustomQuery>;

/**
 * The FlightPlan (seed 000, reference/flight-plan-schema.md): how a repository map is rendered —
 * the token budget, focus boosts, verbosity rules (file and section level) and custom queries.
 * Unknown fields are rejected.
 */
export const FlightPlan = z
  .object({
    budget: z.int().positive().default(20000).describe('Token budget of the rendered map (hard limit)'),
    focus: Focus.nullable().optional(),
    verbosity: z.array(VerbosityRule).default([]),
    custom_queries: z.array(CustomQuery).default([]),
  })
  .strict();
export type FlightPlan = z.infer<typeof FlightPlan>;
/** A FlightPlan as written by a user (defaults not yet applied). */
export type FlightPlanInput = z.input<typeof FlightPlan>;

/** A partial FlightPlan: the `config_diff` of an explorer step (seed 000 DecisionLogEntry). */
export const FlightPlanDiff = z
  .object({
    budget: z.int().positive().optional(),
    focus: Focus.nullable().optional(),
    verbosity: z.array(VerbosityRule).optional(),
    custom_queries: z.array(CustomQuery).optional(),
  })
  .strict();
export type FlightPlanDiff = z.infer<typeof FlightPlanDiff>;

/** Parses a FlightPlan, returning zod's issues (with paths) on failure. */
export function parseFlightPlan(doc: unknown): ReturnType<typeof FlightPlan.safeParse> {
  return FlightPlan.safeParse(doc);
}
