import { stems } from '../contracts/charter-terms.js';
import { NavkernelError } from '../contracts/errors.js';
import type { LlmMessage } from './language-model.js';

/**
 * Persona priors (seed 002 §1.5/§2): a short style block added LAST to the system prompt of every model call
 * (tier-3 routing and the explorer), after the safety and skill-pack rules. Style only: the candidates, the
 * answer schema, the budget and every gate are computed without it, and the kernel re-checks every answer.
 */
export const PERSONA_NAMES = ['shannon', 'knuth', 'feynman'] as const;
export type PersonaName = (typeof PERSONA_NAMES)[number];
/** What a caller may ask for: a persona, `auto` (chosen by the task's domain), or `none` (no style block). */
export type PersonaChoice = PersonaName | 'auto' | 'none';

export interface Persona {
  name: PersonaName;
  title: string;
  /** The style block, a few lines. */
  style: string;
  /** Words of a task that select this persona under `auto` (stemmed like the charter checks). */
  domain: readonly string[];
}

export const PERSONAS: Readonly<Record<PersonaName, Persona>> = {
  shannon: {
    name: 'shannon',
    title: 'Claude Shannon (information theory)',
    style:
      'Minimum description length: every token that does not reduce uncertainty is waste. Prefer the shortest answer that is complete; cite the one or two measurements that carry the most information.',
    domain: ['compression', 'compress', 'encoding', 'encode', 'decode', 'entropy', 'token', 'tokens', 'bandwidth', 'protocol', 'signal', 'codec', 'serialization', 'efficiency'],
  },
  knuth: {
    name: 'knuth',
    title: 'Donald Knuth (algorithms and data structures)',
    style:
      'Structured traversal: treat the material as a formal data structure, trunk first, and branch only when the trunk does not hold the answer. Be exact: name the structure or invariant behind each choice.',
    domain: ['algorithm', 'algorithms', 'data structure', 'tree', 'graph', 'sort', 'sorting', 'hash', 'heap', 'queue', 'stack', 'trie', 'complexity', 'index', 'btree', 'parser', 'search', 'linked', 'list', 'cache', 'traversal'],
  },
  feynman: {
    name: 'feynman',
    title: 'Richard Feynman (first principles)',
    style:
      'First principles: ask what the task really needs and go straight there, even when the documented path is longer. Explain each choice from fundamentals, in plain words.',
    domain: ['physics', 'first principles', 'principle', 'simulation', 'simulate', 'energy', 'force', 'motion', 'derive', 'numerical', 'equation', 'quantum', 'fundamental'],
  },
};

/** Reads a persona option (`--persona`, the tier-3 `persona` setting). Unknown names are a typed error. */
export function parsePersonaChoice(value: string | undefined, flag = '--persona'): PersonaChoice {
  const v = (value ?? 'auto').trim().toLowerCase();
  if (v === 'auto' || v === 'none' || (PERSONA_NAMES as readonly string[]).includes(v)) return v as PersonaChoice;
  throw new NavkernelError('INVALID_OPTION', `${flag} must be one of ${[...PERSONA_NAMES, 'auto', 'none'].join(', ')}; got ${JSON.stringify(value)}`);
}

/**
 * The persona for a task under `auto` (seed 002 §1.5): knuth for algorithms and data structures, feynman for
 * physics and first-principles reasoning, shannon for compression and encoding and for everything else (the
 * default). Counts the task's words in each domain list; ties go to shannon, then knuth. Deterministic.
 */
export function choosePersona(task: string): PersonaName {
  const words = stems(task);
  const text = ` ${words.join(' ')} `;
  let best: PersonaName = 'shannon';
  let bestScore = 0;
  for (const name of PERSONA_NAMES) {
    let score = 0;
    for (const term of PERSONAS[name].domain) if (text.includes(` ${stems(term).join(' ')} `)) score++;
    if (score > bestScore) (best = name), (bestScore = score);
  }
  return best;
}

/** The persona a choice resolves to for a task (undefined for `none`). */
export function resolvePersona(choice: PersonaChoice | undefined, task: string): PersonaName | undefined {
  const c = choice ?? 'auto';
  if (c === 'none') return undefined;
  return c === 'auto' ? choosePersona(task) : c;
}

/** The style block of a persona, as appended to a system prompt. */
export function personaLayer(name: PersonaName): string {
  const p = PERSONAS[name];
  return [
    `## Style prior: ${p.title} (persona "${p.name}", loaded last)`,
    p.style,
    'This prior shapes only how you reason and phrase your answer. It never overrides the rules above: the allowed answers, the answer format, the budget and every check stay exactly as stated.',
  ].join('\n');
}

/**
 * Messages with the persona's style block appended to the (first) system message, or added as the system message
 * when there is none. Everything else is returned as is: the layer is last, after the safety and skill-pack rules.
 */
export function withPersona(messages: readonly LlmMessage[], persona: PersonaName | undefined): LlmMessage[] {
  if (!persona) return [...messages];
  const layer = personaLayer(persona);
  const i = messages.findIndex((m) => m.role === 'system');
  if (i < 0) return [{ role: 'system', content: layer }, ...messages];
  return messages.map((m, j) => (j === i ? { ...m, content: `${m.content}\n\n${layer}` } : m));
}
