import net from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { LedgerTooNewError, NotALedgerError } from '../../src/ledger/errors.js';
import { StoreUnavailableError } from '../../src/contracts/store-errors.js';
import { PostgresUnavailableError } from '../../src/ledger/postgres/errors.js';
import { NavkernelError } from '../../src/contracts/errors.js';
import { openPostgresPool } from '../../src/ledger/postgres/pool.js';
import { PG_SCHEMA_VERSION } from '../../src/ledger/postgres/schema.js';
import { parsePostgresUrl, redactUrl } from '../../src/ledger/postgres/url.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

const schemas: string[] = [];
function fresh(): string {
  const url = freshSchemaUrl('open');
  schemas.push(schemaOf(url));
  return url;
}
afterAll(async () => {
  if (DATABASE_URL) for (const s of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
});

it('parses and redacts ledger URLs without printing the password', () => {
  const t = parsePostgresUrl('postgresql://kern:s3cr%40t@db.example:6543/ledger?schema=nav&sslmode=require');
  expect(t).toMatchObject({ host: 'db.example', port: 6543, database: 'ledger', user: 'kern', schema: 'nav' });
  expect(t.connectionString).not.toContain('schema=');
  expect(t.display).not.toContain('s3cr');
  expect(redactUrl('postgres://u:pw@h/db?password=pw2')).not.toMatch(/pw2|:pw@/);
  expect(() => parsePostgresUrl('postgres://h/db?schema=Robert%27);DROP')).toThrow(/schema/);
});

describePostgres('opening a PostgreSQL ledger', () => {
  it('creates the schema on first open, then opens it unchanged', async () => {
    const url = fresh();
    const a = await openPostgresPool(url);
    expect(a.schema).toEqual({ found: 0, version: PG_SCHEMA_VERSION });
    await a.pool.end();
    const b = await openPostgresPool(url);
    expect(b.schema).toEqual({ found: PG_SCHEMA_VERSION, version: PG_SCHEMA_VERSION });
    await b.pool.end();
  });

  it('gives a schema-3 ledger (before the run listing index) index runs_created on open', async () => {
    const url = fresh();
    await (await openPostgresPool(url)).pool.end();
    const s = schemaOf(url);
    const indexdef = async () => (await adminQuery<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [s, 'runs_created']))[0]?.indexdef;
    expect(await indexdef()).toMatch(/\(created_ts, run_id\)/);
    await adminQuery(`DROP INDEX ${s}.runs_created; UPDATE ${s}.navkernel_meta SET schema_version = 3`);
    expect(await indexdef()).toBeUndefined();
    const again = await openPostgresPool(url);
    expect(again.schema).toEqual({ found: 3, version: PG_SCHEMA_VERSION });
    await again.pool.end();
    expect(PG_SCHEMA_VERSION).toBeGreaterThanOrEqual(6);
    expect(await indexdef()).toMatch(/\(created_ts, run_id\)/);
  });

  it('migrates once when several kernels open an empty schema at the same time', async () => {
    const url = fresh();
    const opened = await Promise.all([1, 2, 3, 4].map(() => openPostgresPool(url, { poolSize: 2 })));
    expect(opened.filter((o) => o.schema.found === 0).length).toBeGreaterThanOrEqual(1);
    const meta = await adminQuery('SELECT schema_version FROM navkernel_meta', [], schemaOf(url));
    expect(meta).toEqual([{ schema_version: PG_SCHEMA_VERSION }]);
    await Promise.all(opened.map((o) => o.pool.end()));
  });

  it('refuses a ledger written by a newer navkernel and leaves it untouched', async () => {
    const url = fresh();
    await (await openPostgresPool(url)).pool.end();
    const s = schemaOf(url);
    await adminQuery(`UPDATE ${s}.navkernel_meta SET schema_version = 99`);
    const before = await adminQuery(`SELECT * FROM ${s}.navkernel_meta`);
    const err = await openPostgresPool(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerTooNewError);
    expect((err as LedgerTooNewError).code).toBe('LEDGER_TOO_NEW');
    expect((err as Error).message).toMatch(/version 99/);
    expect(await adminQuery(`SELECT * FROM ${s}.navkernel_meta`)).toEqual(before);
  });

  it('refuses a schema that holds another application’s tables, creating nothing', async () => {
    const url = fresh();
    const s = schemaOf(url);
    await adminQuery(`CREATE SCHEMA ${s}; CREATE TABLE ${s}.customers (id int primary key)`);
    const err = await openPostgresPool(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotALedgerError);
    expect((err as NotALedgerError).code).toBe('NOT_A_LEDGER');
    const tables = await adminQuery<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = $1", [s]);
    expect(tables).toEqual([{ t: 'customers' }]);
  });

  it('refuses to create a ledger when opened for reading', async () => {
    const err = await openPostgresPool(fresh(), { create: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotALedgerError);
  });

  it('tells a role without write permission at open, and lets it open for reading', async () => {
    const url = fresh();
    await (await openPostgresPool(url)).pool.end();
    const s = schemaOf(url);
    const role = `ro_${s}`;
    await adminQuery(`CREATE ROLE ${role} LOGIN PASSWORD 'ro-secret'; GRANT USAGE ON SCHEMA ${s} TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA ${s} TO ${role}`);
    const u = new URL(url);
    u.username = role;
    u.password = 'ro-secret';
    const err = await openPostgresPool(u.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NavkernelError);
    expect((err as NavkernelError).code).toBe('LEDGER_NOT_WRITABLE');
    expect((err as Error).message).toMatch(/INSERT on routes/);
    expect((err as Error).message).not.toContain('ro-secret');
    const ro = await openPostgresPool(u.toString(), { readOnly: true });
    await ro.pool.end();
    await adminQuery(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
  });

  it('names host, port and cause when the server is unreachable, never the password', async () => {
    // A port nobody listens on: bind one, close it, then connect there.
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const err = await openPostgresPool(`postgres://kern:hunter2@127.0.0.1:${port}/ledger`, { connectTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    const e = err as PostgresUnavailableError;
    expect([e.host, e.port]).toEqual(['127.0.0.1', port]);
    expect(e.code).toBe('STORE_UNAVAILABLE');
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(e.message).not.toContain('hunter2');
    expect(JSON.stringify({ ...e, message: e.message })).not.toContain('hunter2');
  });

  it('names the cause when the password is wrong, without printing it', async () => {
    const u = new URL(DATABASE_URL!);
    const s = `pw_${Date.now()}`;
    await adminQuery(`CREATE ROLE ${s} LOGIN PASSWORD 'right-one'`);
    // The test server trusts every local connection; a role that does not exist is refused the same way.
    u.username = 'no_such_role';
    u.password = 'wrong-one';
    const err = await openPostgresPool(u.toString()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/no_such_role/);
    expect((err as Error).message).not.toContain('wrong-one');
    await adminQuery(`DROP ROLE ${s}`);
  });
});
