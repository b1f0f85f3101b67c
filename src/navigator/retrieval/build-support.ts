import type { FileClass } from '../../repomap/file-class.js';
import { languageFamily } from '../../repomap/file-class.js';

/**
 * Files of a project's build and release that the path classes leave as `source` because their names say nothing
 * of a known kind (issue 40, item 1: source before everything else). In a C or C++ project in the GNU layout they
 * hold the words of a prose issue as much as the code does: the manual page documents every option, the release
 * notes repeat every fix, autoconf's inputs name every feature check.
 *
 * - a manual page (`tool.1`, `tool.8.in`: a section number as the extension, maybe with a template
 *   suffix; `.ronn`/`.roff`/`.man` sources): `doc`;
 * - release notes and the other upper-case files of GNU's layout (`NEWS`, `INSTALL`, `THANKS`, `TODO`, `BUGS`): `doc`;
 * - autotools' inputs (`configure.ac`, `Makefile.am`, `*.m4`) and pkg-config templates: `config`;
 * - a release signature or key (`x.tar.gz.asc`, `.sig`, `.gpg`): `asset`;
 * - a copy of a source file kept under a build or backup suffix (`x.c.orig`, `x.h.bak`, `x.c.rej`): `generated`.
 * Undefined for anything else (the path classes stand).
 */
const MAN_PAGE = /\.[1-9][a-z]{0,3}(?:\.(?:in|txt))?$|\.(?:ronn|roff|man)$/i;
const GNU_DOC = /^(?:news|install|thanks|todo|bugs)$/i;
const AUTOTOOLS = /\.(?:m4|ac|am)$|\.pc\.in$/i;
const SIGNATURE = /\.(?:asc|sig|gpg)$/i;
const COPY_SUFFIX = /\.(?:orig|bak|rej|old)$/i;

export function buildSupportClass(rel: string): FileClass | undefined {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  // A file named by a family's extension is that family's code (`news.go`), whatever else its name says.
  if (languageFamily(base)) return undefined;
  if (COPY_SUFFIX.test(base) && languageFamily(base.replace(COPY_SUFFIX, ''))) return 'generated';
  if (MAN_PAGE.test(base) && !/^\d/.test(base)) return 'doc';
  if (GNU_DOC.test(base)) return 'doc';
  if (AUTOTOOLS.test(base)) return 'config';
  if (SIGNATURE.test(base)) return 'asset';
  return undefined;
}
