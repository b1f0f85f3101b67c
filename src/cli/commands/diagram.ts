import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { parseFlowText } from '../../kernel/index.js';
import { flowDiagram } from '../../service/diagram.js';
import { UsageError } from '../conventions.js';
import { addKernelOptions, loadCliFlows, type KernelCliOptions } from '../kernel-options.js';

/** `navkernel flows diagram FLOW`: the Mermaid text of a flow, as the web UI draws it. */
export function registerDiagramCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('diagram')
    .description('Print the Mermaid flowchart of a flow (steps, branches, loops, detours, injections), the one the web UI draws')
    .argument('<flow>', 'a flow id of --flows, or a flow file (its folder is loaded and checked with it)');
  addKernelOptions(cmd, {}, ctx.io).action(async (flow: string, opts: KernelCliOptions) => {
    let dir = opts.flows;
    let id = flow;
    if (existsSync(flow) && statSync(flow).isFile()) {
      const parsed = parseFlowText(readFileSync(flow, 'utf8'), flow);
      const value = 'value' in parsed ? (parsed.value as { flow?: unknown }) : undefined;
      if (!value || typeof value.flow !== 'string') throw new UsageError(`${flow} is not a flow file (no "flow:" id)`);
      dir = path.dirname(flow);
      id = value.flow;
    }
    const flows = await loadCliFlows(dir, ctx);
    const f = flows.get(id);
    if (!f) throw new UsageError(`no flow ${JSON.stringify(id)} in ${dir} (flows: ${[...flows.flows.keys()].join(', ')})`, 'UNKNOWN_FLOW');
    ctx.write(flowDiagram(f.def).text);
  });
}
