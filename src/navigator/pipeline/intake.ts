import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CnfCapsule } from '../../contracts/navigator-capsule.js';
import { ValidationError, issuesFromZod } from '../../contracts/errors.js';
import { toIssueCode } from '../../contracts/issue-codes.js';
import { normalizeCapsule } from './capsule-form.js';
import { readNorthstar, type NorthstarDoc } from './northstar.js';
import type { IntakeResult } from './types.js';

/**
 * INTAKE_QUERY: reads the capsule in any of its forms (JSON, or seed 002's template as YAML or plain
 * text: capsule-form.ts), validates its shape (a malformed capsule is a ValidationError, not an exit)
 * and records which inputs are missing, for NULL_CHECK: a null/blank task, a missing REPO_ROOT, or one
 * that is not a directory.
 */
export function intakeCapsule(raw: unknown, cwd = process.cwd()): IntakeResult {
  const parsed = CnfCapsule.safeParse(normalizeCapsule(raw ?? {}));
  if (!parsed.success) {
    throw new ValidationError(
      'INVALID_CAPSULE',
      'CNF capsule',
      issuesFromZod(parsed.error.issues, toIssueCode),
    );
  }
  const capsule = parsed.data;
  const missing: string[] = [];
  const task = typeof capsule.task === 'string' && capsule.task.trim() !== '' ? capsule.task : null;
  if (task === null) missing.push(capsule.task === undefined || capsule.task === null ? 'TASK is missing' : 'TASK is blank');
  let repoRoot: string | null = null;
  if (capsule.repo_root === undefined || capsule.repo_root === null || capsule.repo_root.trim() === '') missing.push('REPO_ROOT is undefined');
  else {
    const abs = path.resolve(cwd, capsule.repo_root);
    if (!existsSync(abs)) missing.push(`REPO_ROOT ${capsule.repo_root} does not exist`);
    else if (!statSync(abs).isDirectory()) missing.push(`REPO_ROOT ${capsule.repo_root} is not a directory`);
    else repoRoot = realpathSync(abs);
  }
  const northstars: NorthstarDoc[] = [];
  for (const field of ['northstar', 'ecosystem_northstar'] as const) {
    const value = capsule[field];
    if (value === undefined) continue;
    const doc = readNorthstar(field, value, repoRoot);
    if ('problem' in doc) missing.push(doc.problem);
    else northstars.push(doc);
  }
  return { capsule, task, repo_root: repoRoot, missing, northstars };
}
