// Go programs' output quoted in an issue: standard-log lines, structured log records and wrapped error chains, read as messages found in Go code.
import { ablated } from '../../ablation.js';
import type { IssueEvidence } from '../read-issue.js';
import { resolveMessages } from './messages.js';
import type { Credit, RepoView } from './repo-view.js';

/** The standard `log` package's prefix (`2025/06/11 09:14:02 `, with microseconds and a file:line optional). */
const STD_LOG = /^\s*\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?\s+(?:[\w.-]+\.go:\d+:\s+)?(.+)$/;
/** A structured record's text fields: JSON (`"msg":"…"`) or logfmt (`msg="…"`, `err=…`). */
const RECORD_FIELD = /(?:"(?:msg|message|error|err)"\s*:\s*"((?:\\.|[^"\\])*)"|(?<![\w"])(?:msg|error|err)=(?:"((?:\\.|[^"\\])*)"|(\S+)))/g;
const MAX_MESSAGES = 8;

/**
 * The messages a Go program printed, as an issue quotes them in its code blocks. A Go error is a chain of wrapped
 * layers (`health: client info: redis: unexpected client info flags(T)`), each spelled by its own `fmt.Errorf` or
 * `errors.New`, so each layer of three words or more is a message; a line of the standard logger loses its
 * timestamp, a JSON or logfmt record gives its `msg` and `error` fields. Lines with no such shape are left alone.
 */
export function goOutputMessages(ev: IssueEvidence): string[] {
  const out: string[] = [];
  const addChain = (text: string) => {
    for (const layer of text.split(/:\s+/)) {
      const m = layer.trim().replace(/^["'`]|["'`,]$/g, '');
      if ((m.match(/[A-Za-z]{2,}/g) ?? []).length >= 3 && !out.includes(m) && out.length < MAX_MESSAGES) out.push(m);
    }
  };
  for (const seg of ev.segments) {
    if (seg.kind !== 'code') continue;
    for (const line of seg.text.split('\n')) {
      const std = STD_LOG.exec(line);
      if (std) {
        addChain(std[1]!);
        continue;
      }
      for (const f of line.matchAll(RECORD_FIELD)) addChain((f[1] ?? f[2] ?? f[3] ?? '').replace(/\\(.)/g, '$1'));
    }
  }
  return out.filter((m) => !ev.messages.includes(m));
}

/**
 * Finds the Go code that prints the output an issue quotes: the messages above, matched like quoted error messages
 * (windows of their words in order, one word standing for a `%s`/`%v`/`%d`), credited in `.go` files only.
 */
export function resolveGoOutputLines(view: RepoView, ev: IssueEvidence): Credit[] {
  if (ablated('go-output-lines')) return [];
  const messages = goOutputMessages(ev);
  if (!messages.length) return [];
  const credits = resolveMessages(view, { ...ev, messages, quoted: [] });
  return credits.filter((c) => (c.to === 'definition' ? c.ref.file.path : c.path).endsWith('.go'));
}
