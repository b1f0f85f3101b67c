import { createHash } from 'node:crypto';
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { NavkernelError } from '../../contracts/errors.js';
import { readInputFile } from '../conventions.js';
import { addNavigatorOptions } from '../navigator-options.js';
import type { CnfCapsuleInput } from '../../contracts/index.js';
import { checkRung641, checkRung65537, compareRuns, createNavigator, normalizeCapsule, RUNG_65537, writeArtifacts, type NavigationOutcome, type NavigatorOptions, type Rung65537Result } from '../../navigator/index.js';

interface NavigateOptions {
  repo?: string;
  task?: string;
  hint?: string;
  capsule?: string;
  maxFiles?: number;
  maxLines?: number;
  maxToolCalls?: number;
  budgetTokens?: number;
  scope?: string[];
  registry?: string;
  out?: string;
  run?: string;
  runBase: string;
  cacheDir?: string;
  cache: boolean;
  verifyStable?: boolean;
  rung?: number;
  paraphrase?: string[];
  check?: boolean;
  json?: boolean;
  quiet?: boolean;
  /** False with `--no-resident` (read by bin/navkernel.js before this module loads). */
  resident: boolean;
}

const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
};

/** Exit codes: 0 PASS, 1 BLOCKED (or a failed check), 2 invalid input, 3 NEED_INFO. */
export const NAVIGATE_EXIT_CODES = { EXIT_PASS: 0, EXIT_BLOCKED: 1, EXIT_NEED_INFO: 3 } as const;

/** The capsule from a file (JSON or YAML) and/or flags; flags win. */
async function capsuleFrom(o: NavigateOptions): Promise<CnfCapsuleInput> {
  let base: Record<string, unknown> = {};
  if (o.capsule) {
    const text = readInputFile(o.capsule, '--capsule');
    // .json is JSON, .yaml/.yml YAML (either with the seed's upper-case keys or lower-case ones); any other
    // file is seed 002's plain-text template (TASK: …, REPO_ROOT: …), read line by line, never as YAML.
    const kind = /\.json$/i.test(o.capsule) ? 'JSON' : /\.ya?ml$/i.test(o.capsule) ? 'YAML' : 'text';
    let doc: unknown = text;
    try {
      // yaml is imported only for a YAML capsule (start-up of the common flag-only call stays small).
      if (kind !== 'text') doc = kind === 'YAML' ? (await import('yaml')).parse(text) : JSON.parse(text);
    } catch (e) {
      throw new NavkernelError('INVALID_CAPSULE', `--capsule ${o.capsule}: not valid ${kind}: ${(e as Error).message.split('\n')[0]}`);
    }
    if (typeof doc !== 'string' && (typeof doc !== 'object' || doc === null)) throw new NavkernelError('INVALID_CAPSULE', `${o.capsule}: not an object`);
    base = normalizeCapsule(doc) as Record<string, unknown>;
  }
  const budget = { ...((base.budget as Record<string, unknown> | undefined) ?? {}) };
  if (o.maxFiles !== undefined) budget.max_files = o.maxFiles;
  if (o.maxLines !== undefined) budget.max_lines = o.maxLines;
  if (o.maxToolCalls !== undefined) budget.max_tool_calls = o.maxToolCalls;
  if (o.budgetTokens !== undefined) budget.max_tokens = o.budgetTokens;
  const capsule: Record<string, unknown> = { ...base, budget };
  if (o.task !== undefined) capsule.task = o.task;
  if (o.repo !== undefined) capsule.repo_root = o.repo;
  if (o.hint !== undefined) capsule.magic_words_hint = o.hint.split(',').map((w) => w.trim()).filter(Boolean);
  if (o.scope?.length) capsule.constraints = { ...((base.constraints as object | undefined) ?? {}), scope: o.scope };
  return capsule as CnfCapsuleInput;
}

/** Default artifact folder: `<run-base>/<run>/navigator/`, the run id derived from the task and repository. */
function outDir(o: NavigateOptions, capsule: CnfCapsuleInput): string {
  if (o.out) return path.resolve(o.out);
  const id = o.run ?? `nav-${createHash('sha256').update(`${capsule.task ?? ''}\0${path.resolve(capsule.repo_root ?? '.')}`).digest('hex').slice(0, 12)}`;
  return path.resolve(o.runBase, id, 'navigator');
}

function progress(ctx: CliContext, quiet: boolean | undefined): NavigatorOptions['onProgress'] {
  if (quiet || !ctx.io.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    if (total < 200) return;
    if (done !== total && done - last < 50) return;
    last = done;
    ctx.io.stderr.write(`\rindexing ${done}/${total} files${done === total ? '\n' : ''}`);
  };
}

function summary(o: NavigationOutcome, dir: string): string {
  const r = o.artifacts.compression_report;
  const lines = [`${o.exit}  ${o.stop_reason}`, `magic words: ${o.magic_words.map((w) => w.word).join(', ') || '(none)'}`];
  if (o.loaded.length) {
    lines.push(`files loaded (${o.loaded.length}):`);
    const receipt = new Map(o.artifacts.context_load_receipt.files_loaded.map((f) => [f.path, f]));
    for (const f of o.loaded) lines.push(`  L${f.level}  ${f.path}  ${f.tokens} tokens, ${f.lines_read} lines read, ${receipt.get(f.path)?.lines_shown ?? 0} shown, match "${receipt.get(f.path)?.magic_word_match ?? ''}"`);
  }
  lines.push(`tokens loaded: ${r.context_loaded_tokens} (minimum ${r.context_minimum_tokens}); compression ratio ${r.compression_ratio} (gate 2.0, target ${r.compression_ratio_target})`);
  for (const v of o.violations) lines.push(`forbidden state ${v.state} at ${v.at}: ${v.detail}`);
  for (const c of o.review?.critiques ?? []) lines.push(`review: ${c}`);
  lines.push(`artifacts: ${dir}`);
  return lines.join('\n') + '\n';
}

/**
 * `navkernel navigate`: runs the seed-002 navigator on a repository for a task and writes
 * navigation_map.json, context_load_receipt.json, compression_report.json and context.md.
 */
export function registerNavigateCommand(program: Command, ctx: CliContext): void {
  addNavigatorOptions(
    program
      .command('navigate')
      .description('Load the least context a task needs from a repository and write its artifacts (the context navigator: a deterministic state machine, no LLM)')
      .option('--repo <dir>', 'REPO_ROOT: the repository')
      .option('--task <text>', 'TASK: the query, verbatim')
      .option('--hint <words>', 'MAGIC_WORDS_HINT, comma-separated')
      .option('--capsule <file>', 'a CNF capsule: .json, .yaml/.yml (lower-case keys or the seed\'s TASK:, REPO_ROOT:, …), or any other file as seed 002\'s plain-text template; flags override its fields'),
  )
    .option('--scope <glob...>', 'CONSTRAINTS.scope: only these files may be loaded')
    .option('--out <dir>', 'artifact folder (default <run-base>/<run>/navigator)')
    .option('--run <id>', 'run id for the default artifact folder (default derived from task and repo)')
    .option('--run-base <dir>', 'RUN_BASE', 'runs')
    .option('--verify-stable', 'run twice and compare the artifacts\' sha256 (the determinism check the design calls rung 274177)')
    .option('--rung <n>', 'run a stability check (a "rung") after navigating: 274177 (= --verify-stable) or 65537 (274177 plus the same files for a paraphrased task and a shuffled file order, and every loaded line still in the repository; results in the receipt\'s rung_checks)', positiveInt)
    .option('--paraphrase <text...>', 'paraphrases of the task for --rung 65537 (default: a built-in one)')
    .option('--check', 'only re-check the artifacts already in the artifact folder (rung 641): against each other (totals add up) and against the files they name in --repo (each exists, each loaded line range still hashes the same); exit 1 with the reasons')
    .option('--json', 'print the outcome as JSON')
    .option('-q, --quiet', 'no progress output')
    .option('--no-resident', 'run in this process: neither hand the call to the resident navigator nor start one (also NAVKERNEL_RESIDENT=0; see docs/navigator-index.md)')
    .action(async (o: NavigateOptions) => {
      const capsule = await capsuleFrom(o);
      const dir = outDir(o, capsule);
      if (o.check) {
        const r = await checkRung641(dir, capsule.repo_root ? { repoRoot: path.resolve(capsule.repo_root) } : {});
        ctx.write(o.json ? `${JSON.stringify(r)}\n` : r.passed ? `rung 641 holds for ${dir}\n` : `rung 641 fails for ${dir}:\n${r.problems.map((p) => `  ${p}`).join('\n')}\n`);
        ctx.setExitCode(r.passed ? 0 : 1);
        return;
      }
      if (o.rung !== undefined && o.rung !== 274177 && o.rung !== RUNG_65537) throw new InvalidArgumentError(`--rung must be 274177 or ${RUNG_65537} (rung 641 is --check)`);
      const cacheDir = o.cache === false ? false : path.resolve(o.cacheDir ?? path.join(o.runBase, '.cache'));
      const rungTarget = o.rung === RUNG_65537 ? RUNG_65537 : o.rung === 274177 || o.verifyStable ? 274177 : 641;
      const navOptions: NavigatorOptions = { cacheDir, rungTarget, ...(o.registry ? { registryFile: o.registry } : {}), ...(progress(ctx, o.quiet) ? { onProgress: progress(ctx, o.quiet)! } : {}) };
      const nav = createNavigator(navOptions);
      const outcome = await nav.navigate(capsule);
      let rung: Rung65537Result | undefined;
      if (o.rung === RUNG_65537) {
        rung = await checkRung65537(outcome, capsule as Record<string, unknown>, path.resolve(String(capsule.repo_root ?? '.')), (c, seed) => (seed === undefined ? nav : createNavigator({ ...navOptions, fileOrderSeed: seed })).navigate(c), o.paraphrase);
        outcome.artifacts.context_load_receipt = { ...outcome.artifacts.context_load_receipt, rung_checks: rung.checks };
      }
      const hashes = writeArtifacts(dir, outcome);
      let stable: ReturnType<typeof compareRuns> | undefined;
      if (o.verifyStable || o.rung === 274177) stable = compareRuns(outcome, await nav.navigate(capsule));
      if (o.json) {
        ctx.write(
          `${JSON.stringify({ exit: outcome.exit, stop_reason: outcome.stop_reason, magic_words: outcome.magic_words.map((w) => w.word), loaded: outcome.loaded.map((f) => {
            const r = outcome.artifacts.context_load_receipt.files_loaded.find((x) => x.path === f.path);
            return { path: f.path, level: f.level, tokens: f.tokens, lines_read: f.lines_read, lines_shown: r?.lines_shown ?? 0, ranges: r?.ranges ?? [] };
          }), ...(outcome.artifacts.context_load_receipt.definitions ? { definitions: outcome.artifacts.context_load_receipt.definitions } : {}), ...(outcome.artifacts.context_load_receipt.confidence ? { confidence: outcome.artifacts.context_load_receipt.confidence } : {}), compression: outcome.artifacts.compression_report, violations: outcome.violations, artifacts: dir, sha256: hashes, ...(stable ? { verify_stable: stable } : {}), ...(rung ? { rung_65537: rung } : {}) })}\n`,
        );
      } else {
        ctx.write(summary(outcome, dir));
        if (rung) ctx.write(`rung ${RUNG_65537}: ${rung.passed ? 'holds' : 'FAILS'}\n${rung.checks.map((c) => `  ${c.passed ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`).join('\n')}\n`);
        if (stable) ctx.write(stable.passed ? 'verify-stable: two runs gave byte-identical artifacts (rung 274177)\n' : `verify-stable FAILED:\n${stable.problems.map((p) => `  ${p}`).join('\n')}\n`);
      }
      ctx.setExitCode((stable && !stable.passed) || (rung && !rung.passed) ? 1 : NAVIGATE_EXIT_CODES[outcome.exit]);
    });
}
