import { decisionTargets } from './decision-targets.js';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Decision } from '../contracts/decision.js';
import type { OffRoadRecord } from '../contracts/ledger.js';

/** The decisions.jsonl record of an off-road decision, keys in the published order. */
export function offRoadRecord(step: string, d: Decision, seq: number, ts: string): OffRoadRecord {
  const r: Record<string, unknown> = { step_id: step, decision: d.decision, next_step_id: d.next_step_id, ...decisionTargets(d) };
  if (d.escalation_id !== undefined) r.escalation_id = d.escalation_id;
  r.reason = d.reason;
  r.seq = seq;
  r.tier = d.tier;
  r.rule = d.rule;
  r.ts = ts;
  return r as OffRoadRecord;
}

/** One line of decisions.jsonl, newline included. Same decision, same bytes. */
export function offRoadLine(step: string, d: Decision, seq: number, ts: string): string {
  return JSON.stringify(offRoadRecord(step, d, seq, ts)) + '\n';
}

/** A decisions.jsonl file split into its complete lines (newline included) and a torn tail, if any. */
export interface JsonlContent {
  lines: string[];
  /** Bytes after the last newline: a write interrupted half-way. */
  torn: string | null;
}

export function readJsonl(file: string): JsonlContent {
  if (!existsSync(file)) return { lines: [], torn: null };
  const text = readFileSync(file, 'utf8');
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  return { lines, torn: start < text.length ? text.slice(start) : null };
}

/** Appends lines to decisions.jsonl files, keeping a bounded number of them open. */
export class JsonlWriter {
  private readonly fds = new Map<string, number>();
  constructor(private readonly maxOpen = 64) {}

  append(file: string, text: string): void {
    writeSync(this.fd(file), text);
  }

  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd !== undefined) {
      // Most recently used last.
      this.fds.delete(file);
      this.fds.set(file, fd);
      return fd;
    }
    if (this.fds.size >= this.maxOpen) {
      const [oldest, oldFd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldest);
      closeSync(oldFd);
    }
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(file, 'a');
    this.fds.set(file, fd);
    return fd;
  }

  /** Closes the file, so another writer (a repair) may rewrite its tail. */
  release(file: string): void {
    const fd = this.fds.get(file);
    if (fd !== undefined) {
      this.fds.delete(file);
      closeSync(fd);
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** What repairJsonlFile found and did. `diverged`: the file's complete lines are not a prefix of the database's. */
export interface FileRepair {
  appended: number;
  torn_line_removed: boolean;
  diverged: boolean;
}

/**
 * Brings a decisions.jsonl file up to the lines the database has: cuts a torn last line and appends the
 * missing suffix. A file whose complete lines disagree with the database is left alone (verify reports it):
 * a repair never rewrites what was written.
 */
export function repairJsonlFile(file: string, expected: readonly string[]): FileRepair {
  const { lines, torn } = readJsonl(file);
  for (let i = 0; i < lines.length; i++) {
    if (i >= expected.length || lines[i] !== expected[i]) return { appended: 0, torn_line_removed: false, diverged: true };
  }
  const missing = expected.slice(lines.length);
  if (torn === null && missing.length === 0) return { appended: 0, torn_line_removed: false, diverged: false };
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, existsSync(file) ? 'r+' : 'w');
  try {
    const keep = Buffer.byteLength(lines.join(''), 'utf8');
    if (torn !== null) ftruncateSync(fd, keep);
    if (missing.length > 0) writeSync(fd, missing.join(''), keep);
  } finally {
    closeSync(fd);
  }
  return { appended: missing.length, torn_line_removed: torn !== null, diverged: false };
}
