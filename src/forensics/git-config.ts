/**
 * The entries of one git config file (`[section "sub"] key = value`), as git's own syntax has them: comments,
 * quoted values with escapes, line continuations, keys and section names case-insensitive, subsections not.
 * Includes (`include.path`, `includeIf`) are not followed: only the repository's own file is read, and no value
 * is ever run. Lookups give the last value of a key (git's rule), or all of a multi-valued one.
 */
export class GitConfig {
  private readonly entries: { key: string; value: string }[] = [];

  constructor(text: string) {
    let section = '';
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!.replace(/\r$/, '');
      const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
      if (header) {
        const [, name, sub, rest] = header;
        // `[section.sub]` is the old spelling of `[section "sub"]`, its subsection lower-cased.
        const dot = name!.indexOf('.');
        section = sub !== undefined ? `${name!.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}` : dot < 0 ? name!.toLowerCase() : `${name!.slice(0, dot).toLowerCase()}.${name!.slice(dot + 1).toLowerCase()}`;
        line = rest!;
        if (!line.trim() || /^\s*[#;]/.test(line)) continue;
      }
      const m = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=\s*(.*))?$/.exec(line);
      if (!m || !section) continue;
      if (m[2] === undefined) {
        this.entries.push({ key: `${section}.${m[1]!.toLowerCase()}`, value: 'true' });
        continue;
      }
      let raw = m[3]!;
      // A value continues on the next line when it ends in an unescaped backslash.
      while (/(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i]!.replace(/\r$/, '');
      this.entries.push({ key: `${section}.${m[1]!.toLowerCase()}`, value: parseValue(raw) });
    }
  }

  /** `section.subsection.key` (section and key in any case, the subsection exact). */
  get(key: string): string | undefined {
    const k = normalise(key);
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.key === k) return this.entries[i]!.value;
    return undefined;
  }

  getAll(key: string): string[] {
    const k = normalise(key);
    return this.entries.filter((e) => e.key === k).map((e) => e.value);
  }
}

function normalise(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}.${key.slice(last + 1).toLowerCase()}`;
}

/** A value as git reads it: quotes removed, `\n \t \b \" \\` decoded, an unquoted `#` or `;` starts a comment. */
function parseValue(raw: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (!quoted && (c === '#' || c === ';')) break;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      out += pendingSpace + (n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n);
      pendingSpace = '';
      continue;
    }
    if (!quoted && (c === ' ' || c === '\t')) {
      if (out) pendingSpace += c;
      continue;
    }
    out += pendingSpace + c;
    pendingSpace = '';
  }
  return out;
}
