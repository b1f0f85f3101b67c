// Go config keys: the keys of a YAML, JSON, INI/TOML snippet or a URL query in an issue, resolved to the Go struct that declares them.
import { ablated } from '../../ablation.js';
import { stemOf, wholeOf } from '../../terms.js';
import type { IssueEvidence } from '../read-issue.js';
import { type Credit, type RepoView, creditDefinition, escapeRe, innermost, lineAt } from './repo-view.js';
import { EVIDENCE_WEIGHTS } from './weights.js';

const YAML_KEY = /^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:(?=\s|$)/;
const JSON_KEY = /"([A-Za-z_][\w-]*)"\s*:/g;
const INI_KEY = /^\s*([A-Za-z_][\w-]*)\s*=\s*(?:"[^"]*"|'[^']*'|[\w./:@,-]+)\s*(?:[#;].*)?$/;
const QUERY_KEY = /[?&]([A-Za-z_][\w-]*)=/g;
/** Words that end in a colon at the start of output lines (`panic: …`, `Error: …`, a URL's scheme), not settings. */
const NOT_KEYS = new Set(['error', 'panic', 'fatal', 'signal', 'warning', 'warn', 'info', 'debug', 'note', 'http', 'https']);
/** A JSON object on one line is a record the program printed (a structured log line), not a setting the user wrote. */
const RECORD = /^\s*\{.*\}\s*,?\s*$/;
const MAX_KEYS = 40;

/** Keys written in the issue's code blocks as settings (`max_conns: 10`, `"maxConns": 10`, `max_conns = 10`, `?max_conns=10`), first seen first. */
export function configKeys(ev: IssueEvidence): string[] {
  const out: string[] = [];
  const add = (k: string) => {
    if (k.length >= 3 && !NOT_KEYS.has(k.toLowerCase()) && !out.includes(k) && out.length < MAX_KEYS) out.push(k);
  };
  for (const seg of ev.segments) {
    for (const m of seg.text.matchAll(QUERY_KEY)) add(m[1]!);
    if (seg.kind !== 'code') continue;
    for (const line of seg.text.split('\n')) {
      const y = YAML_KEY.exec(line) ?? INI_KEY.exec(line);
      if (y) add(y[1]!);
      if (!RECORD.test(line)) for (const m of line.matchAll(JSON_KEY)) add(m[1]!);
    }
  }
  return out;
}

/** A key as Go's decoders compare it to a field's name: case and separators aside (`max_conns`, `MaxConns`, `max-conns`). */
const folded = (k: string) => k.toLowerCase().replace(/[-_]/g, '');

/**
 * An issue about a setting shows the setting as the user writes it: a config file's key, a JSON body's field, a
 * connection URL's parameter. In Go the key is declared once, on a struct: as a field tag (`yaml:"max_conns"`,
 * `json:"maxConns,omitempty"`, `mapstructure:"…"`) or, with no tag, as the field's own name, which Go's decoders match
 * case-insensitively (`MaxConns`). The words of a long report drown a key among many common ones; this credits the
 * struct types that declare the snippet's keys, so the struct declaring most of them ranks first (a key declared by
 * many structs counts less). Only `.go` files, and only the files holding one of the key's index terms are read.
 */
export function resolveGoConfigKeys(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('go-config-keys')) return [];
  const keys = configKeys(ev);
  if (!keys.length) return [];
  const out: Credit[] = [];
  for (const key of keys) {
    const whole = wholeOf(key);
    if (whole.length < 3) continue;
    const candidates = [...new Set([whole, stemOf(whole)].flatMap((t) => view.text.filesWith(t)))].filter((p) => p.endsWith('.go') && view.classOf(p) !== 'test').sort();
    const tag = new RegExp(`\\b[a-z]+:"${escapeRe(key)}[,"]`);
    const field = new RegExp(`^[ \\t]+([A-Z]\\w*)[ \\t]+[\\w*\\[\\]{}.]`, 'gm');
    const found = new Map<string, { file: string; i: number; line: number }>();
    for (const p of candidates) {
      const f = view.byPath.get(p);
      if (!f) continue;
      const t = view.textOf(p);
      const hits: number[] = [];
      const m = tag.exec(t);
      if (m) hits.push(m.index);
      for (const fm of t.matchAll(field)) if (folded(fm[1]!) === folded(key)) hits.push(fm.index);
      for (const at of hits) {
        const line = lineAt(t, at);
        const i = innermost(f.outline.defs, line);
        if (i === undefined || f.outline.defs[i]!.kind !== 'type') continue;
        const k = `${p}#${i}`;
        if (!found.has(k)) found.set(k, { file: p, i, line });
      }
    }
    if (!found.size) continue;
    const files = new Set([...found.values()].map((h) => h.file)).size;
    const spread = Math.max(1, Math.sqrt(files / 2));
    for (const h of found.values()) out.push(creditDefinition({ file: view.byPath.get(h.file)!, i: h.i }, EVIDENCE_WEIGHTS.configKey / spread, `config key "${key}" at line ${h.line}`, h.line));
  }
  return out;
}
