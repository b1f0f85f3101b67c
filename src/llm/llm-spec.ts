import { NavkernelError } from '../contracts/index.js';
import type { LanguageModel } from './language-model.js';
import { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.js';
import { createGeminiModel, type GeminiModelOptions } from './gemini-model.js';
import { loadScriptedModel } from './scripted-model.js';

/** Which model `--llm` names. */
export type LlmSpec = { provider: 'anthropic' | 'gemini'; model?: string } | { provider: 'scripted'; file: string };

/** The provider a bare model name belongs to (`claude-…` → anthropic, `gemini-…` → gemini), or undefined. */
export function providerOfModel(name: string): 'anthropic' | 'gemini' | undefined {
  const n = name.trim().toLowerCase();
  if (/^claude[-.]/.test(n)) return 'anthropic';
  if (/^(models\/)?gemini[-.]/.test(n)) return 'gemini';
  return undefined;
}

/**
 * Parses `anthropic[:MODEL]`, `gemini[:MODEL]`, `scripted:FILE`, or a bare model name whose provider it infers
 * (`claude-haiku-4-5` → anthropic, `gemini-2.5-flash` → gemini).
 */
export function parseLlmSpec(spec: string): LlmSpec {
  const s = spec.trim();
  const inferred = providerOfModel(s);
  if (inferred) return { provider: inferred, model: s };
  const colon = s.indexOf(':');
  const provider = (colon === -1 ? s : s.slice(0, colon)).toLowerCase();
  const rest = colon === -1 ? '' : s.slice(colon + 1).trim();
  if (provider === 'anthropic' || provider === 'gemini') return rest ? { provider, model: rest } : { provider };
  if (provider === 'scripted') {
    if (!rest) throw new NavkernelError('INVALID_LLM_SPEC', '--llm scripted needs a file: scripted:FILE');
    return { provider, file: rest };
  }
  throw new NavkernelError(
    'INVALID_LLM_SPEC',
    `model ${JSON.stringify(spec)}: expected anthropic[:MODEL], gemini[:MODEL], scripted:FILE, or a model name starting with claude- or gemini- (its provider is inferred)`,
  );
}

/** A model for a spec. Keys come from the environment (or the options); nothing is loaded until the first call. */
export function createLanguageModel(
  spec: string | LlmSpec,
  options: { anthropic?: AnthropicModelOptions; gemini?: GeminiModelOptions; env?: NodeJS.ProcessEnv } = {},
): LanguageModel {
  const s = typeof spec === 'string' ? parseLlmSpec(spec) : spec;
  const env = options.env ? { env: options.env } : {};
  switch (s.provider) {
    case 'anthropic':
      return createAnthropicModel({ ...env, ...options.anthropic, ...(s.model ? { model: s.model } : {}) });
    case 'gemini':
      return createGeminiModel({ ...env, ...options.gemini, ...(s.model ? { model: s.model } : {}) });
    case 'scripted':
      return loadScriptedModel(s.file);
  }
}
