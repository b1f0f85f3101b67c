/**
 * Plain search as a second opinion on the order of a pick (issue 40, acc@5). When none of a full pick's files holds
 * resolved evidence (no frame, message, qualified name or path of the issue landed), the ranking orders them by the
 * task's chosen words in names and places and the reference graph alone — the first five places are then guesses
 * of the same kind as plain search's, and the two are wrong on different files. The pick then takes its files in the
 * order of a reciprocal-rank fusion of the two (each file scores 1 / (FUSED_K + place) in each list, plain search
 * counting the ranked sources only), so a file both rank well comes first and a file either ranks first stays near
 * the top. A pick with any evidence keeps the ranking's order.
 */
import { ablated } from './ablation.js';
import type { RankedFile } from './ranking.js';

/** The fusion's constant: a place's weight is 1 / (FUSED_K + place), so the first few places of either list count most. */
export const FUSED_K = 10;
/** The ranking's files the fusion considers (plain search's ranked sources are added wherever they rank). */
const FUSED_DEPTH = 40;

/**
 * The first `max` files of the fused order, or undefined when the rule does not apply: the ranking has fewer than
 * `max` files, or one of its first `max` holds evidence, or plain search found none of its sources.
 */
export function fusedPick(ranked: readonly RankedFile[], whole: readonly string[], max: number): RankedFile[] | undefined {
  if (ablated('fused-order') || ranked.length < max || max < 2) return undefined;
  if (ranked.slice(0, max).some((f) => f.evidence > 0)) return undefined;
  const place = new Map(ranked.map((f, i) => [f.path, i]));
  const plain = new Map<string, number>();
  for (const p of whole) {
    const i = place.get(p);
    if (i !== undefined && ranked[i]!.class === 'source' && !plain.has(p)) plain.set(p, plain.size);
  }
  if (!plain.size) return undefined;
  const cands = new Set(ranked.slice(0, FUSED_DEPTH));
  for (const p of plain.keys()) cands.add(ranked[place.get(p)!]!);
  const fused = (f: RankedFile) => 1 / (FUSED_K + place.get(f.path)!) + (plain.has(f.path) ? 1 / (FUSED_K + plain.get(f.path)!) : 0);
  return [...cands].sort((a, b) => fused(b) - fused(a) || place.get(a.path)! - place.get(b.path)!).slice(0, max);
}
