import type { Command } from 'commander';
import { createKernel, loadFlows, type Kernel, type KernelOptions } from '../kernel/index.js';

/** Options every kernel-backed command shares. */
export interface KernelCliOptions {
  flows: string;
}

/** Adds `--flows` (and the other kernel options) to a command. */
export function addKernelOptions(cmd: Command, defaults: { flows?: string } = {}): Command {
  return cmd.option('--flows <dir>', 'folder (or file) of flow definitions', process.env.NAVKERNEL_FLOWS ?? defaults.flows ?? 'charters');
}

/** Builds a kernel from the command's options. */
export async function openKernel(opts: KernelCliOptions, extra: Partial<KernelOptions> = {}): Promise<Kernel> {
  const flows = await loadFlows(opts.flows);
  return createKernel({ flows, ...extra });
}
