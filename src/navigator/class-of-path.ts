import { classifyPath, type FileClass } from '../repomap/file-class.js';

/** A copy of a third-party library kept under its release name (`jquery-3.4.1.js`, `underscore-1.13.1.min.css`). */
const VERSIONED_LIBRARY = /^[A-Za-z][\w.]*?[-_]v?\d+\.\d+(?:\.\d+)?(?:[-.][A-Za-z]\w*)?\.(?:[cm]?js|css)$/;
/** Message catalogs (gettext): translations of the program's strings, text rather than code. */
const MESSAGE_CATALOG = /\.(po|pot)$/i;

/** The code host's and CI's folders (issue and pull-request templates, workflows): configuration of the project, not its code or docs. */
const HOSTING_DIR = /^\.(github|gitlab|circleci|gitea|forgejo)\//;

/**
 * The navigator's class of a path: the repository map's class (classifyPath), refined for what ranks
 * badly as source — a third-party library copied in under its release name is vendored code wherever it
 * sits (a theme's `static/jquery-3.4.1.js`), and a message catalog (`.po`, `.pot`), which repeats every
 * message of the program beside its translation, is text like a document. The code host's folders
 * (`.github/ISSUE_TEMPLATE/bug_report.md`, whose headings every issue written from it repeats) are
 * configuration.
 */
export function classOfPath(rel: string): FileClass {
  if (HOSTING_DIR.test(rel)) return 'config';
  const c = classifyPath(rel);
  if (c !== 'source') return c;
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  if (VERSIONED_LIBRARY.test(base)) return 'vendored';
  if (MESSAGE_CATALOG.test(base)) return 'doc';
  return c;
}
