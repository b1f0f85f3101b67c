import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/demo/prng.js';
import { lexFamily, lexText } from '../../src/navigator/retrieval/lex-text.js';
import { lexFields } from '../../src/navigator/retrieval/lex-fields.js';
import { pieceAt } from '../../src/navigator/retrieval/piece-table.js';
import { identifierTerms } from '../../src/navigator/retrieval/terms.js';
import type { FileLanguage } from '../../src/repomap/languages.js';
import { splitWords } from '../../src/repomap/words.js';

// The one-pass lexer must cut exactly where the regular expressions it replaced cut (the full-text index is
// built from its output, so a different cut changes every score). The reference below is that regex lexer.
const C_LIKE = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\[\s\S]|[^`\\])*`/g;
const HASH_LIKE = /#[^\n]*|"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;
const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*|\d+[A-Za-z]\w*/g;
const WORD = /[A-Za-z0-9_]+/g;

function referenceLex(family: 'words' | 'hash' | 'c', text: string): { idents: string[]; text: string[] } {
  const idents: string[] = [];
  const words: string[] = [];
  const wordsInto = (s: string) => {
    for (const m of s.matchAll(WORD)) identifierTerms(m[0], words);
  };
  if (family === 'words') {
    wordsInto(text);
    return { idents, text: words };
  }
  const re = family === 'hash' ? HASH_LIKE : C_LIKE;
  let last = 0;
  const code = (s: string) => {
    for (const m of s.matchAll(IDENT)) identifierTerms(m[0], idents);
  };
  for (const m of text.matchAll(re)) {
    code(text.slice(last, m.index));
    wordsInto(m[0]);
    last = m.index + m[0].length;
  }
  code(text.slice(last));
  return { idents, text: words };
}

function referenceSplit(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^A-Za-z0-9]+/)) {
    if (!raw) continue;
    const parts = raw
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/([A-Za-z])([0-9])/g, '$1 $2')
      .replace(/([0-9])([A-Za-z])/g, '$1 $2')
      .split(' ');
    for (const p of parts) if (p) out.push(p.toLowerCase());
  }
  return out;
}

// Fragments that open, close and escape every kind of literal, plus identifiers, numbers and non-ASCII text.
const FRAGMENTS = [
  'foo', 'barBaz', 'HTTPRequest', 'snake_case', '$el', '_', '__init__', 'x1', '1e5', '0x1F', '12', '3.14', '42abc', 'café', 'İx',
  ' ', ' ', '\n', '\r\n', '\r', '\t', '\u2028', '#', '# note', '"', "'", '"""', "'''", '`', '\\', '\\\n', '\\\r', '\\"', "\\'",
  '//', '/*', '*/', '/', '*', '${', '}', '(', ')', ':', '.', ',', '=', 'TODO', 'parse_http2Request',
];

function randomText(rnd: () => number, pieces: number): string {
  let s = '';
  for (let k = 0; k < pieces; k++) s += FRAGMENTS[Math.floor(rnd() * FRAGMENTS.length)];
  return s;
}

const CASES: [FileLanguage, string][] = [
  ['python', 'src/mod.py'],
  ['text', 'setup.cfg'],
  ['typescript', 'src/a.ts'],
  ['text', 'lib/x.c'],
  ['markdown', 'README.md'],
  ['text', 'notes.txt'],
];

describe('the one-pass lexer', () => {
  it('picks the lexer family by language and path', () => {
    expect(CASES.map(([l, p]) => lexFamily(l, p))).toEqual(['hash', 'hash', 'c', 'c', 'words', 'words']);
  });

  it('cuts literals where the regular expressions do, at their edges', () => {
    const python = [
      'x = """unterminated\nnext_name = 1',
      "y = '''doc''' + 'it\\'s' + \"a\\\"b\"",
      's = "line\\\ncontinued" + tail_name',
      's = "carriage\\\rreturn" + after_cr',
      'n = 1e5 + 0x1F + 12 + 3.14 + 42abc # trailing commentWord',
      'café = naïve_value; $dollar = _',
      '"""closed""" """open',
    ].join('\n');
    const ts = [
      'const a = `tpl ${inner} \\` still`; // lineComment',
      'let b = "str\\"ing" + \'c\\\'d\'; /* blockComment */ after',
      '/* unterminated block\nstillCode = 1',
      'url = "http://x.y/z" + path // real',
      'a/b/c /*/ not closed',
      'const t = `open template',
    ].join('\n');
    for (const [lang, rel, text] of [['python', 'm.py', python], ['typescript', 'm.ts', ts], ['markdown', 'm.md', python + ts]] as const) {
      const ref = referenceLex(lexFamily(lang, rel), text);
      expect(lexText(lang, rel, text)).toEqual(ref);
      expect(lexFields(rel, lang, text)).toEqual([ref.idents.join(' '), ref.text.join(' ')]);
    }
    // What the cut means: a word in a string is text, an unterminated quote leaves code as code.
    const lexed = lexText('python', 'm.py', 'call("quotedWord") # commentWord\nbad = "open\nnextIdent');
    expect(lexed.text).toEqual(['quot', 'word', 'quotedword', 'comment', 'word', 'commentword']);
    expect(lexed.idents).toContain('nextident');
  });

  it('matches the regular expressions on random text of every family', () => {
    const rnd = seededRandom(21);
    for (let k = 0; k < 3000; k++) {
      const text = randomText(rnd, 1 + Math.floor(rnd() * 40));
      const [lang, rel] = CASES[k % CASES.length]!;
      expect(lexText(lang, rel, text), JSON.stringify(text)).toEqual(referenceLex(lexFamily(lang, rel), text));
    }
  });

  it('keeps every identifier apart in its table, past many resizes', () => {
    // 100,000 distinct identifiers (the table starts at 65,536 slots and doubles at half full), then each again.
    const ids = Array.from({ length: 100_000 }, (_, k) => `name${k.toString(36)}Part${k % 7}`);
    const text = ids.join(' ');
    const pieces: string[] = [];
    let at = 0;
    for (const id of ids) {
      pieces.push(pieceAt(text, at, at + id.length));
      at += id.length + 1;
    }
    at = 0;
    ids.forEach((id, k) => {
      const again = pieceAt(text, at, at + id.length);
      at += id.length + 1;
      if (again !== pieces[k]) throw new Error(`${id}: ${again} != ${pieces[k]}`);
    });
    const expected = (id: string) => {
      const out: string[] = [];
      identifierTerms(id, out);
      return out.join(' ');
    };
    expect(pieces[0]).toBe(expected(ids[0]!));
    expect(pieces[99_999]).toBe(expected(ids[99_999]!));
    expect(new Set(pieces).size).toBe(ids.length);
  });
});

describe('splitWords in one pass', () => {
  it('cuts camelCase, capital runs, digits and separators as the regular expressions do', () => {
    expect(splitWords('parseHTTPRequest2')).toEqual(['parse', 'http', 'request', '2']);
    expect(splitWords('ABcDEf')).toEqual(['a', 'bc', 'd', 'ef']);
    expect(splitWords('utf8_to-UTF16le')).toEqual(['utf', '8', 'to', 'utf', '16', 'le']);
    expect(splitWords('x1Y2z')).toEqual(['x', '1', 'y', '2', 'z']);
    expect(splitWords('café-İstanbul')).toEqual(['caf', 'stanbul']);
    const rnd = seededRandom(7);
    const alphabet = 'aAbBzZ0189_-$. é\u0130xXyY';
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      const n = 1 + Math.floor(rnd() * 14);
      for (let j = 0; j < n; j++) s += alphabet[Math.floor(rnd() * alphabet.length)];
      expect(splitWords(s), JSON.stringify(s)).toEqual(referenceSplit(s));
    }
  });
});
