// Scenario C of `npm run crash`: PostgreSQL failover. A primary and a synchronous streaming standby
// (scripts/postgres-pair.ts); several kernel processes route through the multi-host URL; the primary is killed mid-load
// and the standby promoted; the kernels carry on (retrying a request, same request_id, while no server accepts writes).
// Then, on the new primary: every acknowledged decision is there with the same decision, no seq missing or twice, no
// request recorded twice, verify clean. One failover per round (a new pair each round).
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { PostgresLedger, verifyLedger } from '../../src/ledger/index.js';
import { startPostgresPair } from '../postgres-pair.js';
import { parseAck, startChild } from './harness.js';
import type { CrashFigures } from './scenarios.js';

export interface FailoverOptions {
  child: string;
  cwd: string;
  /** Failovers (rounds). */
  rounds: number;
  /** Kernel processes. */
  kernels?: number;
  /** Requests per run per kernel, runs per kernel. */
  perRun?: number;
  runs?: number;
}

export interface FailoverFigures extends CrashFigures {
  /** Routes acknowledged between the kill and the promotion (committed before the kill), summed over rounds. */
  ackedDuringFailover: number;
  /** Longest time from the promotion to the next acknowledged route, and from the kill to the promotion (ms). */
  maxResumeMs: number;
  maxPromoteMs: number;
}

export async function scenarioC(o: FailoverOptions): Promise<FailoverFigures> {
  const t0 = Date.now();
  const kernels = o.kernels ?? 3;
  const perRun = o.perRun ?? 60;
  const runs = o.runs ?? 3;
  const f: FailoverFigures = {
    scenario: 'C failover', kills: 0, killsBeforeFirstAck: 0, children: 0, runs: 0, routes: 0, acknowledged: 0, lost: 0, seqMissing: 0, seqDuplicate: 0,
    requestDuplicate: 0, referenceMismatches: null, verifyIssues: 0, strictIssueKinds: {}, jsonlLinesRepaired: 0, tornLinesRemoved: 0, replayDivergences: 0,
    childFailures: 0, errors: [], wallMs: 0, ok: false, ackedDuringFailover: 0, maxResumeMs: 0, maxPromoteMs: 0,
  };
  for (let round = 0; round < o.rounds; round++) {
    const pair = await startPostgresPair({ sync: true });
    try {
      const acks = new Map<string, { decision: unknown; at: number }>();
      const children = Array.from({ length: kernels }, (_, k) => startChild(o.child, ['steady', pair.url, `c${round}-k${k}`, String(runs), String(perRun)], { cwd: o.cwd }));
      f.children += children.length;
      for (const c of children) {
        c.onLine((line) => {
          const a = parseAck(line);
          if (a) acks.set(a.id, { decision: a.decision, at: Date.now() });
        });
      }
      const total = kernels * runs * perRun;
      while (acks.size < total / 3) await new Promise((r) => setTimeout(r, 10));
      const killedAt = Date.now();
      pair.killPrimary();
      f.kills++;
      await new Promise((r) => setTimeout(r, 300));
      pair.promoteStandby();
      const promotedAt = Date.now();
      const exits = await Promise.all(children.map((c) => c.exit));
      exits.forEach((e, i) => {
        if (e.code !== 0) {
          f.childFailures++;
          f.errors.push(`round ${round} kernel ${i}: exit ${e.code}: ${children[i]!.stderr.slice(0, 300)}`);
        }
      });
      f.ackedDuringFailover += [...acks.values()].filter((a) => a.at >= killedAt && a.at <= promotedAt).length;
      const after = [...acks.values()].filter((a) => a.at > promotedAt).map((a) => a.at);
      if (after.length) f.maxResumeMs = Math.max(f.maxResumeMs, Math.min(...after) - promotedAt);
      f.maxPromoteMs = Math.max(f.maxPromoteMs, promotedAt - killedAt);
      f.acknowledged += acks.size;
      // Check on the new primary.
      const c = new pg.Client({ connectionString: pair.standbyUrl });
      await c.connect();
      const rows = (await c.query<{ run_id: string; seq: number; request_id: string; decision_json: string }>('SELECT run_id, seq, request_id, decision_json FROM routes ORDER BY run_id, seq')).rows;
      await c.end();
      f.routes += rows.length;
      const byId = new Map<string, (typeof rows)[number]>();
      const seqs = new Map<string, number[]>();
      for (const r of rows) {
        if (byId.has(r.request_id)) f.requestDuplicate++;
        byId.set(r.request_id, r);
        let l = seqs.get(r.run_id);
        if (!l) seqs.set(r.run_id, (l = []));
        l.push(r.seq);
      }
      f.runs += seqs.size;
      for (const l of seqs.values()) {
        l.forEach((s, i) => {
          if (s !== i + 1) s < i + 1 ? f.seqDuplicate++ : f.seqMissing++;
        });
      }
      for (const [id, a] of acks) {
        const r = byId.get(id);
        if (!r || !isDeepStrictEqual(JSON.parse(r.decision_json), a.decision)) {
          f.lost++;
          if (f.errors.length < 10) f.errors.push(`round ${round}: acknowledged ${id} ${r ? 'recorded with another decision' : 'missing'} on the new primary`);
        }
      }
      const ledger = await PostgresLedger.open(pair.standbyUrl);
      const v = await verifyLedger(ledger, { repair: false });
      await ledger.close();
      f.verifyIssues += v.issues.length;
    } finally {
      pair.stop();
    }
  }
  f.wallMs = Date.now() - t0;
  f.ok = f.lost === 0 && f.seqMissing === 0 && f.seqDuplicate === 0 && f.requestDuplicate === 0 && f.verifyIssues === 0 && f.childFailures === 0;
  return f;
}
