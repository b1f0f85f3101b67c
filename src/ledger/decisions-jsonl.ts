import { decisionTargets } from '../contracts/decision-targets.js';
import { closeSync, existsSync, ftruncateSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
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

/** Reads a decisions.jsonl file; refuses anything but a regular file (a FIFO or a device could hang or never end). */
export function readJsonl(file: string): JsonlContent {
  if (!existsSync(file)) return { lines: [], torn: null };
  if (!lstatSync(file).isFile()) throw new Error(`${file} is not a regular file`);
  const text = readFileSync(file, 'utf8');
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  return { lines, torn: start < text.length ? text.slice(start) : null };
}

/** What repairJsonlFile found and did. `diverged`: the file's complete lines are not a prefix of the database's. */
export interface FileRepair {
  appended: number;
  torn_line_removed: boolean;
  diverged: boolean;
  /** The file's size in bytes afterwards. */
  size: number;
}

/**
 * Brings a decisions.jsonl file up to the lines the database has: cuts a torn last line and appends the
 * missing suffix. A file whose complete lines disagree with the database is left alone (verify reports it):
 * a repair never rewrites what was written.
 */
export function repairJsonlFile(file: string, expected: readonly string[]): FileRepair {
  const { lines, torn } = readJsonl(file);
  for (let i = 0; i < lines.length; i++) {
    if (i >= expected.length || lines[i] !== expected[i]) return { appended: 0, torn_line_removed: false, diverged: true, size: -1 };
  }
  const missing = expected.slice(lines.length);
  const keep = Buffer.byteLength(lines.join(''), 'utf8');
  if (torn === null && missing.length === 0) return { appended: 0, torn_line_removed: false, diverged: false, size: keep };
  const exists = existsSync(file);
  if (!exists) mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, exists ? 'r+' : 'w');
  let size: number;
  try {
    if (torn !== null) ftruncateSync(fd, keep);
    if (missing.length > 0) {
      const text = missing.join('');
      const n = writeSync(fd, text, keep);
      if (n !== Buffer.byteLength(text, 'utf8')) throw new Error(`short write to ${file}`);
      size = keep + n;
    } else {
      size = keep;
    }
  } finally {
    closeSync(fd);
  }
  return { appended: missing.length, torn_line_removed: torn !== null, diverged: false, size };
}
