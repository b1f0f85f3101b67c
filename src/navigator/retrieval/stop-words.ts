/** Words never used as magic words: English function words and words every codebase is full of. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by can
could did do does doing done down during each either else few for from further get got had has have having he her
here hers how i if in into is it its itself just let like made make many may me might more most much must my need
no nor not now of off on once only or other our out over own per please same she should show so some such than that
the their them then there these they this those through to too under until up upon us use used uses using very via
want was we were what when where which while who whom why will with within without would you your yours
add change changes code file files fix find function functions implement implementation look make method methods
new work works where does thing things way ways part parts
const var return import export default true false null undefined void this self src lib`.split(/\s+/),
);

/** A word that may be a magic word: at least 3 characters, not a number, not a stop word. */
export function isCandidateWord(w: string): boolean {
  return w.length >= 3 && w.length <= 40 && !/^\d+$/.test(w) && !STOP_WORDS.has(w);
}
