import { NavkernelError } from '../contracts/index.js';
import type { LanguageModel } from './language-model.js';
import { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.js';
import { createGeminiModel, type GeminiModelOptions } from './gemini-model.js';
import { loadScriptedModel } from './scripted-model.js';

/** Which model `--llm` names. */
export type LlmSpec = { provider: 'anthropic' | 'gemini'; model?: string } | { provider: 'scripted'; file: string };

/** Parses `anthropic[:MODEL]`, `gemini[:MODEL]` or `scripted:FILE`. */
export function parseLlmSpec(spec: string): LlmSpec {
  const s = spec.trim();
  const colon = s.indexOf(':');
  const provider = (colon === -1 ? s : s.slice(0, colon)).toLowerCase();
  const rest = colon === -1 ? '' : s.slice(colon + 1).trim();
  if (provider === 'anthropic' || provider === 'gemini') return rest ? { provider, model: rest } : { provider };
  if (provider === 'scripted') {
    if (!rest) throw new NavkernelError('INVALID_LLM_SPEC', '--llm scripted needs a file: scripted:FILE');
    return { provider, file: rest };
  }
  throw new NavkernelError('INVALID_LLM_SPEC', `--llm ${JSON.stringify(spec)}: expected anthropic[:MODEL], gemini[:MODEL] or scripted:FILE`);
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
