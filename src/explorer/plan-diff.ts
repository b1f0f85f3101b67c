import picomatch from 'picomatch';
import { Query } from 'web-tree-sitter';
import { canonicalJson } from '../contracts/canonical-json.js';
import { FlightPlan, FlightPlanDiff, type Focus } from '../contracts/flight-plan.js';
import { compileCustomQuery, isCodeLanguage, type RepoIndex } from '../repomap/index.js';

/**
 * Applies a `config_diff` to a plan. `budget` replaces; `focus: null` clears the focus; every other list entry
 * is an upsert: an entry with the same key (verbosity rule and path boost: `pattern`; symbol boost: `name`;
 * custom query: `pattern` + `query`) is removed and the new one appended. Appending matters for verbosity,
 * where the last matching rule wins: the latest decision takes precedence.
 */
export function applyFlightPlanDiff(plan: FlightPlan, diff: FlightPlanDiff): FlightPlan {
  const upsert = <T>(list: readonly T[], add: readonly T[] | undefined, key: (x: T) => string): T[] => {
    if (!add) return [...list];
    const keys = new Set(add.map(key));
    return [...list.filter((x) => !keys.has(key(x))), ...add];
  };
  let focus: Focus | null | undefined = plan.focus;
  if (diff.focus === null) focus = null;
  else if (diff.focus) {
    const base = plan.focus ?? { paths: [], symbols: [] };
    focus = { paths: upsert(base.paths, diff.focus.paths, (p) => p.pattern), symbols: upsert(base.symbols, diff.focus.symbols, (s) => s.name) };
  }
  return FlightPlan.parse({
    budget: diff.budget ?? plan.budget,
    focus: focus ?? null,
    verbosity: upsert(plan.verbosity, diff.verbosity, (r) => r.pattern),
    custom_queries: upsert(plan.custom_queries, diff.custom_queries, (q) => `${q.pattern}\0${q.query}`),
  });
}

/** A diff accepted (with the plan it gives) or refused (with the reason the model is told). */
export type DiffCheck = { ok: true; diff: FlightPlanDiff; plan: FlightPlan } | { ok: false; reason: string };

export interface DiffContext {
  plan: FlightPlan;
  index: RepoIndex;
  /** The user's token limit: the model may lower the budget, never raise it past this. */
  tokenLimit: number;
}

/** `verbosity.0.level: Too big: …`, the reference's error style. */
function zodIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * Validates a `config_diff` sent by the model: its shape (a strict partial FlightPlan), that it changes
 * something, that its budget stays within the user's limit, that every path pattern matches a file of the
 * repository, and that custom queries compile for the languages of the files they target.
 */
export async function checkFlightPlanDiff(input: unknown, ctx: DiffContext): Promise<DiffCheck> {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, reason: 'config_diff must be an object (a partial FlightPlan: budget, focus, verbosity, custom_queries)' };
  }
  const parsed = FlightPlanDiff.safeParse(input);
  if (!parsed.success) return { ok: false, reason: `config_diff is not a valid partial FlightPlan: ${zodIssues(parsed.error.issues)}` };
  const diff = parsed.data;
  if (Object.keys(diff).length === 0) return { ok: false, reason: 'config_diff is empty: change budget, focus, verbosity or custom_queries, or call finalize_context' };
  if (diff.budget !== undefined && diff.budget > ctx.tokenLimit) {
    return { ok: false, reason: `budget: ${diff.budget} is above the user's token limit of ${ctx.tokenLimit}` };
  }
  const paths = ctx.index.files.map((f) => f.path);
  const matching = (pattern: string) => {
    const m = picomatch(pattern, { dot: true });
    return ctx.index.files.filter((f) => m(f.path));
  };
  const patterns: [string, string][] = [
    ...(diff.verbosity ?? []).map((r, i): [string, string] => [`verbosity.${i}.pattern`, r.pattern]),
    ...(diff.focus?.paths ?? []).map((p, i): [string, string] => [`focus.paths.${i}.pattern`, p.pattern]),
  ];
  for (const [where, pattern] of patterns) {
    if (matching(pattern).length === 0) return { ok: false, reason: `${where}: "${pattern}" matches no file of the repository (${paths.length} files; patterns are globs on repo-relative paths, e.g. "src/**")` };
  }
  for (const [i, q] of (diff.custom_queries ?? []).entries()) {
    const files = matching(q.pattern);
    if (files.length === 0) return { ok: false, reason: `custom_queries.${i}.pattern: "${q.pattern}" matches no file of the repository` };
    const languages = [...new Set(files.map((f) => f.language))].filter(isCodeLanguage).sort();
    if (languages.length === 0) return { ok: false, reason: `custom_queries.${i}.pattern: "${q.pattern}" matches no source file tree-sitter can parse` };
    for (const lang of languages) {
      const compiled = await compileCustomQuery(lang, q.query);
      if (!(compiled instanceof Query)) return { ok: false, reason: `custom_queries.${i}.query: does not compile for ${lang}: ${compiled.message}` };
    }
  }
  const plan = applyFlightPlanDiff(ctx.plan, diff);
  if (canonicalJson(plan) === canonicalJson(ctx.plan)) return { ok: false, reason: 'config_diff changes nothing: the plan is already so; change something else or call finalize_context' };
  return { ok: true, diff, plan };
}
