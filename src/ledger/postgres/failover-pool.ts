// A connection pool over a list of hosts (a primary and its standbys): node-postgres 8 connects to one host only and
// ignores libpq's `host=a,b` and `target_session_attrs`, so this module does what libpq does. It keeps one pg.Pool on
// the current host; when connecting there fails (the server is gone), it probes the hosts in order and moves to the
// first that accepts a connection and, with `target_session_attrs=read-write`, is not in recovery (a promoted standby).
//
// Only establishing a connection is ever retried elsewhere: a statement that fails mid-way fails to its caller (the
// ledger then asks the database which of its routes committed, src/ledger/postgres/postgres-ledger.ts), because a
// statement whose connection died may have committed.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { isConnectionError } from './errors.js';

type PgModule = typeof pg;
const WATCHED = new WeakSet<object>();

export class FailoverPool extends EventEmitter {
  private readonly pools = new Map<number, pg.Pool>();
  /** Index of the host in use; -1 until the first probe. */
  private current = -1;
  private probing: Promise<number> | undefined;
  /** Times the pool moved to another host (for figures and logs). */
  switches = 0;

  constructor(
    private readonly pgModule: PgModule,
    private readonly hosts: readonly { host: string; port: number }[],
    private readonly config: pg.PoolConfig,
    private readonly readWrite: boolean,
  ) {
    super();
  }

  /** The host in use (`host:port`), or undefined before the first connection. */
  get currentHost(): string | undefined {
    const h = this.hosts[this.current];
    return h ? `${h.host}:${h.port}` : undefined;
  }

  private poolAt(i: number): pg.Pool {
    let p = this.pools.get(i);
    if (!p) {
      const h = this.hosts[i]!;
      p = new this.pgModule.Pool({ ...this.config, host: h.host, port: h.port });
      // An idle client whose server went away: the pool drops it; the next connect notices and fails over.
      p.on('error', (err) => this.emit('error', err));
      this.pools.set(i, p);
    }
    return p;
  }

  /**
   * Finds the host to use: each host in turn from the one after `failed`, the first that answers and (read-write) is
   * not in recovery. One probe at a time; concurrent callers share it. Throws the last connection error when none fits.
   */
  private probe(failed: number): Promise<number> {
    if (this.probing) return this.probing;
    this.probing = (async () => {
      let last: unknown = new Error('no host accepted a read-write connection');
      const n = this.hosts.length;
      for (let k = 1; k <= n; k++) {
        const i = (Math.max(failed, -1) + k + n) % n;
        const h = this.hosts[i]!;
        const c = new this.pgModule.Client({ ...this.config, host: h.host, port: h.port, connectionTimeoutMillis: Math.min(3000, this.config.connectionTimeoutMillis ?? 3000) });
        c.on('error', () => {});
        try {
          await c.connect();
          if (this.readWrite) {
            const r = await c.query<{ ro: boolean }>('SELECT pg_is_in_recovery() AS ro');
            if (r.rows[0]!.ro) {
              const e = new Error(`${h.host}:${h.port} is a standby (in recovery), not read-write`) as Error & { code: string };
              e.code = '25006';
              last = e;
              continue;
            }
          }
          if (i !== this.current) {
            const old = this.pools.get(this.current);
            this.pools.delete(this.current);
            if (this.current !== -1) this.switches++;
            this.current = i;
            void old?.end().catch(() => {});
          }
          return i;
        } catch (err) {
          last = err;
        } finally {
          await c.end().catch(() => {});
        }
      }
      throw last;
    })().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  async connect(): Promise<pg.PoolClient> {
    if (this.current === -1) await this.probe(-1);
    const at = this.current;
    let client: pg.PoolClient;
    try {
      client = await this.poolAt(at).connect();
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      // Nothing was sent: safe to go to another host.
      await this.probe(at);
      client = await this.poolAt(this.current).connect();
    }
    // A connection cut while checked out emits 'error' on the client as well as failing its query: the query's
    // rejection is what callers handle; without a listener the event would crash the process.
    if (!WATCHED.has(client)) {
      WATCHED.add(client);
      client.on('error', () => {});
    }
    return client;
  }

  /** pg.Pool's query: one statement on a pooled connection of the current host (not retried elsewhere once sent). */
  async query(...args: unknown[]): Promise<pg.QueryResult> {
    const client = await this.connect();
    let broken: Error | undefined;
    try {
      return await (client.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args);
    } catch (err) {
      // A read-only answer means the host was demoted (or a standby was picked up): look for the primary next time.
      if ((err as { code?: string }).code === '25006') void this.probe(this.current).catch(() => {});
      if (isConnectionError(err)) broken = err as Error;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((p) => p.end().catch(() => {})));
  }
}
