import path from 'node:path';

/**
 * A run or flow id as one safe path segment: letters, digits, `_`, `-` and `.` stay, anything else
 * (and a leading dot) becomes %XX, so `../x` can never leave RUN_BASE and distinct ids stay distinct.
 */
export function pathSegment(id: string): string {
  let out = '';
  for (const ch of id) {
    if (/[A-Za-z0-9_-]/.test(ch) || (ch === '.' && out.length > 0)) out += ch;
    else out += [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** `RUN_BASE/<run_id>/<flow>/routing/decisions.jsonl`. */
export function decisionsJsonlPath(runBase: string, runId: string, flow: string): string {
  return path.join(runBase, pathSegment(runId), pathSegment(flow), 'routing', 'decisions.jsonl');
}
