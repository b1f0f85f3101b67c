import { CompressionReport, ContextLoadReceipt, NavigationMap, type TierPathEntry } from '../../contracts/navigator-artifacts.js';
import type { NorthstarMetric } from './northstar.js';
import type { Artifacts, CompressionResult, LoadResult, MagicWord } from './types.js';

/** The rungs navkernel knows (seed 002 §7 and its frontmatter): 641 the default, 274177 stability, 65537 adversarial. */
export const RUNG_TARGETS = [641, 274177, 65537] as const;
export type RungTarget = (typeof RUNG_TARGETS)[number];
/** Seed 002's `rung_default`. */
export const RUNG_TARGET: RungTarget = 641;

/** The tier path with each node's files_loaded narrowed to what was actually loaded. */
function narrowed(path: TierPathEntry[], loaded: Set<string>): TierPathEntry[] {
  return path.map((e) => ({ ...e, files_loaded: e.files_loaded.filter((f) => loaded.has(f)).sort() }));
}

/** Trunk first: the first node is the trunk, and within each pass no trunk node follows a branch node. */
export function trunkFirst(path: TierPathEntry[]): boolean {
  if (path.length === 0 || path[0]!.tier !== 'T0' || path[0]!.anchor !== '') return false;
  let branched = false;
  for (const e of path) {
    if (e.tier === 'T0' && e.anchor === '') branched = false;
    else if (e.tier === 'T0' && branched) return false;
    else if (e.tier !== 'T0') branched = true;
  }
  return true;
}

export interface ArtifactInput {
  query: string;
  words: MagicWord[];
  tier_path: TierPathEntry[];
  load?: LoadResult;
  compression?: CompressionResult;
  stop_reason: string;
  /** BUDGET.max_lines, for a receipt when nothing was loaded. */
  max_lines: number;
  /** The rung asked for (default RUNG_TARGET, 641). */
  rung_target?: RungTarget;
  /** Given when the capsule has a NORTHSTAR: the metric served (null when none). */
  northstar_metric?: NorthstarMetric | null;
}

/** The context as written to context.md. */
export function contextMarkdown(load: LoadResult | undefined): string {
  return load?.context ?? '';
}

/** BUILD_ARTIFACTS: the seed's three artifacts and context.md, validated; `complete` says whether rung 641 can hold. */
export function buildArtifacts(input: ArtifactInput): Artifacts {
  const loadedPaths = new Set(input.load?.receipt.files_loaded.map((f) => f.path) ?? []);
  const navigation_map: NavigationMap = {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    rung_target: input.rung_target ?? RUNG_TARGET,
    query: input.query,
    magic_words_extracted: input.words.map((w) => w.word),
    tier_path_traversed: narrowed(input.tier_path, loadedPaths),
    trunk_first_compliance: trunkFirst(input.tier_path),
    total_files_loaded: loadedPaths.size,
    stop_reason: input.stop_reason,
    null_checks_performed: true,
    ...(input.northstar_metric !== undefined ? { northstar_metric: input.northstar_metric } : {}),
  };
  const context_load_receipt: ContextLoadReceipt = input.load?.receipt ?? {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    files_loaded: [],
    total_lines_loaded: 0,
    total_lines_read: 0,
    budget_limit_lines: input.max_lines,
    budget_used_fraction: 0,
    null_checks_performed: true,
  };
  const compression_report: CompressionReport = input.compression?.report ?? {
    schema_version: '1.0.0',
    agent_type: 'navigator',
    query_token_count: 0,
    context_loaded_tokens: 0,
    context_minimum_tokens: 0,
    compression_ratio: 0,
    compression_ratio_target: 10,
    compression_gate_passed: false,
    notes: 'compression not measured',
  };
  const problems: string[] = [];
  for (const [name, schema, doc] of [
    ['navigation_map.json', NavigationMap, navigation_map],
    ['context_load_receipt.json', ContextLoadReceipt, context_load_receipt],
    ['compression_report.json', CompressionReport, compression_report],
  ] as const) {
    const r = schema.safeParse(doc);
    if (!r.success) problems.push(...r.error.issues.map((i) => `${name}: ${i.path.join('.')}: ${i.message}`));
  }
  for (const f of context_load_receipt.files_loaded) if (!f.magic_word_match) problems.push(`context_load_receipt.json: ${f.path} has no magic_word_match`);
  if (!navigation_map.trunk_first_compliance) problems.push('navigation_map.json: trunk_first_compliance is false');
  return { navigation_map, context_load_receipt, compression_report, context_md: contextMarkdown(input.load), complete: problems.length === 0, problems };
}
