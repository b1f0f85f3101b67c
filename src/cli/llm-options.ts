import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { cliConfig } from './config.js';
import { processIo, type CliIo } from './context.js';
import { sharedOption } from './shared-options.js';
import { NavkernelError, ValidationError } from '../contracts/errors.js';
import type { ArbiterPort } from '../contracts/ports.js';
import { compileValidator } from '../contracts/validate.js';
import type { PricingTable } from '../llm/index.js';

/** The tier-3 flags of `route`, `demo`, `serve` and `replay`, as commander gives them. */
export interface LlmFlags {
  llm?: string;
  budgetUsd?: string | number;
  llmTimeoutMs?: string | number;
  pricing?: string;
  persona?: string;
}

/** Adds `--llm`, `--budget-usd`, `--llm-timeout-ms`, `--pricing` and `--persona` to a command. */
export function addLlmOptions(cmd: Command, io: CliIo = processIo()): Command {
  const config = cliConfig(io.cwd);
  return cmd
    .addOption(sharedOption.llm('the model of tier 3, the arbiter (config "llm")', config.llm))
    .addOption(sharedOption.budgetUsd('USD a run may spend on tier 3 (default 2.00; config "budget_usd")', config.budget_usd?.toString()))
    .addOption(sharedOption.llmTimeoutMs('per-attempt model timeout in ms (default 5000; config "llm_timeout_ms")', config.llm_timeout_ms?.toString()))
    .option('--pricing <file>', 'pricing table (JSON or YAML, schemas/llm-pricing-table.schema.json) overriding the presets (config "pricing")', config.pricing)
    .option('--persona <name>', 'tier-3 style prior, loaded last: shannon | knuth | feynman | auto (from the charter, default) | none (config "persona")', config.persona);
}

function positiveNumber(flag: string, v: string | number): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new NavkernelError('INVALID_OPTION', `${flag} must be a number > 0, got ${JSON.stringify(String(v))}`);
  return n;
}

/** Reads and validates a pricing table file. */
export function loadPricingTable(file: string): PricingTable {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new NavkernelError('INVALID_PRICING', `cannot read pricing table ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = compileValidator<PricingTable>('llm-pricing-table')(doc);
  if (!r.success) throw new ValidationError('INVALID_PRICING', file, r.issues);
  return r.data;
}

/**
 * The tier-3 arbiter the flags ask for, or undefined without `--llm`. Bad flags are typed errors naming the flag.
 * The LLM module (prompt builder, schemas, tokenizer) is imported only when a flag needs it: `route` without `--llm`
 * never loads it.
 */
export async function arbiterFromFlags(flags: LlmFlags, env: NodeJS.ProcessEnv = process.env): Promise<ArbiterPort | undefined> {
  if (!flags.llm) {
    if (flags.budgetUsd !== undefined) positiveNumber('--budget-usd', flags.budgetUsd);
    if (flags.persona !== undefined) (await import('../llm/index.js')).parsePersonaChoice(flags.persona);
    return undefined;
  }
  const { createLanguageModel, createLlmArbiter, parsePersonaChoice } = await import('../llm/index.js');
  const persona = parsePersonaChoice(flags.persona);
  const model = createLanguageModel(flags.llm, { env });
  return createLlmArbiter(model, {
    ...(flags.budgetUsd !== undefined ? { budgetUsd: positiveNumber('--budget-usd', flags.budgetUsd) } : {}),
    ...(flags.llmTimeoutMs !== undefined ? { retry: { timeoutMs: positiveNumber('--llm-timeout-ms', flags.llmTimeoutMs) } } : {}),
    ...(flags.pricing ? { pricing: loadPricingTable(flags.pricing).models } : {}),
    persona,
  });
}
