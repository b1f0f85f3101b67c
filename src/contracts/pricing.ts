import { z } from 'zod';

/** USD per million tokens for one model (seed 000's ModelPricingRates). */
export const ModelPricing = z.object({
  model_name: z.string().min(1).describe('Model id, or an id prefix (e.g. `claude-haiku-4-5` prices `claude-haiku-4-5-20251001`)'),
  input_per_million: z.number().min(0).describe('USD per 1M input tokens'),
  output_per_million: z.number().min(0).describe('USD per 1M output tokens'),
});
export type ModelPricing = z.infer<typeof ModelPricing>;

/** A pricing table: overrides (or extends) the presets, since prices change. */
export const PricingTable = z.object({
  models: z.array(ModelPricing).describe('Matched by the longest `model_name` that equals or prefixes the model id'),
});
export type PricingTable = z.infer<typeof PricingTable>;

/**
 * Presets, USD per 1M tokens. The gemini-2.0 / 1.5 rows are seed 000's table verbatim; the others are the
 * providers' list prices when this was written. Override with a PricingTable when they change.
 */
export const PRICING_PRESETS: readonly ModelPricing[] = [
  // seed 000
  { model_name: 'gemini-2.0-flash', input_per_million: 0.075, output_per_million: 0.3 },
  { model_name: 'gemini-2.0-flash-thinking', input_per_million: 0.075, output_per_million: 0.3 },
  { model_name: 'gemini-1.5-pro', input_per_million: 1.25, output_per_million: 5.0 },
  { model_name: 'gemini-1.5-flash', input_per_million: 0.075, output_per_million: 0.3 },
  // Gemini economy models
  { model_name: 'gemini-2.0-flash-lite', input_per_million: 0.075, output_per_million: 0.3 },
  { model_name: 'gemini-2.5-flash-lite', input_per_million: 0.1, output_per_million: 0.4 },
  { model_name: 'gemini-2.5-flash', input_per_million: 0.3, output_per_million: 2.5 },
  // Claude economy models
  { model_name: 'claude-haiku-4-5', input_per_million: 1.0, output_per_million: 5.0 },
  { model_name: 'claude-3-5-haiku', input_per_million: 0.8, output_per_million: 4.0 },
  { model_name: 'claude-3-haiku', input_per_million: 0.25, output_per_million: 1.25 },
  // The stronger model a stalled explorer escalates to (seed 002: "escalate to sonnet for deep navigation")
  { model_name: 'claude-sonnet-4-5', input_per_million: 3.0, output_per_million: 15.0 },
];
