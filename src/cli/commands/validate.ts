import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { FlowValidationError, InputTooLargeError, ValidationError, checkInputLimits, compileValidator, formatIssue, issuePathText, type ValidationIssue } from '../../contracts/index.js';
import { existsSync } from 'node:fs';
import { createKernel, flowWarnings, loadFlows, parseFlowText, proveBounds, type BoundsProof, type FlowSet } from '../../kernel/index.js';
import { addKernelOptions } from '../kernel-options.js';
import { UsageError, readInputFile } from '../conventions.js';

/** Whether a parsed document looks like a flow definition rather than a route request. */
const looksLikeFlow = (v: unknown) => typeof v === 'object' && v !== null && 'steps' in v && !('step_completed' in v);

/**
 * `navkernel flows validate PATH…`: flow files and folders are loaded together (so cross-flow references resolve);
 * route requests (`.json` with `step_completed`, or `.jsonl`) are checked exactly as `route` checks them (the
 * kernel's own request guard, then the flow and step against the flows: those among the paths, else --flows).
 */
export function registerValidateCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('validate')
    .description('Check flow files/folders and route-request files against the schemas and the flow graph')
    .argument('<paths...>', 'flow files (.yaml/.yml/.json), folders of them, or request files (.json/.jsonl)')
    .option('--json', 'print {"ok", "flows", "requests", "problems", "issues", "warnings", "bounds"} as JSON')
    .option('--bounds', 'also print the termination proof: every cycle of each flow and the bound that holds it (docs/bounds.md)');
  addKernelOptions(cmd, {}, ctx.io);
  cmd.option('--no-flows', 'check requests against the schema only, not against any flows')
    .action(async (paths: string[], opts: { json?: boolean; bounds?: boolean; flows: string | false }) => {
      const flowTargets: string[] = [];
      const problems: string[] = [];
      // The same problems, structured: each issue with its file (and line of a .jsonl), path, code, data and words.
      const issues: ValidationIssue[] = [];
      let requests = 0;
      const schema = compileValidator('route-request');
      // The same contract as route(): limits and well-formed Unicode first, then the schema.
      const validateRequest = (v: unknown): { success: true } | { success: false; issues: ValidationIssue[] } => {
        try {
          checkInputLimits(v, undefined, 'route()', { repairFreeText: true }); // as route(): free text is repaired, not refused
        } catch (e) {
          if (e instanceof InputTooLargeError) return { success: false, issues: [tooLargeIssue(e)] };
          if (e instanceof FlowValidationError || e instanceof ValidationError) return { success: false, issues: e.issues };
          throw e;
        }
        return schema(v);
      };
      const pending: { where: Where; value: unknown }[] = [];
      const report = (where: Where, found: ValidationIssue[]) => {
        const located = found.map((i): ValidationIssue => ({ ...i, ...where }));
        problems.push(...located.map(formatIssue));
        issues.push(...located);
      };
      for (const p of paths) {
        // A path that is not there is an input error (exit 2), not a finding: there is nothing to validate.
        const st = await stat(p).catch(() => undefined);
        if (!st) throw new UsageError(`${p}: no such file or folder`, 'PATH_NOT_FOUND');
        if (st.isDirectory() || /\.ya?ml$/i.test(p)) {
          flowTargets.push(p);
          continue;
        }
        const text = readInputFile(p);
        if (/\.jsonl$/i.test(p)) {
          text.split('\n').forEach((line, i) => {
            if (!line.trim()) return;
            let v: unknown;
            try {
              v = JSON.parse(line);
            } catch (e) {
              report({ file: p, line: i + 1 }, [{ path: [], code: 'syntax', message: `not valid JSON: ${(e as Error).message}` }]);
              return;
            }
            pending.push({ where: { file: p, line: i + 1 }, value: v });
          });
          continue;
        }
        const parsed = parseFlowText(text, p);
        if ('issue' in parsed) report({ file: p }, [parsed.issue]);
        else if (looksLikeFlow(parsed.value)) flowTargets.push(p);
        else pending.push({ where: { file: p }, value: parsed.value });
      }
      let flows = 0;
      let flowSet: FlowSet | undefined;
      if (flowTargets.length) {
        try {
          flowSet = await loadFlows(flowTargets);
          flows = flowSet.flows.size;
        } catch (e) {
          if (!(e instanceof FlowValidationError)) throw e;
          // loadFlows names each issue's file (or the target, for a missing or empty one).
          report({}, e.issues.map((i) => ({ ...i, file: i.file ?? e.source })));
        }
      } else if (pending.length && opts.flows !== false && existsSync(opts.flows)) {
        // Requests alone: checked against the flows route would use (--flows, NAVKERNEL_FLOWS, the config, ./charters).
        flowSet = await loadFlows(opts.flows);
      }
      // One code path with route: the kernel's guard (limits, schema) and its flow/step check, nothing routed.
      const kernel = flowSet ? createKernel({ flows: flowSet }) : undefined;
      for (const { where, value } of pending) {
        requests++;
        if (!kernel) {
          const r = validateRequest(value);
          if (!r.success) report(where, r.issues);
          continue;
        }
        try {
          await kernel.candidates(value);
        } catch (e) {
          if (e instanceof InputTooLargeError) report(where, [tooLargeIssue(e)]);
          else if (e instanceof ValidationError) report(where, e.issues);
          else throw e;
        }
      }
      await kernel?.close();
      // Warnings do not fail validation: statuses a step says its agent reports that no rule of it handles, and
      // cycles only the kernel's default bounds (docs/bounds.md).
      const checked = flowTargets.length && flowSet ? flowSet : undefined;
      const warningList = checked ? (checked.warnings ?? flowWarnings(checked)) : [];
      const warnings = warningList.map((w) => `${w.flow}: ${issuePathText(w.path)}: ${w.message}`);
      const proof = checked ? proveBounds(checked) : undefined;
      if (opts.json) {
        ctx.json({ ok: problems.length === 0, flows, requests, problems, issues, warnings, ...(proof ? { bounds: proof } : {}) });
        if (problems.length) ctx.finding();
        return;
      }
      for (const line of warnings) ctx.printError(`warning: ${line}\n`);
      if (problems.length) {
        for (const line of problems) ctx.printError(`${line}\n`);
        ctx.printError(`navkernel flows validate: ${problems.length} problem(s)\n`);
        ctx.finding();
        return;
      }
      // Requests alone are checked against the configured flows, which were not among the paths validated.
      const configured = !flowTargets.length && flowSet !== undefined;
      const against = requests > 0 && !kernel ? ' (against the schema only: no flows to check flow and step against)' : configured && flowSet ? ` (against the ${count(flowSet.flows.size, 'flow')} of ${opts.flows})` : '';
      const what = flowTargets.length ? `${count(flows, 'flow')}, ${requests ? count(requests, 'request') : 'no requests'}` : count(requests, 'request');
      ctx.print(`ok: ${what}${against}\n`);
      if (opts.bounds && proof) ctx.print(proofText(proof));
    });
}

/** Where a checked document came from: its file, and the line of a .jsonl. */
type Where = { file?: string; line?: number };

/** A request over the size or depth limit as the issue `flows validate` lists. */
const tooLargeIssue = (e: InputTooLargeError): ValidationIssue => ({ path: e.path, code: 'too_large', message: e.reason, limit: e.max });

/** `1 flow`, `7 flows`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The termination proof as text: per flow, each cycle and its bound, the route bound and the nesting depth. */
function proofText(proof: BoundsProof): string {
  const lines: string[] = [];
  const flows = [...new Set(proof.routes.map((r) => r.flow))];
  for (const flow of flows) {
    const r = proof.routes.find((x) => x.flow === flow)!;
    const d = proof.depth.find((x) => x.flow === flow)!;
    lines.push(`${flow}: a run takes at most ${r.routes} routes here and in the flows it injects (${r.by === 'max_routes' ? `its route budget${r.stated ? '' : ', the default'}` : 'the visit caps of the steps it can reach'}); ${d.depth ? `side trips nest at most ${d.depth} deep` : 'no side trips'} (max_depth ${d.max_depth})`);
    for (const c of proof.bounded.filter((x) => x.flow === flow)) lines.push(`  bounded: ${c.text} by ${boundText(c.bound)}`);
    for (const c of proof.unstated.filter((x) => x.flow === flow)) lines.push(`  default only: ${c.text} by the kernel's default of ${c.bound.value} visits per step`);
  }
  return lines.map((l) => `${l}\n`).join('');
}

function boundText(b: BoundsProof['bounded'][number]['bound']): string {
  if (b.kind === 'microloop') return `the ${b.step} microloop's max_iterations (${b.value})`;
  if (b.kind === 'routes') return `the flow's route budget (max_routes ${b.value})`;
  return b.step ? `${b.step}'s visit cap (max_visits ${b.value})` : `a visit cap (max_visits ${b.value})`;
}
