import { z } from 'zod';

/** Limits of one navigation (seed 002 capsule BUDGET, plus a token budget). */
export const NavigatorBudget = z
  .object({
    max_files: z.int().positive().default(8).describe('Files loaded into the context, at most'),
    max_lines: z.int().positive().default(400).describe('Lines read while loading (sum of lines_read), at most'),
    max_tool_calls: z.int().positive().default(30).describe('Registry reads plus file reads, at most'),
    max_tokens: z.int().positive().default(8000).describe('Tokens of the loaded context (counted by gpt-tokenizer, o200k_base), at most'),
  })
  .strict();
export type NavigatorBudget = z.infer<typeof NavigatorBudget>;

/** CONSTRAINTS of the capsule: a scope restriction on what may be loaded. */
export const NavigatorConstraints = z
  .object({
    scope: z.array(z.string().min(1)).default([]).describe('Globs; when non-empty, only matching files may be loaded'),
    exclude: z.array(z.string().min(1)).default([]).describe('Globs never loaded'),
    notes: z.string().optional(),
  })
  .strict();
export type NavigatorConstraints = z.infer<typeof NavigatorConstraints>;

/** The persona priors of seed 002 (style only); a persona in a skill pack is loaded last. */
const SKILL_PACK_PERSONAS = ['shannon', 'knuth', 'feynman'] as const;
const isPersona = (s: string) => (SKILL_PACK_PERSONAS as readonly string[]).includes(s) || /^persona[:-]/.test(s);

/**
 * SKILL_PACK, in load order (seed 002 §1.5): `prime-safety` first, so nothing loaded before it can
 * override it; a persona (shannon, knuth, feynman, or `persona:NAME`) last and at most one, so it only
 * styles what the skills decided. Any other order is refused.
 */
export const SkillPack = z.array(z.string().min(1)).superRefine((pack, ctx) => {
  if (pack[0] !== 'prime-safety')
    ctx.addIssue({ code: 'custom', path: [0], message: `the skill pack must load prime-safety first${pack.length ? `, not ${JSON.stringify(pack[0])}` : ' (it is empty)'}` });
  const personas = pack.map((s, i) => [s, i] as const).filter(([s]) => isPersona(s));
  if (personas.length > 1) ctx.addIssue({ code: 'custom', path: [personas[1]![1]], message: `at most one persona: ${personas.map(([s]) => s).join(', ')}` });
  for (const [s, i] of personas)
    if (i !== pack.length - 1) ctx.addIssue({ code: 'custom', path: [i], message: `the persona ${JSON.stringify(s)} must be loaded last (style only, after every skill)` });
});

/**
 * The Context Normal Form capsule (seed 002 §4): everything the navigator may rely on.
 * `task` and `repo_root` may be missing or null: the FSM's NULL_CHECK turns that into EXIT_NEED_INFO
 * with the reason, rather than a validation error. `magic_words_hint` absent (no hint) and `[]`
 * (an empty hint) are different things and stay different.
 */
export const CnfCapsule = z
  .object({
    task: z.string().nullable().optional().describe('TASK: the verbatim query'),
    constraints: NavigatorConstraints.default({ scope: [], exclude: [] }),
    repo_root: z.string().nullable().optional().describe('REPO_ROOT: the repository directory'),
    magic_words_hint: z.array(z.string().min(1)).optional().describe('MAGIC_WORDS_HINT'),
    prior_artifacts: z.array(z.string().min(1)).default([]).describe('PRIOR_ARTIFACTS: links only, never inline content'),
    northstar: z.string().min(1).optional().describe('NORTHSTAR: the project\'s north star, as text or the path of a file inside the repository (e.g. NORTHSTAR.md)'),
    ecosystem_northstar: z.string().min(1).optional().describe('The ecosystem\'s north star, as text or a path inside the repository'),
    skill_pack: SkillPack.default(['prime-safety', 'phuc-magic-words', 'phuc-gps']),
    budget: NavigatorBudget.default({ max_files: 8, max_lines: 400, max_tool_calls: 30, max_tokens: 8000 }),
  })
  .strict();
export type CnfCapsule = z.infer<typeof CnfCapsule>;
export type CnfCapsuleInput = z.input<typeof CnfCapsule>;

/**
 * One tier-registry record (the stillwater magic-words shape, reference/magic-words-schema.md), plus
 * `paths`: globs of the repository files the word anchors, and `aliases`: direct aliases that map to
 * the word. `related_words` are NOT aliases (seed 002 "Magic Word Inflation"). Other stillwater fields
 * are accepted and kept.
 */
export const MagicWordRecord = z.looseObject({
  id: z.string().min(1),
  word: z.string().min(1).regex(/^[^\sA-Z]+$/, 'lowercase, no spaces'),
  tier: z.int().min(0).max(3),
  definition: z.string().optional(),
  parent: z.string().nullable(),
  children: z.array(z.string()).default([]),
  gravity: z.number().min(0).max(1).optional(),
  domain: z.string().optional(),
  related_words: z.array(z.string()).default([]),
  aliases: z.array(z.string().min(1)).default([]),
  paths: z.array(z.string().min(1)).default([]),
});
export type MagicWordRecord = z.infer<typeof MagicWordRecord>;
