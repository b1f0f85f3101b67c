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
  const host = u.searchParams.get('host') || decodeURIComponent(u.hostname) || process.env.PGHOST || 'localhost';
  const port = Number(u.searchParams.get('port') || u.port || process.env.PGPORT || 5432);
  const user = decodeURIComponent(u.username) || u.searchParams.get('user') || process.env.PGUSER || process.env.USER || 'postgres';
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || process.env.PGDATABASE || user;
  return { connectionString: u.toString(), host, port, database, user, schema, display: redactUrl(url) };
}
