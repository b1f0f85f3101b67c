import { sha256 } from '../contracts/index.js';
import type { LlmGenerateRequest } from './language-model.js';

/** sha256 of the canonical prompt (messages, answer spec, output cap, temperature): how a replay finds a recorded answer. */
export function promptHash(req: Omit<LlmGenerateRequest, 'signal'>): string {
  return sha256({ messages: req.messages, answer: req.answer, maxOutputTokens: req.maxOutputTokens, temperature: req.temperature ?? null });
}
