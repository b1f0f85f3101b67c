// A plain constant, apart from the zod models in flow.ts, so that the kernel entry loads no zod (tests/structure).

/** The kernel's bounds where a flow states none: what `validate` names in its warnings about unstated bounds. */
export const DEFAULT_BOUNDS: Readonly<{ max_visits: number; max_routes: number; max_depth: number }> = Object.freeze({ max_visits: 25, max_routes: 500, max_depth: 10 });
