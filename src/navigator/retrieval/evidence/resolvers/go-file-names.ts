// A Go file whose name the title spells: "Fix image decoding from the file cache" → `resources/image_cache.go`.
import { ablated } from '../../ablation.js';
import { splitWords } from '../../../../repomap/words.js';
import { stemOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditFile } from './repo-view.js';

/** More files than this spelled by one title: the title's words are the package's vocabulary, not a file's name. */
const MAX_FILES = 4;
/** What a spelled name adds to its file (a file the issue names adds EVIDENCE_WEIGHTS.file = 1), shared out by √n. */
const NAME_WEIGHT = 0.6;

/**
 * Go splits a package into files named after their part, in snake case (`image_cache.go`, `page__meta.go`,
 * `native_store.go`), and a title says what is wrong in the same words, in any order and between other words ("Fix
 * image DecodeConfig regression of WebP images from file cache"). Each of those words is common in the package (every
 * file of an image package says "image"), so the text score spreads over all of them and the file whose name is made
 * of them sinks below files that repeat one word more. This credits the Go source files whose name has two or more
 * distinct words, each of them a word of the title (compared by stem), when no more than MAX_FILES files are spelled.
 */
export function resolveGoFileNames(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('go-file-names')) return [];
  const first = ev.segments.find((s) => s.text.trim() !== '');
  if (!first || first.kind !== 'prose') return [];
  const title = first.text.split('\n').find((l) => l.trim() !== '') ?? '';
  const titleStems = new Set(splitWords(title).map((w) => stemOf(w)));
  if (titleStems.size < 2) return [];
  const spelled: string[] = [];
  for (const p of view.allPaths) {
    if (!p.endsWith('.go') || p.endsWith('_test.go') || view.classOf(p) !== 'source') continue;
    const parts = [...new Set(splitWords(p.slice(p.lastIndexOf('/') + 1, -3)).map((w) => stemOf(w)))];
    if (parts.length >= 2 && parts.every((w) => titleStems.has(w))) spelled.push(p);
  }
  if (!spelled.length || spelled.length > MAX_FILES) return [];
  return spelled.map((p) => creditFile(p, NAME_WEIGHT / Math.sqrt(spelled.length), `title spells ${p.slice(p.lastIndexOf('/') + 1)}`));
}
