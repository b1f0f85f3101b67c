import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '../sqlite-driver.js';

/** The lock file of a RUN_BASE: a run folder never starts with a dot, so it cannot collide with one. */
export function mirrorLockPath(runBase: string): string {
  return path.join(runBase, '.decisions-jsonl.lock');
}

/**
 * The lock every decisions.jsonl writer of a RUN_BASE holds while it writes: the mirror's flushes and repairs,
 * in any thread of any process. It is a write lock on a small SQLite file beside the run folders (never
 * written: `BEGIN IMMEDIATE` then `COMMIT`), so the operating system releases it when a holder dies.
 *
 * It is not the ledger's write lock on purpose: the mirror writes on its own thread, and holding the ledger's
 * lock there would make the routing thread's commits wait (SQLite's busy handler sleeps at least 1 ms). What the
 * files need is only that two writers never write at once; lines come from committed rows either way.
 */
export class MirrorLock {
  private db: Database.Database | undefined;
  private tx: ((fn: () => unknown) => unknown) | undefined;

  /** `ledgerFile`: RUN_BASE is created for the lock only while the ledger exists (a removed folder is not brought back). */
  constructor(
    readonly file: string,
    private readonly busyTimeoutMs = 15_000,
    private readonly ledgerFile?: string,
  ) {}

  exclusive<T>(fn: () => T): T {
    if (!this.tx) {
      const dir = path.dirname(this.file);
      if (!existsSync(dir)) {
        if (this.ledgerFile !== undefined && !existsSync(this.ledgerFile)) throw new Error(`the ledger ${this.ledgerFile} is gone`);
        mkdirSync(dir, { recursive: true });
      }
      this.db = new (sqliteDriver())(this.file);
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.busyTimeoutMs))}`);
      const t = this.db.transaction((f: () => unknown) => f());
      this.tx = (f) => (t as unknown as { immediate: (g: () => unknown) => unknown }).immediate(f);
    }
    return this.tx(fn) as T;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.tx = undefined;
  }
}
