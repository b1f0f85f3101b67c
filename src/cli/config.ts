// The CLI's configuration file: `navkernel.config.json`, `navkernel.config.yaml` / `.yml`, or a `navkernel` key in
// package.json, found in the working folder or the nearest folder above it that has one (the search stops at the
// first folder holding a package.json). Every command reads it; a flag wins over an environment variable, which
// wins over the file, which wins over the built-in default. Paths in the file are relative to the file's folder.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from './conventions.js';

/** What the configuration file may set. */
export interface CliConfig {
  /** Folder (or file) of flow definitions (`--flows`). */
  flows?: string;
  /** The ledger file (`--ledger`). */
  ledger?: string;
  /** `normal` or `full` (`--durability`). */
  durability?: 'normal' | 'full';
  /** Tier-3 model spec (`--llm`), e.g. `anthropic:claude-haiku-4-5`. */
  llm?: string;
  /** USD a run may spend on tier 3 (`--budget-usd`). */
  budget_usd?: number;
  /** Per-attempt model timeout in ms (`--llm-timeout-ms`). */
  llm_timeout_ms?: number;
  /** A pricing table file (`--pricing`). */
  pricing?: string;
  /** Tier-3 persona style prior (`--persona`): shannon, knuth, feynman, auto or none. */
  persona?: string;
}

/** The configuration in force and where it came from (undefined: no file, built-in defaults). */
export interface LoadedConfig {
  config: CliConfig;
  file?: string;
}

const FILES = ['navkernel.config.json', 'navkernel.config.yaml', 'navkernel.config.yml'];
const PATH_KEYS = ['flows', 'ledger', 'pricing'] as const;
const KEYS: Record<keyof CliConfig, 'string' | 'number' | 'durability'> = {
  flows: 'string',
  ledger: 'string',
  durability: 'durability',
  llm: 'string',
  budget_usd: 'number',
  llm_timeout_ms: 'number',
  pricing: 'string',
  persona: 'string',
};

function check(raw: unknown, file: string): CliConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new UsageError(`${file}: the navkernel configuration must be an object`, 'INVALID_CONFIG');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const kind = KEYS[key as keyof CliConfig];
    if (!kind) throw new UsageError(`${file}: unknown key ${JSON.stringify(key)} (known: ${Object.keys(KEYS).join(', ')})`, 'INVALID_CONFIG');
    const ok = kind === 'number' ? typeof value === 'number' && value > 0 : kind === 'durability' ? value === 'normal' || value === 'full' : typeof value === 'string' && value !== '';
    if (!ok) throw new UsageError(`${file}: $.${key}: expected ${kind === 'number' ? 'a number > 0' : kind === 'durability' ? '"normal" or "full"' : 'a non-empty string'}`, 'INVALID_CONFIG');
    out[key] = PATH_KEYS.includes(key as (typeof PATH_KEYS)[number]) ? path.resolve(path.dirname(file), value as string) : value;
  }
  return out as CliConfig;
}

function parseFile(file: string): unknown {
  try {
    const text = readFileSync(file, 'utf8');
    return file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new UsageError(`${file}: cannot read the navkernel configuration: ${e instanceof Error ? e.message : String(e)}`, 'INVALID_CONFIG');
  }
}

/** Finds and reads the configuration for `cwd` (see the file comment). Throws a UsageError naming a bad file. */
export function findConfig(cwd: string = process.cwd()): LoadedConfig {
  let dir = path.resolve(cwd);
  for (;;) {
    for (const name of FILES) {
      const file = path.join(dir, name);
      if (existsSync(file)) return { config: check(parseFile(file), file), file };
    }
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      const doc = parseFile(pkg) as { navkernel?: unknown };
      return doc && typeof doc === 'object' && doc.navkernel !== undefined ? { config: check(doc.navkernel, `${pkg} (navkernel key)`), file: pkg } : { config: {} };
    }
    const up = path.dirname(dir);
    if (up === dir) return { config: {} };
    dir = up;
  }
}

/**
 * The configuration of a working folder (a CLI call's `io.cwd`; default this process's). Read on each call, not
 * kept: `main` called twice in one process (a test, the resident navigator) sees an edited file.
 */
export function cliConfig(cwd: string = process.cwd()): CliConfig {
  return findConfig(cwd).config;
}
