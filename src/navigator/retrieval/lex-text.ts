import type { FileLanguage } from '../../repomap/languages.js';
import { HASH_START, hashStep, pieceAtHashed } from './piece-table.js';

/** The fields lexed out of one file's text. */
export interface LexedText {
  /** Terms of the identifiers in code (comments and strings removed). */
  idents: string[];
  /** Terms of the words in comments and string literals (all of a document). */
  text: string[];
}

/**
 * A file's text cut into identifier and word pieces: each piece is the space-joined index terms of one
 * identifier (code) or word (comments, strings, documents), those without terms left out.
 */
export interface LexedPieces {
  idents: string[];
  words: string[];
}

const HASH_EXT = /\.(py|pyi|rb|sh|bash|zsh|ya?ml|toml|pl|r|cfg|ini|conf|mk|cmake|tf|nix|ps1|dockerfile)$|(^|\/)(makefile|dockerfile|\.?[a-z]*rc)$/i;
const C_LIKE_TEXT = /\.(json|c|h|cc|cpp|hpp|cs|swift|kt|kts|scala|php|dart|css|scss|less|vue|svelte|lua|zig|sql)$/i;

/** Which lexer a file gets: all words (documents, unknown text), `#` comments and triple quotes, or C-like. */
export function lexFamily(language: FileLanguage, relPath: string): 'words' | 'hash' | 'c' {
  if (language === 'markdown' || (language === 'text' && !HASH_EXT.test(relPath) && !C_LIKE_TEXT.test(relPath))) return 'words';
  return language === 'python' || HASH_EXT.test(relPath) ? 'hash' : 'c';
}

// Character classes by code unit (ASCII only, as the terms are).
const WORD_CHAR = new Uint8Array(128); // [A-Za-z0-9_]
const IDENT_START = new Uint8Array(128); // [A-Za-z_$]
const IDENT_CHAR = new Uint8Array(128); // [A-Za-z0-9_$]
for (let c = 0; c < 128; c++) {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  const digit = c >= 48 && c <= 57;
  WORD_CHAR[c] = letter || digit || c === 95 ? 1 : 0;
  IDENT_START[c] = letter || c === 95 || c === 36 ? 1 : 0;
  IDENT_CHAR[c] = letter || digit || c === 95 || c === 36 ? 1 : 0;
}
const isWordChar = (c: number) => c < 128 && WORD_CHAR[c] === 1;
const isIdentChar = (c: number) => c < 128 && IDENT_CHAR[c] === 1;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
/** What `.` in a regular expression does not match. */
const isLineTerminator = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

const NL = 10;
const HASH = 35;
const DQ = 34;
const SQ = 39;
const SLASH = 47;
const STAR = 42;
const BACKTICK = 96;
const BACKSLASH = 92;

function push(piece: string, out: string[]): void {
  if (piece !== '') out.push(piece);
}

/** The word pieces of text[from, to): runs of [A-Za-z0-9_] (each hashed as it is read, for the piece table). */
function wordsIn(text: string, from: number, to: number, out: string[]): void {
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (!isWordChar(c)) {
      i++;
      continue;
    }
    let h = hashStep(HASH_START, c);
    let j = i + 1;
    for (; j < to; j++) {
      const d = text.charCodeAt(j);
      if (!isWordChar(d)) break;
      h = hashStep(h, d);
    }
    push(pieceAtHashed(text, i, j, h), out);
    i = j;
  }
}

/**
 * The end of a quoted literal opening at `at` with quote `q`, past its closing quote, or -1 when unclosed. One
 * line (`multiline` false): a backslash escapes any character but a line terminator, a newline ends it unclosed.
 * A template literal (`multiline`): a backslash escapes anything, newlines included.
 */
function quotedEnd(text: string, at: number, q: number, multiline = false): number {
  const n = text.length;
  let k = at + 1;
  while (k < n) {
    const c = text.charCodeAt(k);
    if (c === q) return k + 1;
    if (c === BACKSLASH) {
      if (k + 1 < n && (multiline || !isLineTerminator(text.charCodeAt(k + 1)))) k += 2;
      else return -1;
    } else if (c === NL && !multiline) return -1;
    else k++;
  }
  return -1;
}

/** The end of the comment or string literal starting at `i` in the given family, or -1 when none starts there. */
function literalEnd(text: string, i: number, c: number, hash: boolean): number {
  if (hash) {
    if (c === HASH) {
      const e = text.indexOf('\n', i);
      return e === -1 ? text.length : e;
    }
    if (c === DQ || c === SQ) {
      if (text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) {
        const e = text.indexOf(c === DQ ? '"""' : "'''", i + 3);
        if (e !== -1) return e + 3;
      }
      return quotedEnd(text, i, c);
    }
    return -1;
  }
  if (c === SLASH) {
    const d = text.charCodeAt(i + 1);
    if (d === SLASH) {
      const e = text.indexOf('\n', i);
      return e === -1 ? text.length : e;
    }
    if (d === STAR) {
      const e = text.indexOf('*/', i + 2);
      return e === -1 ? -1 : e + 2;
    }
    return -1;
  }
  if (c === DQ || c === SQ) return quotedEnd(text, i, c);
  if (c === BACKTICK) return quotedEnd(text, i, BACKTICK, true);
  return -1;
}

/**
 * Lexes a file into identifier pieces (code) and word pieces (comments and string literals) with a small
 * language-family lexer in one pass over the text: C-like `//`, `/* *\/`, quotes and template literals; `#`
 * comments and triple quotes for Python, shell, YAML, TOML. Documents and unknown text are all words. Not a
 * parser: good enough to tell code names from prose. Identifiers are `[A-Za-z_$][A-Za-z0-9_$]*` and numbers
 * with a letter (`1e5`, `0x1F`); words are `[A-Za-z0-9_]+`.
 */
export function lexPieces(language: FileLanguage, relPath: string, text: string): LexedPieces {
  if (!warmedUp) warmUp();
  return lexOnce(language, relPath, text);
}

function lexOnce(language: FileLanguage, relPath: string, text: string): LexedPieces {
  const idents: string[] = [];
  const words: string[] = [];
  const family = lexFamily(language, relPath);
  if (family === 'words') {
    wordsIn(text, 0, text.length, words);
    return { idents, words };
  }
  const hash = family === 'hash';
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    // Identifiers and numbers are hashed as they are read (the piece table's key).
    if (c < 128 && IDENT_START[c] === 1) {
      let h = hashStep(HASH_START, c);
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!isIdentChar(d)) break;
        h = hashStep(h, d);
      }
      push(pieceAtHashed(text, i, j, h), idents);
      i = j;
    } else if (isDigit(c)) {
      let h = hashStep(HASH_START, c);
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!isDigit(d)) break;
        h = hashStep(h, d);
      }
      if (j < n && isLetter(text.charCodeAt(j))) {
        h = hashStep(h, text.charCodeAt(j));
        j++;
        for (; j < n; j++) {
          const d = text.charCodeAt(j);
          if (!isWordChar(d)) break;
          h = hashStep(h, d);
        }
        push(pieceAtHashed(text, i, j, h), idents);
      }
      // A number without a letter is no identifier (nor is any digit of it).
      i = j;
    } else {
      const e = c === HASH || c === DQ || c === SQ || c === SLASH || c === BACKTICK ? literalEnd(text, i, c, hash) : -1;
      if (e === -1) i++;
      else {
        wordsIn(text, i, e, words);
        i = e;
      }
    }
  }
  return { idents, words };
}

/** Every term of `pieces`, in order. */
function termsOf(pieces: string[]): string[] {
  const out: string[] = [];
  for (const p of pieces) for (const t of p.split(' ')) out.push(t);
  return out;
}

/** A file lexed into identifier terms and comment/string terms (see lexPieces). */
export function lexText(language: FileLanguage, relPath: string, text: string): LexedText {
  const { idents, words } = lexPieces(language, relPath, text);
  return { idents: termsOf(idents), text: termsOf(words) };
}

/**
 * Small texts of every family and construct the lexer reads (numbers with letters, escapes, unclosed quotes, template
 * literals, identifiers without terms), lexed once per thread before the first file: V8 compiles the lexer from the
 * type feedback of what it has run, and a path first taken after that (or a two-byte text after one-byte ones) throws
 * the compiled code away to compile it again — some 15 times over sympy before this. Not data: results dropped.
 */
const WARM_UP: [FileLanguage, string, string][] = [
  ['python', 'w.py', '# comment\n"""doc"""\ndef f_2(x, _, __y):\n    return 0x1F + 1e5 + 10 + x.HTTPRequest2("a\\"b", \'c\')  # end\ns = \'unclosed\n'],
  ['typescript', 'w.ts', '// line\n/* block */\nconst $a_1 = `tpl ${x} \\` + 0xFFn + "q\\"" + \'r\' + 1e3 / 2 * 3;\nlet b = "unclosed\n/* open'],
  ['markdown', 'w.md', '# Title\n\nSome words_with_parts and camelCase 42x.\n'],
];
let warmedUp = false;

function warmUp(): void {
  warmedUp = true;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // Each as a one-byte string and as a two-byte one (a character past U+00FF), as files are read; several rounds, as
  // V8 records no feedback for a function before its first few calls.
  for (let round = 0; round < 8; round++) {
    for (const [language, relPath, text] of WARM_UP) for (const t of [text, `${text} \u2192\n`]) lexOnce(language, relPath, decoder.decode(encoder.encode(t)));
  }
}
