// A throwaway PostgreSQL primary and a streaming standby on this machine (for the failover test, the crash scenario
// and the bench): initdb, start the primary with WAL senders, pg_basebackup -R the standby, start it, and wait until it
// streams (`sync`: as the primary's synchronous standby, so a commit is acknowledged only once the standby has its WAL).
// As root the servers run as the `postgres` user (initdb and postgres refuse root). A watchdog stops both and deletes
// the folder if this process dies, even by SIGKILL.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PostgresPair {
  /** Multi-host URL: primary first, standby second, `target_session_attrs=read-write`. */
  url: string;
  primaryUrl: string;
  standbyUrl: string;
  primaryPort: number;
  standbyPort: number;
  /** Kill the primary as a crash would (immediate shutdown: no checkpoint, connections cut). */
  killPrimary(): void;
  /** Promote the standby to primary and wait until it accepts writes. */
  promoteStandby(): void;
  /** Waits until the standby has replayed everything the primary has written so far. */
  waitCaughtUp(): void;
  /** Stop / start the standby (to show what asynchronous replication loses). */
  stopStandby(): void;
  startStandby(): void;
  /** Stop both servers and delete the folder. */
  stop(): void;
}

function findBin(): string {
  if (process.env.PG_BIN && existsSync(path.join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base) ? readdirSync(base).filter((d) => /^\d+$/.test(d) && existsSync(path.join(base, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!majors.length) throw new Error('no PostgreSQL under /usr/lib/postgresql (set PG_BIN)');
  return path.join(base, majors[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts the pair. `sync` (default true): synchronous_standby_names names the standby on the primary. */
export async function startPostgresPair(options: { sync?: boolean } = {}): Promise<PostgresPair> {
  const sync = options.sync ?? true;
  const bin = findBin();
  const root = process.getuid?.() === 0;
  const as = root ? ['runuser', '-u', 'postgres', '--'] : [];
  const run = (cmd: string, args: string[]) => execFileSync(as.length ? as[0]! : path.join(bin, cmd), as.length ? [...as.slice(1), path.join(bin, cmd), ...args] : args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const tmp = mkdtempSync(path.join(tmpdir(), 'navkernel-pgpair-'));
  chmodSync(tmp, 0o755);
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(tmp, uid, gid);
  }
  const p = path.join(tmp, 'primary');
  const s = path.join(tmp, 'standby');
  const [pp, sp] = [await freePort(), await freePort()];
  const common = `-k ${tmp} -c listen_addresses=127.0.0.1 -c max_connections=100 -c fsync=off -c full_page_writes=off -c wal_level=replica -c max_wal_senders=5 -c wal_keep_size=256MB`;
  const start = (dir: string, port: number, extra = '') => run('pg_ctl', ['-D', dir, '-l', `${dir}.log`, '-w', '-t', '60', 'start', '-o', `-p ${port} ${common} ${extra}`]);
  const stopAt = (dir: string) => {
    try {
      if (existsSync(path.join(dir, 'postmaster.pid'))) run('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already gone
    }
  };
  // The watchdog: if this process dies without stop(), stop both servers and delete the folder.
  const prefix = as.length ? `${as.join(' ')} ` : '';
  const watchdog = spawn(
    'bash',
    ['-c', `trap '' INT TERM HUP; while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; for d in ${p} ${s}; do [ -f $d/postmaster.pid ] && ${prefix}${bin}/pg_ctl -D $d -m immediate -w stop >/dev/null 2>&1; done; rm -rf ${tmp}`],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  const stop = () => {
    stopAt(s);
    stopAt(p);
    try {
      process.kill(watchdog.pid!);
    } catch {
      // gone
    }
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    run('initdb', ['-D', p, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions']);
    start(p, pp, '-c synchronous_commit=on');
    execFileSync(path.join(bin, 'psql'), ['-X', '-q', '-h', '127.0.0.1', '-p', String(pp), '-U', 'postgres', '-d', 'postgres', '-c', 'CREATE DATABASE navkernel_test'], { stdio: 'ignore' });
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pp), '-U', 'postgres', '-D', s, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    // The standby's name on the primary (what synchronous_standby_names matches).
    appendFileSync(path.join(s, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${pp} user=postgres application_name=standby1'\n`);
    start(s, sp);
    const psql = (port: number, sql: string) =>
      execFileSync(path.join(bin, 'psql'), ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', sql]).toString().trim();
    // Synchronous only now that the standby exists (commits, CREATE DATABASE included, would wait for it), and by
    // ALTER SYSTEM after the base backup, so the standby does not inherit it: once promoted, it runs alone.
    if (sync) {
      psql(pp, "ALTER SYSTEM SET synchronous_standby_names = 'standby1'");
      psql(pp, 'SELECT pg_reload_conf()');
    }
    const want = sync ? 'sync' : 'async';
    const t0 = Date.now();
    while (psql(pp, "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'") !== want) {
      if (Date.now() - t0 > 30_000) throw new Error(`the standby did not start streaming (${want}) within 30 s`);
      execFileSync('sleep', ['0.2']);
    }
    const url = (ports: number[]) => `postgres://postgres@${ports.map((x) => `127.0.0.1:${x}`).join(',')}/navkernel_test`;
    return {
      url: `${url([pp, sp])}?target_session_attrs=read-write`,
      primaryUrl: url([pp]),
      standbyUrl: url([sp]),
      primaryPort: pp,
      standbyPort: sp,
      killPrimary: () => stopAt(p),
      promoteStandby: () => {
        run('pg_ctl', ['-D', s, '-w', '-t', '60', 'promote']);
      },
      waitCaughtUp: () => {
        const t = Date.now();
        while (psql(pp, "SELECT coalesce(bool_and(replay_lsn >= pg_current_wal_lsn()), false) FROM pg_stat_replication WHERE application_name = 'standby1'") !== 't') {
          if (Date.now() - t > 30_000) throw new Error('the standby did not catch up within 30 s');
          execFileSync('sleep', ['0.1']);
        }
      },
      stopStandby: () => run('pg_ctl', ['-D', s, '-m', 'fast', '-w', 'stop']),
      startStandby: () => start(s, sp),
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}
