// The words of a flow's charter, as the charter checks compare them: deterministic, no model, no dictionary.
import { stemmer } from 'stemmer';

// Words that name the kind of thing, not what it does, and English function words: they never decide a match.
const IGNORED = new Set(
  (
    'step flow node agent stage task the a an and or but nor of to for in on at by from into onto with without within any all ' +
    'new is are was were be been being do does did done it its this that these those there here we we\'re re you your our they ' +
    'their them he she his her i me my as if so than then when while where which who whom what why how not no yes can could ' +
    'should would will shall may might must has have had get got make made let up out over under again also just only very ' +
    'more most some such each every one two same other own about after before during through'
  ).split(/\s+/),
);
/** Porter stem (the `stemmer` package, as the navigator's index uses), short words and numbers unchanged. */
function stem(word: string): string {
  return word.length < 3 || /^\d/.test(word) ? word : stemmer(word);
}

/** Significant stems of an id or a phrase: split on non-alphanumerics and camelCase, lower-cased, ignored words dropped. */
export function stems(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .map((w) => w.replace(/'/g, ''))
    .filter((w) => w.length > 1 && !IGNORED.has(w))
    .map(stem);
}

/** The significant stems two texts share, in the order they appear in `text` (deduplicated). */
export function sharedStems(text: string, reference: string): string[] {
  const have = new Set(stems(reference));
  return [...new Set(stems(text).filter((s) => have.has(s)))];
}

/** The charter fields goal alignment compares with. */
export interface CharterGoal {
  goal: string;
  key_question: string;
}

/** What a proposer said a move is for: tier 3's `reason` (and each injected node's `purpose`), the envelope's `purpose`. */
export interface StatedPurpose {
  reason?: string | undefined;
  nodes?: readonly { id: string; purpose?: string | undefined }[] | undefined;
}

function quote(s: string, max = 120): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length <= max ? line : `${line.slice(0, max - 1)}…`);
}

/**
 * The goal-alignment test of seed 003 ("does this decision serve the flow's objective?"), deterministic: a DETOUR,
 * INJECT_FLOW or INJECT_NODES passes when it is the flow's declared fix for the route's failure signature
 * (`declaredFix`, never for INJECT_NODES), or when its stated purpose shares at least one significant word (see
 * `stems`) with the charter's goal or key question. For INJECT_NODES every node's `purpose` (else its id) must;
 * otherwise the `reason` must (none stated shares nothing). Returns why the move is refused, or undefined.
 */
export function goalMisalignment(kind: string, declaredFix: boolean, charter: CharterGoal, purpose: StatedPurpose): string | undefined {
  if (kind !== 'DETOUR' && kind !== 'INJECT_FLOW' && kind !== 'INJECT_NODES') return undefined;
  if (kind !== 'INJECT_NODES' && declaredFix) return undefined;
  const reference = `${charter.goal}\n${charter.key_question}`;
  const goal = `the charter's goal ${quote(charter.goal)} or key question ${quote(charter.key_question)}`;
  if (kind === 'INJECT_NODES') {
    for (const n of purpose.nodes ?? []) {
      const stated = n.purpose?.trim() ? n.purpose : n.id;
      if (sharedStems(stated, reference).length === 0) return `injected node ${n.id}'s purpose ${quote(stated)} shares nothing with ${goal}`;
    }
    return undefined;
  }
  const stated = purpose.reason?.trim() ?? '';
  if (stated === '') return `${kind} states no purpose, and it is not the flow's declared fix for this failure; nothing ties it to ${goal}`;
  if (sharedStems(stated, reference).length === 0) return `its stated purpose ${quote(stated)} shares nothing with ${goal}`;
  return undefined;
}
