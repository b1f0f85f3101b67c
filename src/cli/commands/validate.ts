import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { FlowValidationError, InputTooLargeError, ValidationError, checkInputLimits, compileValidator, type ValidationIssue } from '../../contracts/index.js';
import { loadFlows, parseFlowText } from '../../kernel/index.js';
import { finding, writeJson } from '../conventions.js';

/** Whether a parsed document looks like a flow definition rather than a route request. */
const looksLikeFlow = (v: unknown) => typeof v === 'object' && v !== null && 'steps' in v && !('step_completed' in v);

/**
 * `navkernel validate PATH…`: flow files and folders are loaded together (so cross-flow references resolve);
 * route requests (`.json` with `step_completed`, or `.jsonl`) are checked against the route-request schema.
 */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check flow files/folders and route-request files against the schemas and the flow graph')
    .argument('<paths...>', 'flow files (.yaml/.yml/.json), folders of them, or request files (.json/.jsonl)')
    .option('--json', 'print {"ok", "flows", "requests", "problems"} as JSON')
    .action(async (paths: string[], opts: { json?: boolean }) => {
      const flowTargets: string[] = [];
      const problems: string[] = [];
      let requests = 0;
      const schema = compileValidator('route-request');
      // The same contract as route(): limits and well-formed Unicode first, then the schema.
      const validateRequest = (v: unknown): { success: true } | { success: false; issues: ValidationIssue[] } => {
        try {
          checkInputLimits(v);
        } catch (e) {
          if (e instanceof InputTooLargeError) return { success: false, issues: [{ path: e.path, code: 'too_large', message: e.message.slice(e.source.length + e.path.length + 4) }] };
          if (e instanceof FlowValidationError || e instanceof ValidationError) return { success: false, issues: e.issues };
          throw e;
        }
        return schema(v);
      };
      const report = (where: string, issues: ValidationIssue[]) => problems.push(...issues.map((i) => `${where}: ${i.path}: ${i.message}`));
      for (const p of paths) {
        const st = await stat(p).catch(() => undefined);
        if (!st) {
          problems.push(`${p}: no such file or folder`);
          continue;
        }
        if (st.isDirectory() || /\.ya?ml$/i.test(p)) {
          flowTargets.push(p);
          continue;
        }
        const text = await readFile(p, 'utf8');
        if (/\.jsonl$/i.test(p)) {
          text.split('\n').forEach((line, i) => {
            if (!line.trim()) return;
            let v: unknown;
            try {
              v = JSON.parse(line);
            } catch (e) {
              problems.push(`${p}: line ${i + 1}: not valid JSON: ${(e as Error).message}`);
              return;
            }
            requests++;
            const r = validateRequest(v);
            if (!r.success) report(`${p}: line ${i + 1}`, r.issues);
          });
          continue;
        }
        const parsed = parseFlowText(text, p);
        if ('issue' in parsed) report(p, [parsed.issue]);
        else if (looksLikeFlow(parsed.value)) flowTargets.push(p);
        else {
          requests++;
          const r = validateRequest(parsed.value);
          if (!r.success) report(p, r.issues);
        }
      }
      let flows = 0;
      if (flowTargets.length) {
        try {
          flows = (await loadFlows(flowTargets)).flows.size;
        } catch (e) {
          if (!(e instanceof FlowValidationError)) throw e;
          problems.push(...e.issues.map((i) => `${i.path}: ${i.message}`));
        }
      }
      if (opts.json) {
        writeJson({ ok: problems.length === 0, flows, requests, problems });
        if (problems.length) finding();
        return;
      }
      if (problems.length) {
        for (const line of problems) process.stderr.write(`${line}\n`);
        process.stderr.write(`navkernel validate: ${problems.length} problem(s)\n`);
        finding();
        return;
      }
      process.stdout.write(`ok: ${flows} flow(s), ${requests} request(s) valid\n`);
    });
}
