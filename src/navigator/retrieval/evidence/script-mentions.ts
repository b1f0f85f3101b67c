/**
 * Scripts an issue names in prose: the words right before the word "script" ("the install script", "the gen-docs
 * script") or right after it ("the script `bootstrap`", "the script named bootstrap"). A helper script is written
 * in another language than the repository's code and ranks below it (file-kind.ts); named, it is what the issue
 * is about. Reading is pure: which files carry such a name is the resolver's and the ranking's business.
 */

/** How many words a script's name may have ("gen docs script"). */
export const NAME_WORDS_MAX = 3;

const wordsOf = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/** A file stem as the words a prose mention gives it: `gen_docs`, `gen-docs`, `Gen.Docs` → `gen docs`. */
export function nameWords(stem: string): string {
  return wordsOf(stem).join(' ');
}

/** A path's file name without its extension (`scripts/gen_docs.py` → `gen_docs`). */
export function stemOfPath(p: string): string {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * The candidate names beside each "script"/"scripts" of `text`: the 1 to NAME_WORDS_MAX words before it and after
 * it (after `named`/`called` when one follows), each as space-joined lower-case words, first seen first. Most are
 * no name ("my script", "this script"); only those a file of the repository carries count.
 */
export function scriptMentions(text: string): string[] {
  const words = wordsOf(text);
  const out = new Set<string>();
  words.forEach((w, i) => {
    if (w !== 'script' && w !== 'scripts') return;
    const after = words[i + 1] === 'named' || words[i + 1] === 'called' ? i + 2 : i + 1;
    for (let k = 1; k <= NAME_WORDS_MAX; k++) {
      if (i - k >= 0) out.add(words.slice(i - k, i).join(' '));
      if (after + k <= words.length) out.add(words.slice(after, after + k).join(' '));
    }
  });
  return [...out];
}
