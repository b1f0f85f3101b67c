/** Result of pulling a JSON value out of model text. */
export type ExtractJsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Pulls a JSON value out of unreliable model output (seed 004's extractor): strip markdown fences,
 * try a direct parse, then bracket-match the first balanced `{…}` or `[…]` (string-aware) and parse that.
 */
export function extractJson(text: string): ExtractJsonResult {
  const trimmed = stripFences(text.trim());
  if (trimmed === '') return { ok: false, error: 'empty answer' };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    // fall through to bracket matching
  }
  for (let start = firstOpener(trimmed, 0); start !== -1; start = firstOpener(trimmed, start + 1)) {
    const end = matchingClose(trimmed, start);
    if (end === -1) continue;
    try {
      return { ok: true, value: JSON.parse(trimmed.slice(start, end + 1)) };
    } catch {
      // try the next opener
    }
  }
  return { ok: false, error: 'no parseable JSON object in the answer' };
}

function stripFences(text: string): string {
  const fenced = /```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  if (fenced?.[1] !== undefined) return fenced[1].trim();
  // An opening fence whose closing fence was cut off.
  return text.replace(/^```[A-Za-z0-9_-]*[ \t]*\r?\n?/, '').trim();
}

function firstOpener(text: string, from: number): number {
  for (let i = from; i < text.length; i++) if (text[i] === '{' || text[i] === '[') return i;
  return -1;
}

/** Index of the bracket closing the one at `start`, skipping brackets inside JSON strings; -1 if unbalanced. */
function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
