// RESULTS.md as named sections: each is written under its `## ` heading (a level no body may use) with a
// marker naming the bench section that produced it, so that `--only NAME` replaces that section and keeps every
// other one as it was.

/** A section as written: the bench section's name (SECTIONS), its title and its markdown body. */
export interface ResultsSection {
  name: string;
  title: string;
  body: string;
}

const MARKER = /^<!-- bench-section: ([\w-]+) -->$/m;

/** The text of one section: its heading, its marker, its body. */
export function sectionText(s: ResultsSection): string {
  return `## ${s.title}\n<!-- bench-section: ${s.name} -->\n\n${s.body}`;
}

/** The whole file from a header and sections in order. */
export function resultsText(header: string, sections: readonly ResultsSection[]): string {
  return [header, ...sections.map(sectionText)].join('\n\n') + '\n';
}

interface Chunk {
  /** The bench section it came from, when known (its marker, or for files written before markers, its title). */
  name?: string;
  text: string;
}

/** The part of a title before its colon: "Scaling: ledger size, …" → "Scaling". */
const titleKey = (title: string) => title.split(':')[0]!.trim();

/**
 * `existing` (a RESULTS.md) with the sections in `ran` replaced (or, when new, inserted where `order` puts
 * them), every other section kept byte for byte, and one header line per re-run section saying when it ran
 * alone. A section without a marker (a file written before markers) is recognised by the text of its title
 * before the colon.
 */
export function mergeResults(existing: string, ran: readonly ResultsSection[], order: readonly string[], note: string): string {
  const parts = existing.replace(/\n+$/, '').split(/^(?=## )/m);
  let header = parts[0]!.replace(/\n+$/, '');
  const byKey = new Map(ran.map((s) => [titleKey(s.title), s.name]));
  const chunks: Chunk[] = parts.slice(1).map((text) => {
    text = text.replace(/\n+$/, '');
    const marked = MARKER.exec(text)?.[1];
    const name = marked ?? byKey.get(titleKey(text.slice(3, text.indexOf('\n') < 0 ? undefined : text.indexOf('\n'))));
    return name === undefined ? { text } : { name, text };
  });
  for (const s of ran) {
    const fresh: Chunk = { name: s.name, text: sectionText(s) };
    const at = chunks.findIndex((c) => c.name === s.name);
    if (at >= 0) {
      chunks[at] = fresh;
      continue;
    }
    // A new section goes after the last known one that comes before it in `order`, else before the first known
    // one that comes after it, else last.
    const rank = (c: Chunk) => (c.name === undefined ? -1 : order.indexOf(c.name));
    const mine = order.indexOf(s.name);
    const after = chunks.findLastIndex((c) => rank(c) >= 0 && rank(c) < mine);
    const before = chunks.findIndex((c) => rank(c) > mine);
    chunks.splice(after >= 0 ? after + 1 : before >= 0 ? before : chunks.length, 0, fresh);
  }
  for (const s of ran) {
    const line = `- Section \`${s.name}\` re-run alone`;
    header = header
      .split('\n')
      .filter((l) => !l.startsWith(`${line} `))
      .join('\n');
    header += `\n${line} ${note}`;
  }
  return [header, ...chunks.map((c) => c.text)].join('\n\n') + '\n';
}
