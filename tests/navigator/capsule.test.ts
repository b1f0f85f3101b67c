import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CnfCapsule } from '../../src/contracts/index.js';
import { createNavigator, intakeCapsule, parseCapsuleText } from '../../src/navigator/index.js';
import { runCli } from '../support/cli.js';
import { SHOP, tmpDir } from '../repomap/fixture.js';

const made: string[] = [];
const dir = (prefix: string) => {
  const d = tmpDir(prefix);
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
// Made in beforeAll, not at collection: a filter (-t) that skips every test runs no afterAll to remove it.
let cacheDir: string;
beforeAll(() => {
  cacheDir = dir('nk-cache-');
});

/** The typed error of a capsule the intake refuses. */
function refused(raw: unknown): { code: string; issues: { path: string; message: string }[] } {
  try {
    intakeCapsule(raw);
  } catch (err) {
    return err as { code: string; issues: { path: string; message: string }[] };
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

/** Seed 002 §4's template, filled in: the plain text the seed writes. */
const SEED_TEMPLATE = [
  'TASK: apply a discount coupon to the cart (issue #42: "minimum: 10")',
  'CONSTRAINTS: {scope: [src/**]}',
  `REPO_ROOT: ${SHOP}`,
  'MAGIC_WORDS_HINT: [coupon]',
  'PRIOR_ARTIFACTS: runs/nav-1/navigator/navigation_map.json, https://example.org/issues/42',
  'SKILL_PACK: [prime-safety, phuc-magic-words, phuc-gps]',
  'BUDGET: {max_files: 8, max_lines: 400, max_tool_calls: 30}',
  '',
].join('\n');

describe('the capsule as seed 002 writes it (issue 22 item 6)', () => {
  it('reads the seed\'s plain-text template, upper-case keys and all, and navigates with it', async () => {
    const capsule = parseCapsuleText(SEED_TEMPLATE);
    expect(capsule).toEqual({
      task: 'apply a discount coupon to the cart (issue #42: "minimum: 10")',
      constraints: { scope: ['src/**'] },
      repo_root: SHOP,
      magic_words_hint: ['coupon'],
      prior_artifacts: ['runs/nav-1/navigator/navigation_map.json', 'https://example.org/issues/42'],
      skill_pack: ['prime-safety', 'phuc-magic-words', 'phuc-gps'],
      budget: { max_files: 8, max_lines: 400, max_tool_calls: 30 },
    });
    const o = await createNavigator({ cacheDir }).navigate(SEED_TEMPLATE);
    expect(o.exit).toBe('EXIT_PASS');
    // TASK is kept verbatim: "#" and ":" are text, not YAML comments and keys.
    expect(o.artifacts.navigation_map.query).toBe('apply a discount coupon to the cart (issue #42: "minimum: 10")');
    expect(o.artifacts.context_load_receipt.files_loaded.map((f) => f.path)).toContain('src/cart/discount.ts');
    expect(o.artifacts.context_load_receipt.files_loaded.every((f) => f.path.startsWith('src/'))).toBe(true);
  });

  it('reads the same template as a YAML object, and a multi-line TASK, "- item" lists, prose CONSTRAINTS and limits in CONSTRAINTS', () => {
    const yamlForm = intakeCapsule({ TASK: 'refund a stripe charge', REPO_ROOT: SHOP, SKILL_PACK: ['prime-safety', 'phuc-magic-words', 'phuc-gps'], BUDGET: { MAX_FILES: 3 }, PRIOR_ARTIFACTS: 'runs/a/context.md' });
    expect(yamlForm.task).toBe('refund a stripe charge');
    expect(yamlForm.capsule.budget.max_files).toBe(3);
    expect(yamlForm.capsule.prior_artifacts).toEqual(['runs/a/context.md']);
    const text = parseCapsuleText(['TASK: the refund fails:', '  Traceback: refund() got 0', 'REPO_ROOT: .', 'MAGIC_WORDS_HINT:', '- refund', '- stripe', 'CONSTRAINTS: only the payment code, max_files 2', ''].join('\n'));
    expect(text).toEqual({ task: 'the refund fails:\n  Traceback: refund() got 0', repo_root: '.', magic_words_hint: ['refund', 'stripe'], constraints: { notes: 'only the payment code, max_files 2' } });
    // "CONSTRAINTS: <max_files / max_lines / scope restriction>": limits there join the BUDGET, the tighter one wins.
    const limits = intakeCapsule(parseCapsuleText(`TASK: x\nREPO_ROOT: ${SHOP}\nCONSTRAINTS: scope: src/**, max_files: 2\nBUDGET: max_files: 5, max_lines: 100\n`));
    expect(limits.capsule.constraints.scope).toEqual(['src/**']);
    expect(limits.capsule.budget).toMatchObject({ max_files: 2, max_lines: 100 });
    // The template pasted with the seed's ``` fence around it.
    expect(parseCapsuleText(`\`\`\`\n${SEED_TEMPLATE}\`\`\`\n`)).toEqual(parseCapsuleText(SEED_TEMPLATE));
    // An empty MAGIC_WORDS_HINT is no hint; "[]" is an empty one (seed 002 NULL_ZERO_CONFUSION).
    expect(intakeCapsule('TASK: x\nREPO_ROOT: .\nMAGIC_WORDS_HINT:\n').capsule.magic_words_hint).toBeUndefined();
    expect(intakeCapsule('TASK: x\nREPO_ROOT: .\nMAGIC_WORDS_HINT: []\n').capsule.magic_words_hint).toEqual([]);
  });

  it('refuses a malformed template with the reason: a placeholder left, a key twice, both spellings of a field, text before the first key', () => {
    expect(refused('TASK: <verbatim query requiring navigation>\nREPO_ROOT: .\n')).toMatchObject({ code: 'INVALID_CAPSULE', issues: [{ path: ['TASK'], message: expect.stringContaining("still the template's placeholder") }] });
    expect(refused('TASK: a\nTASK: b\n').issues[0]!.message).toBe('TASK is given twice (lines 1 and 2)');
    expect(refused({ TASK: 'a', task: 'b' }).issues[0]!.message).toMatch(/same field, given twice/);
    expect(refused('Please navigate.\nTASK: a\n').issues[0]!.message).toMatch(/line 1: text before the first KEY: line/);
    expect(refused('TASK: a\nBUDGET: lots\n').issues[0]).toMatchObject({ path: ['BUDGET'], message: expect.stringMatching(/is not a map like \{max_files: 8/) });
  });

  it('PRIOR_ARTIFACTS holds links only: inline content is refused with the reason, in every form', () => {
    const ok = intakeCapsule({ task: 'x', repo_root: '.', prior_artifacts: ['runs/r1/navigator/context_load_receipt.json', 'https://example.org/a?b=c#d', 'file:///tmp/x%20y.json'] });
    expect(ok.capsule.prior_artifacts).toHaveLength(3);
    const reason = (entry: unknown) => refused({ task: 'x', repo_root: '.', prior_artifacts: [entry] }).issues[0]!;
    expect(reason('line one\nline two\nline three')).toMatchObject({ path: ['prior_artifacts', 0], message: 'PRIOR_ARTIFACTS holds links only (a URL or a path), no inline content: this entry is 3 lines of text' });
    expect(reason('{"files_loaded": []}').message).toMatch(/starts with "\{", as inline JSON/);
    expect(reason('the cart total was wrong last time').message).toMatch(/contains whitespace \(prose, not a link/);
    expect(reason('data:text/plain;base64,aGVsbG8=').message).toMatch(/a data: URL carries its content inline/);
    expect(reason({ path: 'a.json', content: '...' }).message).toMatch(/PRIOR_ARTIFACTS holds links only/);
    // The template forms: content pasted under the key stays one entry and is refused the same way.
    expect(refused('TASK: x\nREPO_ROOT: .\nPRIOR_ARTIFACTS: {"context": "export function applyDiscount() {}"}\n').issues[0]!.message).toMatch(/no inline content: this entry starts with "\{"/);
    expect(refused('TASK: x\nREPO_ROOT: .\nPRIOR_ARTIFACTS: export function applyDiscount(total) {\n  return total;\n}\n').issues[0]!.message).toMatch(/no inline content: this entry is 3 lines of text/);
  });

  it('the CLI reads a .txt capsule as the seed\'s plain text and a .yaml one with upper-case keys', () => {
    const d = dir('nk-capsule-');
    writeFileSync(path.join(d, 'capsule.txt'), SEED_TEMPLATE);
    const txt = runCli(['navigate', '--capsule', path.join(d, 'capsule.txt'), '--out', path.join(d, 'out-txt'), '--cache-dir', cacheDir, '--json']);
    expect(txt.stderr).toBe('');
    expect(txt.code).toBe(0);
    expect(JSON.parse(txt.stdout).magic_words).toContain('coupon');
    writeFileSync(path.join(d, 'capsule.yaml'), `TASK: where is the stripe charge refund\nREPO_ROOT: ${SHOP}\nSKILL_PACK: [prime-safety, phuc-magic-words, phuc-gps, persona-engine, shannon]\nBUDGET: {max_files: 2}\n`);
    const yml = runCli(['navigate', '--capsule', path.join(d, 'capsule.yaml'), '--out', path.join(d, 'out-yaml'), '--cache-dir', cacheDir, '--json']);
    expect(yml.code).toBe(0);
    expect(JSON.parse(yml.stdout).loaded.length).toBeLessThanOrEqual(2);
    writeFileSync(path.join(d, 'bad.txt'), SEED_TEMPLATE.replace('runs/nav-1/navigator/navigation_map.json, https://example.org/issues/42', '{"inline": true}'));
    const bad = runCli(['navigate', '--capsule', path.join(d, 'bad.txt'), '--out', path.join(d, 'out-bad'), '--cache-dir', cacheDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/CNF capsule: \$\.prior_artifacts\[0\]: PRIOR_ARTIFACTS holds links only \(a URL or a path\), no inline content: this entry starts with "\{"/);
  });
});

describe('skill-pack order (issue 22 item 3)', () => {
  it('enforces seed 002\'s whole rule: GPS after magic words, none skipped, each once, unknown names refused with the known ones', async () => {
    const SEED = ['prime-safety', 'phuc-magic-words', 'phuc-gps'];
    const issues = (pack: string[]) => {
      const r = CnfCapsule.safeParse({ task: 't', repo_root: '.', skill_pack: pack });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    // The seed's own packs.
    expect(issues(SEED)).toEqual([]);
    expect(issues([...SEED, 'persona-engine'])).toEqual([]);
    expect(issues([...SEED, 'persona-engine', 'shannon'])).toEqual([]);
    expect(CnfCapsule.parse({ task: 't', repo_root: '.' }).skill_pack).toEqual(SEED);
    // GPS before magic words (the README's own example of a refused order).
    expect(issues(['prime-safety', 'phuc-gps', 'phuc-magic-words'])).toEqual(['skill_pack.1: phuc-gps must be loaded after phuc-magic-words (order: prime-safety > phuc-magic-words > phuc-gps > persona)']);
    expect(issues(['prime-safety', 'phuc-gps', 'phuc-magic-words']).join()).toMatch(/prime-safety > phuc-magic-words > phuc-gps > persona/);
    // Skipping: prime-safety, then the others ("never skip").
    expect(issues(['phuc-magic-words', 'phuc-gps']).join('\n')).toMatch(/prime-safety first, not "phuc-magic-words"[\s\S]*prime-safety is skipped/);
    expect(issues(['prime-safety', 'phuc-gps'])).toEqual([expect.stringMatching(/phuc-magic-words is skipped/)]);
    expect(issues(['prime-safety', 'phuc-magic-words'])).toEqual([expect.stringMatching(/phuc-gps is skipped/)]);
    // An unknown name, refused with the list of known ones.
    const unknown = issues([...SEED, 'turbo-mode']);
    expect(unknown).toEqual([expect.stringMatching(/^skill_pack\.3: unknown skill "turbo-mode": the known ones are prime-safety, phuc-magic-words, phuc-gps, persona-engine, shannon, knuth, feynman$/)]);
    expect(issues([...SEED, 'persona:anyone'])[0]).toMatch(/unknown skill "persona:anyone"/);
    // Twice; the engine after its persona; the engine before a skill.
    expect(issues(['prime-safety', 'prime-safety', 'phuc-magic-words', 'phuc-gps'])).toContainEqual(expect.stringMatching(/"prime-safety" is loaded twice/));
    expect(issues([...SEED, 'shannon', 'persona-engine'])).toContainEqual(expect.stringMatching(/persona-engine must be loaded before the persona/));
    expect(issues(['prime-safety', 'persona-engine', 'phuc-magic-words', 'phuc-gps'])).toContainEqual(expect.stringMatching(/^skill_pack\.1: the persona layer "persona-engine" must be loaded last/));
  });
});
