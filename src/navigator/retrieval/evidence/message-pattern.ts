/**
 * How a message quoted in an issue is looked for in the code that prints it. The issue quotes the output (`'src'
 * is not a directory`); the code spells it with placeholders (`"'{}' is not a directory"`, `"%s is not a
 * directory"`, `` `${dir} is not a directory` ``). A window of the message's words is found when its words occur in
 * order with only punctuation between them, one of them standing for a placeholder of the common formatting
 * styles (Rust/Python `{}`/`{name}`/`{0}`, printf `%s`/`%d`/`%-5.2f`, JS/Kotlin `${x}`, Java `{0}`, Go `%v`).
 */

const PLACEHOLDER = String.raw`(?:\{[\w.:#?<>^+\-]{0,24}\}|%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]|\$\{[^{}\n]{1,40}\}|\$[A-Za-z_]\w*)`;
const SEP = '[^A-Za-z0-9]{1,12}';
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The pattern of a window of words: all literal, or one of them a placeholder (at most one). Case-insensitive. */
export function windowPattern(words: readonly string[]): RegExp {
  const lit = words.map(escapeRe);
  const variants = [lit.join(SEP)];
  // A placeholder may stand for a word only where the window keeps two literal words besides.
  if (words.length >= 3) for (let i = 0; i < words.length; i++) variants.push(lit.map((w, j) => (j === i ? PLACEHOLDER : w)).join(SEP));
  return new RegExp(`(?<![A-Za-z0-9])(?:${variants.join('|')})(?![A-Za-z0-9])`, 'i');
}
