import { z } from 'zod';

/** Limits of one navigation (seed 002 capsule BUDGET, plus a token budget). */
export const NavigatorBudget = z
  .object({
    max_files: z.int().positive().default(8).describe('Files loaded into the context, at most'),
    max_lines: z.int().positive().default(400).describe('Lines shown in the context (sum of lines_shown), at most; lines read are reported, not bounded'),
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

/** The skills of seed 002 §1, in their load order: each is loaded, none skipped. */
export const SKILL_PACK_SKILLS = ['prime-safety', 'phuc-magic-words', 'phuc-gps'] as const;
/** The persona layer of seed 002 §1.5 (style only): the engine and the personas it loads, always last. */
export const SKILL_PACK_PERSONAS = ['shannon', 'knuth', 'feynman'] as const;
/** Every name a skill pack may hold. */
export const SKILL_PACK_NAMES = [...SKILL_PACK_SKILLS, 'persona-engine', ...SKILL_PACK_PERSONAS] as const;
const isPersona = (s: string) => (SKILL_PACK_PERSONAS as readonly string[]).includes(s);
const isPersonaLayer = (s: string) => s === 'persona-engine' || isPersona(s);

/**
 * SKILL_PACK, in load order — seed 002's whole rule: "Load in order (never skip; never weaken)
 * prime-safety > phuc-magic-words > phuc-gps > persona-engine (persona always last)". So: prime-safety
 * first and never skipped; phuc-magic-words and phuc-gps both loaded, magic words before GPS; the persona
 * layer (`persona-engine` and/or at most one persona: shannon, knuth, feynman) after every skill; each name
 * once; an unknown name is refused with the list of known ones.
 */
export const SkillPack = z.array(z.string().min(1)).superRefine((pack, ctx) => {
  const add = (i: number, message: string) => ctx.addIssue({ code: 'custom', path: [i], message });
  const known = SKILL_PACK_NAMES as readonly string[];
  pack.forEach((s, i) => {
    if (!known.includes(s)) add(i, `unknown skill ${JSON.stringify(s)}: the known ones are ${known.join(', ')}`);
    else if (pack.indexOf(s) !== i) add(i, `${JSON.stringify(s)} is loaded twice`);
  });
  if (pack[0] !== 'prime-safety') add(0, `the skill pack must load prime-safety first${pack.length ? `, not ${JSON.stringify(pack[0])}` : ' (it is empty)'}`);
  let prev = -1;
  for (const skill of SKILL_PACK_SKILLS) {
    const at = pack.indexOf(skill);
    if (at < 0) add(pack.length, `${skill} is skipped: the seed loads ${SKILL_PACK_SKILLS.join(', ')} in this order and never skips one`);
    else if (at < prev) add(at, `${skill} must be loaded after ${pack[prev]} (order: ${SKILL_PACK_SKILLS.join(' > ')} > persona)`);
    else prev = at;
  }
  const personas = pack.map((s, i) => [s, i] as const).filter(([s]) => isPersona(s));
  if (personas.length > 1) add(personas[1]![1], `at most one persona: ${personas.map(([s]) => s).join(', ')}`);
  const lastSkill = Math.max(...SKILL_PACK_SKILLS.map((s) => pack.indexOf(s)));
  pack.forEach((s, i) => {
    if (isPersonaLayer(s) && i < lastSkill) add(i, `the persona layer ${JSON.stringify(s)} must be loaded last (style only, after every skill)`);
  });
  const engine = pack.indexOf('persona-engine');
  if (engine >= 0 && personas.some(([, i]) => i < engine)) add(engine, 'persona-engine must be loaded before the persona it loads');
});

/**
 * One PRIOR_ARTIFACTS entry: a link only (seed 002 §4: "links only — no inline content"). A link is a URL
 * (`scheme:…`, but not a `data:` URL, which carries its content) or a path, on one line, without
 * whitespace (percent-encode spaces, or use a file: URL), at most 2048 characters. Anything else is
 * inline content and refused with the reason.
 */
export const ArtifactLink = z
  .string({ error: 'PRIOR_ARTIFACTS holds links only (a URL or a path): not inline content' })
  .min(1)
  .superRefine((s, ctx) => {
    const refuse = (why: string) => ctx.addIssue({ code: 'custom', message: `PRIOR_ARTIFACTS holds links only (a URL or a path), no inline content: ${why}` });
    const lines = s.split(/\r?\n/).length;
    if (lines > 1) refuse(`this entry is ${lines} lines of text`);
    else if (s.length > 2048) refuse(`this entry is ${s.length} characters long`);
    else if (/^data:/i.test(s)) refuse('a data: URL carries its content inline');
    else if (/^[[{<"'`]/.test(s)) refuse(`this entry starts with ${JSON.stringify(s[0])}, as inline JSON, markup or a quotation does`);
    else if (/\s/.test(s)) refuse('this entry contains whitespace (prose, not a link; percent-encode spaces in a path)');
  });

/**
 * The Context Normal Form capsule (seed 002 §4): everything the navigator may rely on. This is its
 * JSON form (lower-case keys); the seed's template form (`TASK:`, `REPO_ROOT:`, … as YAML or as the
 * seed's plain text) is read into it by the navigator's intake (src/navigator/pipeline/capsule-form.ts).
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
    prior_artifacts: z.array(ArtifactLink).default([]).describe('PRIOR_ARTIFACTS: links only (URLs or paths), never inline content'),
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
