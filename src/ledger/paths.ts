import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Ids used verbatim as a folder name: short, portable characters, not starting with a dot. */
const PLAIN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;
/** Windows reserves these names whatever the extension; never use one as is. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * A run or flow id as one folder name that works on any filesystem: a plain id (letters, digits, `_`, `-`,
 * `.`, at most 64 characters, no leading dot) stays as it is; any other id becomes a readable slug of at most
 * 40 characters, `~`, and 12 hex digits of the sha256 of the id (`~` never occurs in a plain id, so the two
 * forms cannot collide). At most 64 bytes, never `.`/`..`, never a path separator: it cannot leave RUN_BASE.
 */
export function pathSegment(id: string): string {
  if (PLAIN.test(id) && !RESERVED.test(id)) return id;
  const slug = id
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 40)
    .replace(/[._]+$/, '');
  const hash = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 12);
  return `${slug}~${hash}`;
}

/** `RUN_BASE/<run>/<flow>/routing/decisions.jsonl`, each id through `pathSegment`. */
export function decisionsJsonlPath(runBase: string, runId: string, flow: string): string {
  return path.join(runBase, pathSegment(runId), pathSegment(flow), 'routing', 'decisions.jsonl');
}

/**
 * Where run folders (`<run>/<flow>/routing/decisions.jsonl`) go beside a SQLite ledger file: one rule for the CLI and
 * the library (docs/ledger.md, "Run folders"). The ledger's own folder when it is called `runs` (the default
 * `runs/ledger.sqlite`); else a `runs` folder beside the ledger, so `X/ledger.sqlite` keeps its runs in `X/runs/`
 * instead of a folder per run among whatever else `X` holds. A ledger whose run folders an earlier library version
 * wrote straight into its own folder (the mirror's lock file is there, and no `runs/` folder) keeps them there.
 */
export function runFoldersBeside(ledgerFile: string): string {
  const dir = path.dirname(path.resolve(ledgerFile));
  if (path.basename(dir) === 'runs') return dir;
  const beside = path.join(dir, 'runs');
  if (!existsSync(beside) && existsSync(path.join(dir, '.decisions-jsonl.lock'))) return dir;
  return beside;
}
