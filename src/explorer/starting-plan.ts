import type { FlightPlan, VerbosityRule } from '../contracts/flight-plan.js';
import type { RankedDefinitionReceipt } from '../contracts/navigator-artifacts.js';
import { navigate, type NavigatorExit, type NavigatorIndex } from '../navigator/index.js';

/** The deterministic start of an exploration: the navigator's answer turned into a FlightPlan. */
export interface StartingPoint {
  plan: FlightPlan;
  exit: NavigatorExit;
  stop_reason: string;
  magic_words: string[];
  /** Files the navigator loaded, with the level it rendered them at. */
  loaded: { path: string; level: number }[];
  /** One line for the reasoning summary of a `--no-llm` run. */
  summary: string;
  /** The navigator's index (repo index and full-text lookup): the explorer's tools reuse it. */
  index?: NavigatorIndex;
  /** The definitions the task's evidence points at (frames, messages, imports, names), best first, as the receipt reports them. */
  definitions: RankedDefinitionReceipt[];
}

/** Evidenced definitions that become symbol boosts of the starting plan, at most. */
const PLAN_DEFINITIONS = 8;

/** A definition's boost: above a magic word's 10, more for a better score (capped at 20). */
const definitionWeight = (score: number) => Math.min(20, 10 + Math.round(score * 2));

export interface StartingPlanOptions {
  /** Navigator index/registry cache (default `runs/.cache`); false disables. */
  cacheDir?: string | false;
  registryFile?: string;
  cwd?: string;
}

const escapeGlob = (p: string) => p.replace(/[*?[\]{}()!+@]/g, (c) => `\\${c}`);

/**
 * Runs the seed-002 navigator FSM for the task and turns its result into the explorer's first FlightPlan:
 * its magic words become symbol boosts, the files it loaded become path boosts and verbosity rules at the
 * levels it chose (sections kept), and every other file is shown at L1 (its path) so the model sees the
 * shape of the repository. Without magic words the plan is the seed's default (`budget` only).
 */
export async function startingFlightPlan(repo: string, task: string, tokens: number, options: StartingPlanOptions = {}): Promise<StartingPoint> {
  const outcome = await navigate(
    { task, repo_root: repo, budget: { max_tokens: tokens } },
    { ...(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {}), ...(options.registryFile ? { registryFile: options.registryFile } : {}), ...(options.cwd ? { cwd: options.cwd } : {}) },
  );
  const words = outcome.magic_words.map((w) => w.word);
  const loaded = outcome.loaded.filter((f) => f.level > 0).map((f) => ({ path: f.path, level: f.level }));
  const definitions = outcome.artifacts.context_load_receipt.definitions ?? [];
  const base = { exit: outcome.exit, stop_reason: outcome.stop_reason, magic_words: words, loaded, definitions, ...(outcome.index ? { index: outcome.index } : {}) };
  if (loaded.length === 0 && words.length === 0) {
    return { ...base, plan: { budget: tokens, focus: null, verbosity: [], custom_queries: [] }, summary: `navigator: ${outcome.stop_reason}; default plan (every file at L2, ranked, within ${tokens} tokens)` };
  }
  const navRules = new Map((outcome.flight_plan?.verbosity ?? []).map((r) => [r.pattern, r]));
  const rules: VerbosityRule[] = loaded.map((f) => {
    const pattern = escapeGlob(f.path);
    const r = navRules.get(pattern);
    return r?.sections ? { pattern, level: r.level ?? f.level, sections: r.sections } : { pattern, level: r?.level ?? f.level };
  });
  // The evidence first: its definitions' names boost above the magic words, and their files not loaded are boosted too.
  const symbols = new Map<string, number>();
  for (const d of definitions.slice(0, PLAN_DEFINITIONS)) {
    const name = d.symbol.split('.').pop()!;
    symbols.set(name, Math.max(symbols.get(name) ?? 0, definitionWeight(d.score)));
  }
  for (const w of words) if (!symbols.has(w)) symbols.set(w, 10);
  const loadedSet = new Set(loaded.map((f) => f.path));
  const evidenced = [...new Set(definitions.slice(0, PLAN_DEFINITIONS).map((d) => d.path))].filter((p) => !loadedSet.has(p));
  const plan: FlightPlan = {
    budget: tokens,
    focus: {
      paths: [...loaded.map((f) => ({ pattern: escapeGlob(f.path), weight: 10 })), ...evidenced.map((p) => ({ pattern: escapeGlob(p), weight: 5 }))],
      symbols: [...symbols].map(([name, weight]) => ({ name, weight })),
    },
    verbosity: [{ pattern: '**', level: 1 }, ...rules],
    custom_queries: [],
  };
  const top = definitions.slice(0, 3).map((d) => `${d.path}:${d.range[0]}-${d.range[1]} ${d.symbol} (${d.evidence[0] ?? 'evidence'})`);
  const summary = `navigator (${outcome.stop_reason}): magic words ${words.join(', ') || '(none)'}; ${top.length ? `evidence points at ${top.join('; ')}; ` : ''}${loaded.length} file(s) loaded: ${loaded.map((f) => `${f.path} (L${f.level})`).join(', ') || '(none)'}; other files at L1`;
  return { ...base, plan, summary };
}
