/** `postgres://` or `postgresql://`: a ledger URL that selects the PostgreSQL store (anything else is a SQLite file path). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location);
}

/** Where a PostgreSQL ledger lives, parsed from its URL; `display` is the URL with the password replaced by `***`. */
export interface PostgresTarget {
  /** The URL handed to the client: the caller's, less navkernel's own `schema` parameter. */
  connectionString: string;
  host: string;
  port: number;
  database: string;
  user: string;
  /** The PostgreSQL schema holding the ledger's tables (`?schema=`; default `public`). */
  schema: string;
  display: string;
  /**
   * Every host of a multi-host URL (`postgres://u@a:5432,b:5433/db`, or `?host=a,b&port=5432,5433` as libpq takes them),
   * in order; one entry for a plain URL. node-postgres connects to one host only: src/ledger/postgres/failover-pool.ts
   * goes down this list when the current host fails.
   */
  hosts: { host: string; port: number }[];
  /** libpq's `target_session_attrs`: `read-write` connects only to a primary (a host not in recovery); default `any`. */
  targetSessionAttrs: 'any' | 'read-write';
}

/** A URL with its password (in the userinfo or a `password=` parameter) replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    // Not parseable: keep the scheme and the host part only.
    const m = /^([a-z]+:\/\/)(?:[^@/]*@)?([^/?#]*)/i.exec(url);
    return m ? `${m[1]}${m[2]}/…` : '<unparseable ledger URL>';
  }
}

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Parses a ledger URL: `postgres://user:password@host:port/database?schema=navkernel&sslmode=require`.
 * Host and port may also come from `?host=` (a socket folder too) and `?port=`, as libpq allows; defaults follow the
 * client's (PGHOST/PGPORT/PGUSER/PGDATABASE, then localhost:5432). `schema` must be a plain lower-case identifier.
 */
export function parsePostgresUrl(url: string): PostgresTarget {
  // Several hosts in the authority (`a:1,b:2`): WHATWG URL refuses them; parse the first, keep the list.
  let listed: { host: string; port: number }[] | undefined;
  const m = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i.exec(url);
  if (m && m[3]!.includes(',')) {
    listed = m[3]!.split(',').map((hp) => {
      const i = hp.lastIndexOf(':');
      return i > 0 && !hp.endsWith(']') ? { host: decodeURIComponent(hp.slice(0, i)), port: Number(hp.slice(i + 1)) } : { host: decodeURIComponent(hp), port: NaN };
    });
    url = `${m[1]}${m[2] ?? ''}${m[3]!.split(',')[0]}${m[4]}`;
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError(`not a valid PostgreSQL URL: ${redactUrl(url)} (expected postgres://user:password@host:port/database)`);
  }
  if (!isPostgresUrl(url)) throw new TypeError(`not a PostgreSQL URL: ${redactUrl(url)}`);
  const schema = u.searchParams.get('schema') ?? 'public';
  if (!IDENT.test(schema)) throw new TypeError(`schema ${JSON.stringify(schema)} in ${redactUrl(url)}: use lower-case letters, digits and _`);
  u.searchParams.delete('schema');
  const tsa = u.searchParams.get('target_session_attrs') ?? 'any';
  if (tsa !== 'any' && tsa !== 'read-write') throw new TypeError(`target_session_attrs=${tsa} in ${redactUrl(url)}: navkernel supports any and read-write`);
  u.searchParams.delete('target_session_attrs');
  const defaultPort = Number(process.env.PGPORT || 5432);
  const qHost = u.searchParams.get('host');
  const qPort = u.searchParams.get('port');
  if (!listed && qHost && qHost.includes(',')) {
    const ports = (qPort ?? '').split(',');
    listed = qHost.split(',').map((h, i) => ({ host: h, port: Number(ports[i] || ports[0] || NaN) }));
    u.searchParams.delete('host');
    u.searchParams.delete('port');
    u.hostname = listed[0]!.host.startsWith('/') ? 'localhost' : listed[0]!.host;
  }
  const hosts = listed?.map((h) => ({ host: h.host, port: Number.isFinite(h.port) ? h.port : defaultPort }));
  if (hosts && hosts.some((h) => !h.host || !Number.isInteger(h.port) || h.port <= 0)) throw new TypeError(`a host list in ${redactUrl(url)} has an empty host or a bad port`);
  const host = hosts?.[0]!.host ?? (u.searchParams.get('host') || decodeURIComponent(u.hostname) || process.env.PGHOST || 'localhost');
  const port = hosts?.[0]!.port ?? Number(u.searchParams.get('port') || u.port || defaultPort);
  const user = decodeURIComponent(u.username) || u.searchParams.get('user') || process.env.PGUSER || process.env.USER || 'postgres';
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || process.env.PGDATABASE || user;
  const display = listed ? redactUrl(url).replace(/^([a-z]+:\/\/(?:[^@/]*@)?)[^/?#]*/i, `$1${listed.map((h) => `${h.host}:${Number.isFinite(h.port) ? h.port : defaultPort}`).join(',')}`) : redactUrl(url);
  return { connectionString: u.toString(), host, port, database, user, schema, display, hosts: hosts ?? [{ host, port }], targetSessionAttrs: tsa };
}
