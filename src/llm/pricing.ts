import { PRICING_PRESETS, type ModelPricing } from '../contracts/pricing.js';

// The price table is data (contracts, where the explorer's NavigatorState presets read it too); the arithmetic is here.
export { ModelPricing, PricingTable, PRICING_PRESETS } from '../contracts/pricing.js';

/** Default models: the economy tier (seed 003: "Haiku for routing"). */
export const DEFAULT_MODELS = { anthropic: 'claude-haiku-4-5', gemini: 'gemini-2.5-flash-lite' } as const;

/** Prices for `modelId`: exact name first, then the longest prefix; overrides win over presets. Undefined if unknown. */
export function findPricing(modelId: string, overrides: readonly ModelPricing[] = []): ModelPricing | undefined {
  for (const table of [overrides, PRICING_PRESETS]) {
    const exact = table.find((p) => p.model_name === modelId);
    if (exact) return exact;
    const prefixed = table
      .filter((p) => modelId.startsWith(p.model_name))
      .sort((a, b) => b.model_name.length - a.model_name.length)[0];
    if (prefixed) return prefixed;
  }
  return undefined;
}

/** USD of a call from its token counts, rounded to 1e-9 so sums stay stable across platforms. */
export function costUsd(pricing: ModelPricing, inputTokens: number, outputTokens: number): number {
  const usd = (inputTokens * pricing.input_per_million + outputTokens * pricing.output_per_million) / 1_000_000;
  return Math.round(usd * 1e9) / 1e9;
}

/**
 * USD of a call to `model` with these token counts, from the presets (or `overrides`).
 * Throws a plain Error for a model without a price: a bench must not silently count it as free.
 */
export function estimateCallUsd(model: string, inputTokens: number, outputTokens: number, overrides: readonly ModelPricing[] = []): number {
  const p = findPricing(model, overrides);
  if (!p) throw new Error(`no price known for model ${model}; pass a pricing override`);
  return costUsd(p, inputTokens, outputTokens);
}
