// The batched append statement itself: per-run serialisation in the database, conflicts, no gap or duplicate.
import { createHash } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../src/ledger/chain.js';
import { PgLedgerSql } from '../../src/ledger/postgres/pg-sql.js';
import { openPostgresPool } from '../../src/ledger/postgres/pool.js';
import type { AppendWrite } from '../../src/ledger/sql.js';
import { DATABASE_URL, adminQuery, describePostgres, freshSchemaUrl, schemaOf } from '../support/postgres.js';

const schemas: string[] = [];
afterAll(async () => {
  if (DATABASE_URL) for (const s of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
});

async function open(url: string): Promise<PgLedgerSql> {
  const { pool } = await openPostgresPool(url, { poolSize: 4 });
  return new PgLedgerSql(pool);
}

function write(run_id: string, seq: number, prevHex: string, opts: { escalate?: boolean; calls?: number } = {}): AppendWrite {
  const hash = createHash('sha256').update(`${prevHex}/${run_id}/${seq}`).digest();
  return {
    route: {
      run_id, seq, flow: 'build', step: `s${seq}`, request_id: `req-${seq}`, decision: opts.escalate ? 'ESCALATE' : 'CONTINUE', next_step: null, tier: 1,
      rule: 'success', request: '{"a":"\\"quoted\\" ü"}', decision_json: '{"decision":"CONTINUE"}', state: `{"seq":${seq}}`, latency_us: 12.5, latency_unit: 'us',
      cost_usd: 0.001, llm_calls: opts.calls ?? 0, kernel_version: '0.1.0', flows_hash: 'f'.repeat(64), ts: '2026-01-01T00:00:00.000Z',
      prev_hash: Buffer.from(prevHex, 'hex'), hash, field_sums: 'x',
    },
    llmCalls: Array.from({ length: opts.calls ?? 0 }, (_, idx) => ({
      run_id, seq, idx, provider: 'scripted', model: 'm', purpose: 'route', attempt: 1, prompt_hash: 'p', raw_answer: idx === 0 ? null : '{}',
      outcome: 'ok', input_tokens: 10, output_tokens: 2, usd: 0.0005, latency_ms: 1.5, record: '{}',
    })),
    escalation: opts.escalate ? { escalation_id: `${run_id}:${seq}`, run_id, seq, flow: 'build', step: `s${seq}`, reason: 'why', opened_ts: 'ts' } : null,
    offroad: !!opts.escalate,
  };
}

describePostgres('the batched append statement', () => {
  it('records several runs in one statement and refuses a route that does not follow its head', async () => {
    const url = freshSchemaUrl('append');
    schemas.push(schemaOf(url));
    const sql = await open(url);
    const a1 = write('a', 1, GENESIS_HASH, { calls: 2 });
    const b1 = write('b', 1, GENESIS_HASH, { escalate: true });
    expect([...(await sql.appendBatch([b1, a1]))].sort()).toEqual(['a', 'b']);
    // a seq 1 again (a second writer), b seq 3 (a gap), c seq 2 (no such run), a seq 2 with a wrong prev hash
    expect(await sql.appendBatch([write('a', 1, GENESIS_HASH), write('b', 3, b1.route.hash.toString('hex')), write('c', 2, GENESIS_HASH)])).toEqual(new Set());
    expect(await sql.appendBatch([write('a', 2, GENESIS_HASH)])).toEqual(new Set());
    expect(await sql.appendBatch([write('a', 2, a1.route.hash.toString('hex'))])).toEqual(new Set(['a']));
    expect(await sql.routeCount()).toBe(3);
    expect((await sql.runLlmCalls('a')).map((c) => [c.seq, c.idx, c.raw_answer])).toEqual([[1, 0, null], [1, 1, '{}']]);
    expect((await sql.runEscalations('b')).map((e) => [e.escalation_id, e.status])).toEqual([['b:1', 'open']]);
    const run = await sql.run('a');
    expect(run).toMatchObject({ last_seq: 2, llm_calls: 2, offroad: 0 });
    expect(run!.cost_usd).toBe(0.001 + 0.001);
    const [row] = await sql.routesPage('a', 0, 1);
    expect(row).toMatchObject({ request: '{"a":"\\"quoted\\" ü"}', latency_us: 12.5, cost_usd: 0.001, prev_hash: GENESIS_HASH, hash: a1.route.hash.toString('hex') });
    expect(await sql.committed([{ run_id: 'a', seq: 2, hash: write('a', 2, a1.route.hash.toString('hex')).route.hash }, { run_id: 'a', seq: 3, hash: Buffer.alloc(32) }])).toEqual([true, false]);
    await sql.close();
  });

  it('serialises one run across four pools: every seq once, the chain unbroken', async () => {
    const url = freshSchemaUrl('append');
    schemas.push(schemaOf(url));
    const pools = await Promise.all([1, 2, 3, 4].map(() => open(url)));
    let conflicts = 0;
    const target = 200;
    await Promise.all(
      pools.map(async (sql) => {
        for (;;) {
          const head = await sql.head('r');
          const seq = (head?.seq ?? 0) + 1;
          if (seq > target) return;
          const ok = await sql.appendBatch([write('r', seq, head ? head.head_hash : GENESIS_HASH)]);
          if (!ok.has('r')) conflicts++;
        }
      }),
    );
    const rows = await pools[0]!.routesPage('r', 0, 1000);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: target }, (_, k) => k + 1));
    for (let k = 1; k < rows.length; k++) expect(rows[k]!.prev_hash).toBe(rows[k - 1]!.hash);
    expect(conflicts).toBeGreaterThan(0); // they did race
    await Promise.all(pools.map((p) => p.close()));
  });
});
