// The evidence resolvers, in the order their credits are combined (the order fixes the sums' bytes and the reasons' order).
import type { IssueEvidence } from '../read-issue.js';
import { resolveCTables } from './c-tables.js';
import { resolveFlags } from './flags.js';
import { resolveFrames } from './frames.js';
import { resolveGoFileNames } from './go-file-names.js';
import { resolveGoReceivers } from './go-receivers.js';
import { resolveLiterals } from './literals.js';
import { resolveMessages } from './messages.js';
import { resolveDottedNames, resolveModuleMentions } from './module-targets.js';
import { resolveNames } from './names.js';
import { resolveLinks, resolveNamedFiles } from './paths.js';
import { resolveImports } from './python-imports.js';
import { resolvePythonReceivers } from './python-receivers.js';
import type { Credit, RepoView } from './repo-view.js';
import { resolveScripts } from './scripts.js';
import { resolveTitleScope } from './title-scope.js';

export type EvidenceResolver = (view: RepoView, ev: IssueEvidence) => Credit[];

export const EVIDENCE_RESOLVERS: readonly EvidenceResolver[] = [
  resolveFrames,
  resolveMessages,
  resolveImports,
  resolveDottedNames,
  resolveGoReceivers,
  resolvePythonReceivers,
  resolveModuleMentions,
  resolveNames,
  resolveLiterals,
  resolveCTables,
  resolveFlags,
  resolveLinks,
  resolveNamedFiles,
  resolveScripts,
  resolveTitleScope,
  resolveGoFileNames,
];

export { type Credit, type DefRef, type RepoView, repoViewOf, innermost, nonTest, escapeRe, qualified, withoutRelease } from './repo-view.js';
export { EVIDENCE_WEIGHTS } from './weights.js';
