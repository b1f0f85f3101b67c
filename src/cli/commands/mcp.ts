import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { PostgresLedger } from '../../ledger/index.js';
import { createNavigator, type NavigatorOptions } from '../../navigator/index.js';
import { addKernelOptions, addStrictOption, openRoutingKernel, type KernelCliOptions } from '../kernel-options.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from '../ledger-option.js';
import { addLlmOptions, type LlmFlags } from '../llm-options.js';
import { addNavigatorOptions, type NavigatorCliOptions } from '../navigator-options.js';

interface McpCliOptions extends KernelCliOptions, LedgerCliOptions, LlmFlags, NavigatorCliOptions {
  repo?: string[];
  allowResolve?: boolean;
  runBase: string;
  strict?: boolean;
}

/** `navkernel mcp`: the MCP server on stdio, for coding agents (docs/integrations.md). */
export function registerMcpCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('mcp')
    .description('Serve navkernel to a coding agent over the Model Context Protocol on stdio: navigate, route, list_runs, audit, why, verify, replay (and resolve) as tools; flows and run decisions as resources')
    .option('--repo <dir>', 'a repository the navigate tool may read (repeatable; default the working directory)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--allow-resolve', 'offer the resolve tool (an agent may then record decisions on open escalations)')
    .option('--run-base <dir>', 'RUN_BASE: where the navigator cache lives (<run-base>/.cache)', 'runs')
    .addHelpText('after', '\nExample (Claude Code):\n  claude mcp add navkernel -- npx navkernel mcp --repo .\n\nNeeds the optional package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk).');
  addNavigatorOptions(addLlmOptions(addStrictOption(addLedgerOption(addKernelOptions(cmd, {}, ctx.io), { durability: true }, ctx.io)), ctx.io)).action(async (opts: McpCliOptions) => {
    const { requireMcpSdk, serveMcpStdio } = await import('../../integrations/mcp/index.js');
    // Without the SDK, fail before opening (or creating) anything.
    requireMcpSdk();
    const ledger = openCliLedger(opts, { create: true });
    let kernel: Awaited<ReturnType<typeof openRoutingKernel>>;
    try {
      if (ledger instanceof PostgresLedger) await ledger.ready();
      kernel = await openRoutingKernel({ ...opts, ledger: false }, { store: ledger, ...(opts.strict ? { strict: true } : {}) }, undefined, ctx);
    } catch (err) {
      await ledger.close();
      throw err;
    }
    const cacheDir = opts.cache === false ? false : path.resolve(opts.cacheDir ?? path.join(opts.runBase, '.cache'));
    const navOptions: NavigatorOptions = { cacheDir, ...(opts.registry ? { registryFile: opts.registry } : {}) };
    const navigator = createNavigator(navOptions);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      await serveMcpStdio(
        {
          kernel,
          ledger,
          roots: (opts.repo?.length ? opts.repo : [process.cwd()]).map((r) => path.resolve(r)),
          // A call whose client follows progress gets a navigator of its own with the hooks (the index caches are the process's, shared).
          navigate: (capsule, progress) => (progress ? createNavigator({ ...navOptions, ...progress }).navigate(capsule) : navigator.navigate(capsule)),
          navigateDefaults: {
            ...(opts.maxFiles ? { max_files: opts.maxFiles } : {}),
            ...(opts.maxLines ? { max_lines: opts.maxLines } : {}),
            ...(opts.maxToolCalls ? { max_tool_calls: opts.maxToolCalls } : {}),
            ...(opts.budgetTokens ? { max_tokens: opts.budgetTokens } : {}),
          },
          allowResolve: opts.allowResolve ?? false,
        },
        { signal: stop.signal },
      );
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      // Closes the ledger too (the kernel's store).
      await kernel.close();
    }
  });
}
