import { existsSync } from 'node:fs';
import path from 'node:path';
import { sampleChartersDir } from '../package-root.js';
import type { Command } from 'commander';
import { cliConfig } from './config.js';
import { createKernel, loadFlows, type Kernel, type KernelOptions } from '../kernel/index.js';
import { PostgresLedger } from '../ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../ledger/sqlite-ledger.js';
import type { Ledger } from '../contracts/ports.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from './ledger-option.js';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from './llm-options.js';
import { processIo, type CliContext, type CliIo } from './context.js';
import { printErrorText } from './terminal-text.js';

/** The `--flows` option every kernel-backed command shares. */
export interface KernelCliOptions {
  flows: string;
}

/** The default of `--flows` when neither the environment nor the config file names one. */
const DEFAULT_FLOWS = 'charters';

/**
 * Adds `--flows DIR` to a command. Default, the same for every command: `$NAVKERNEL_FLOWS`, else the config file's
 * `flows`, else `./charters` when there is one, else the sample flows shipped with navkernel (said on stderr).
 */
export function addKernelOptions(cmd: Command, defaults: { flows?: string } = {}, io: CliIo = processIo()): Command {
  return cmd.option('--flows <dir>', 'folder (or file) of flow definitions (env NAVKERNEL_FLOWS, config "flows")', io.env.NAVKERNEL_FLOWS || cliConfig(io.cwd).flows || defaults.flows || DEFAULT_FLOWS);
}

/**
 * Loads the command's flows (`opts` or the `--flows` value), warning on stderr about each folder entry skipped
 * (FIFO, device, dangling symlink, …). With no flows named and no `./charters` here, every command uses the sample
 * flows shipped with navkernel, the ones `demo` records its runs with, and says so on stderr.
 */
export async function loadCliFlows(opts: KernelCliOptions | string, ctx?: CliContext): Promise<Awaited<ReturnType<typeof loadFlows>>> {
  const warn = (text: string) => (ctx ? ctx.printError(text) : printErrorText(text));
  const target = flowsTarget(opts);
  if (target !== (typeof opts === 'string' ? opts : opts.flows)) {
    warn(`navkernel: no ./charters folder here: using the sample flows shipped with navkernel (${target}); pass --flows DIR, set NAVKERNEL_FLOWS or "flows" in navkernel.config.json for yours\n`);
  }
  const flows = await loadFlows(target);
  for (const s of flows.skipped ?? []) warn(`navkernel: warning: skipped ${s.file}: ${s.reason}\n`);
  return flows;
}

/** The folder or file the command's flows load from: `--flows`, or the shipped samples when the default ./charters is missing. */
export function flowsTarget(opts: KernelCliOptions | string): string {
  const target = typeof opts === 'string' ? opts : opts.flows;
  return target === DEFAULT_FLOWS && !existsSync(DEFAULT_FLOWS) ? sampleChartersDir() : target;
}

/**
 * The one line `route` and `serve` print on stderr at start (unless -q): which ledger they write, where its run
 * folders go, and which flows they loaded, so runs sent from two folders never land in two ledgers unnoticed.
 */
export function whereLine(command: string, ledger: Ledger | undefined, flowsFrom: string, flowIds: Iterable<string>): string {
  const ids = [...flowIds];
  const runBase = ledger instanceof SqliteLedger && ledger.jsonl ? ledger.runBase : undefined;
  const at = ledger && !/^[a-z][a-z0-9+.-]*:\/\//i.test(ledger.location) && ledger.location !== ':memory:' ? path.resolve(ledger.location) : ledger?.location;
  const store = !ledger ? 'no ledger (--no-ledger: nothing recorded)' : `ledger ${at}${runBase ? ` (run folders in ${runBase})` : ''}`;
  return `navkernel ${command}: ${store}; flows from ${path.resolve(flowsFrom)}: ${ids.length} flow(s) (${ids.join(', ')})\n`;
}

/** Builds a kernel on the command's flows. */
export async function openKernel(opts: KernelCliOptions, extra: Partial<KernelOptions> = {}): Promise<Kernel> {
  return createKernel({ flows: await loadCliFlows(opts), ...extra });
}

/** The `--strict` flag of every command that routes (`route`, `demo`, `serve`, `mcp`): one name, one meaning. */
export function addStrictOption(cmd: Command): Command {
  return cmd.option('--strict', 'refuse a request with a misspelt forensic field (concern for concerns) or numbers that contradict each other (INVALID_FORENSICS) instead of routing it with a warning');
}

/** Options of the commands that route (`route`, `demo`): flows, the ledger (or none), tier 3. */
export interface RoutingCliOptions extends KernelCliOptions, LlmFlags, Omit<LedgerCliOptions, 'ledger'> {
  /** `--strict`: refuse misspelt forensic fields and contradicting numbers. */
  strict?: boolean;
  /** The ledger file, or false with `--no-ledger` (routes stay in memory). */
  ledger: string | false;
}

/** Adds `--flows`, `--ledger FILE` / `--no-ledger`, `--durability` and the tier-3 flags. */
export function addRoutingOptions(cmd: Command, defaults: { flows?: string } = {}, io: CliIo = processIo()): Command {
  addKernelOptions(cmd, defaults, io);
  addLedgerOption(cmd, { durability: true }, io);
  cmd.option('--no-ledger', 'keep routes in memory only (nothing recorded)');
  addStrictOption(cmd);
  return addLlmOptions(cmd, io);
}

/** The store of a routing command: the `--ledger` (created when missing), or none with `--no-ledger`. */
export function openRoutingStore(opts: RoutingCliOptions): Ledger | undefined {
  return opts.ledger === false ? undefined : openCliLedger({ ledger: opts.ledger, ...(opts.durability ? { durability: opts.durability } : {}) }, { create: true });
}

/** A kernel with the command's flows, its ledger (created if needed) and its tier-3 model. */
export async function openRoutingKernel(opts: RoutingCliOptions, extra: Partial<KernelOptions> = {}, announce?: string, ctx?: CliContext): Promise<Kernel> {
  const flows = await loadCliFlows(opts, ctx);
  const arbiter = await arbiterFromFlags(opts, ctx?.io.env);
  const opened = extra.store ? undefined : openRoutingStore(opts);
  const store = extra.store ?? opened;
  // A PostgreSQL ledger reports an unreachable server, a foreign or newer schema, or a role that cannot write now,
  // not at the first route.
  if (store instanceof PostgresLedger) await store.ready();
  if (announce && !extra.store) {
    const line = whereLine(announce, opened, flowsTarget(opts), flows.flows.keys());
    if (ctx) ctx.printError(line);
    else printErrorText(line);
  }
  return createKernel({ flows, ...(store ? { store } : {}), ...(arbiter ? { arbiter } : {}), ...(opts.strict ? { strict: true } : {}), ...extra });
}
