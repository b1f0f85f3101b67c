/**
 * The kernel's bounds where a flow states none (docs/bounds.md): what `navkernel flows validate` names in its warnings
 * about unstated bounds, and what the run-time caps fall back to. A plain constant, apart from the zod models in
 * flow.ts (which re-exports it), so the kernel loads it without zod.
 */
export const DEFAULT_BOUNDS: Readonly<{ max_visits: number; max_routes: number; max_depth: number }> = Object.freeze({ max_visits: 25, max_routes: 500, max_depth: 10 });
