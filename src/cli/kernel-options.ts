import { existsSync } from 'node:fs';
import { sampleChartersDir } from '../package-root.js';
import type { Command } from 'commander';
import { cliConfig } from './config.js';
import { createKernel, loadFlows, type Kernel, type KernelOptions } from '../kernel/index.js';
import { PostgresLedger } from '../ledger/postgres/postgres-ledger.js';
import type { Ledger } from '../contracts/ports.js';
import { addLedgerOption, openCliLedger, type LedgerCliOptions } from './ledger-option.js';
import { addLlmOptions, arbiterFromFlags, type LlmFlags } from './llm-options.js';

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
export function addKernelOptions(cmd: Command, defaults: { flows?: string } = {}): Command {
  return cmd.option('--flows <dir>', 'folder (or file) of flow definitions (env NAVKERNEL_FLOWS, config "flows")', process.env.NAVKERNEL_FLOWS || cliConfig().flows || defaults.flows || DEFAULT_FLOWS);
}

/**
 * Loads the command's flows (`opts` or the `--flows` value), warning on stderr about each folder entry skipped
 * (FIFO, device, dangling symlink, …). With no flows named and no `./charters` here, every command uses the sample
 * flows shipped with navkernel, the ones `demo` records its runs with, and says so on stderr.
 */
export async function loadCliFlows(opts: KernelCliOptions | string): Promise<Awaited<ReturnType<typeof loadFlows>>> {
  let target = typeof opts === 'string' ? opts : opts.flows;
  if (target === DEFAULT_FLOWS && !existsSync(DEFAULT_FLOWS)) {
    target = sampleChartersDir();
    process.stderr.write(`navkernel: no ./charters folder here: using the sample flows shipped with navkernel (${target}); pass --flows DIR, set NAVKERNEL_FLOWS or "flows" in navkernel.config.json for yours\n`);
  }
  const flows = await loadFlows(target);
  for (const s of flows.skipped ?? []) process.stderr.write(`navkernel: warning: skipped ${s.file}: ${s.reason}\n`);
  return flows;
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
export function addRoutingOptions(cmd: Command, defaults: { flows?: string } = {}): Command {
  addKernelOptions(cmd, defaults);
  addLedgerOption(cmd, { durability: true });
  cmd.option('--no-ledger', 'keep routes in memory only (nothing recorded)');
  addStrictOption(cmd);
  return addLlmOptions(cmd);
}

/** A kernel with the command's flows, its ledger (created if needed) and its tier-3 model. */
/** The store of a routing command: the `--ledger` (created when missing), or none with `--no-ledger`. */
export function openRoutingStore(opts: RoutingCliOptions): Ledger | undefined {
  return opts.ledger === false ? undefined : openCliLedger({ ledger: opts.ledger, ...(opts.durability ? { durability: opts.durability } : {}) }, { create: true });
}

export async function openRoutingKernel(opts: RoutingCliOptions, extra: Partial<KernelOptions> = {}): Promise<Kernel> {
  const flows = await loadCliFlows(opts);
  const arbiter = await arbiterFromFlags(opts);
  const store = extra.store ?? openRoutingStore(opts);
  // A PostgreSQL ledger reports an unreachable server, a foreign or newer schema, or a role that cannot write now,
  // not at the first route.
  if (store instanceof PostgresLedger) await store.ready();
  return createKernel({ flows, ...(store ? { store } : {}), ...(arbiter ? { arbiter } : {}), ...(opts.strict ? { strict: true } : {}), ...extra });
}
