// One tokenizer for the whole package: gpt-tokenizer (the repo map counts o200k_base with it; the LLM estimates
// count cl100k_base). Its counts equal js-tiktoken's and it runs several times faster (measured: issue 13).
/** Counts the tokens of a text. */
export interface TokenCounter {
  count(text: string): number;
}

let tokenizer: Promise<TokenCounter> | undefined;
/** Special tokens such as `<|endoftext|>` count as plain text instead of throwing. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** The cl100k_base tokenizer, loaded on first use (its ranks are 1 MB: the CLI must not pay for them at start-up). */
export function loadTokenizer(): Promise<TokenCounter> {
  tokenizer ??= import('gpt-tokenizer/encoding/cl100k_base').then((mod) => ({ count: (text: string) => mod.countTokens(text, PLAIN_TEXT) }));
  return tokenizer;
}

// BPE merges are quadratic on long runs without whitespace (minified code, base64): cut them first.
const LONG_RUN = /\S{200,}/g;

/** Splits runs of 200+ non-space characters so the encoder stays linear. Counts change by at most a token per cut. */
export function splitLongRuns(text: string): string[] {
  const pieces: string[] = [];
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    pieces.push(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += 200) pieces.push(m[0].slice(i, i + 200));
    last = m.index + m[0].length;
  }
  pieces.push(text.slice(last));
  return pieces.filter((p) => p !== '');
}

/** Tokens of `text` with a loaded tokenizer (special tokens such as `<|endoftext|>` count as text). */
export function countTokensWith(enc: TokenCounter, text: string): number {
  let n = 0;
  for (const piece of splitLongRuns(text)) n += enc.count(piece);
  return n;
}

/** Tokens of `text` by cl100k_base: an estimate for Claude and Gemini, whose tokenizers are not public. */
export async function countTokens(text: string): Promise<number> {
  return countTokensWith(await loadTokenizer(), text);
}
