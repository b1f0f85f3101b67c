// `navkernel serve` under load (issue 15 item 8): autocannon drives POST /v1/route on 127.0.0.1 with keep-alive
// against a serve process of its own (the compiled CLI) on a fresh SQLite ledger. Bounded in count and time.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../src/package-root.js';
import { listingTable, runsListingFigures } from './runs-listing.js';
import { table, type BenchSection } from './stats.js';

type ListingRow = { label: string; oldMs: number; newMs: number };

interface Load {
  label: string;
  connections: number;
  routesPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
}

/** Starts `navkernel serve` on any free port; resolves to its address and a stop function. */
async function startServe(ledger: string): Promise<{ base: string; stop: () => Promise<void> }> {
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--flows', path.join(packageRoot(), 'charters'), '--ledger', ledger], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    base,
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Routes `amount` requests over `connections` keep-alive connections; `runs` runs take turns. */
async function load(base: string, label: string, connections: number, amount: number, runs: number): Promise<Load> {
  const bodies = Array.from({ length: runs }, (_, i) => JSON.stringify({ run_id: `${label}-${i}`, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED' }));
  let n = 0;
  const result = await autocannon({
    url: `${base}/v1/route`,
    connections,
    pipelining: 1,
    amount,
    duration: 60,
    timeout: 10,
    headers: { 'content-type': 'application/json' },
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: bodies[n++ % runs] }) }],
  });
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  const ok = result['2xx'];
  return {
    label,
    connections,
    routesPerSecond: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    total: result.requests.total,
  };
}

/**
 * Opens `n` SSE subscribers on GET /v1/events (in this process; each only counts the bytes it receives, as a browser
 * tab would read them); `close()` ends them and returns the event frames they received in all.
 */
async function subscribers(base: string, n: number): Promise<{ close: () => number }> {
  const requests: http.ClientRequest[] = [];
  let frames = 0;
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = http.get(`${base}/v1/events`, { agent: false }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`GET /v1/events: ${res.statusCode}`));
            res.on('data', (chunk: Buffer) => {
              for (let i = chunk.indexOf('id: '); i >= 0; i = chunk.indexOf('id: ', i + 4)) frames++;
            });
            resolve();
          });
          req.on('error', () => {});
          requests.push(req);
        }),
    ),
  );
  return {
    close: () => {
      for (const r of requests) r.destroy();
      return frames;
    },
  };
}

export async function benchServe({ quick }: { quick: boolean }): Promise<BenchSection> {
  const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-bench-serve-'));
  const server = await startServe(path.join(dir, 'ledger.sqlite'));
  const amount = quick ? 1_500 : 30_000;
  const rows: Load[] = [];
  let sseFrames = 0;
  try {
    await load(server.base, 'warm', 8, quick ? 300 : 3_000, 64); // JIT and SQLite page cache
    rows.push(await load(server.base, 'c1', 1, Math.round(amount / 3), 64));
    rows.push(await load(server.base, 'c16', 16, amount, 256));
    const subs = await subscribers(server.base, 100);
    rows.push({ ...(await load(server.base, 'c16s', 16, amount, 256)), label: 'sse' });
    sseFrames = subs.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const [one, many, withSse] = rows as [Load, Load, Load];
  // The web UI's landing page and stats on a large ledger: the listing and the aggregates as the store computes them, against the former per-run code.
  const listing = await runsListingFigures(quick ? 2_000 : 20_000);
  const [firstPage, midPage, byStatus, byFlow, stats] = listing.rows as [ListingRow, ListingRow, ListingRow, ListingRow, ListingRow];
  const body = [
    `autocannon (in the bench process) → \`navkernel serve\` (a child process, compiled CLI) on 127.0.0.1, keep-alive, no pipelining, SQLite ledger (WAL, durability normal) in a temp folder; each request is a tier-1 route (\`build-step-1\` VERIFIED) of one of 64 or 256 runs in turn, validated, recorded (row, hash chain) and its response checked against its schema. Latency is autocannon's, per request, in ms (its resolution is 1 ms below 1 ms: read p50 as "under 1 ms").`,
    '',
    table(
      ['load', 'routes/s', 'p50 ms', 'p99 ms', 'errors', 'requests', 'goal'],
      rows.map((r) => [
        `${r.connections} connection${r.connections > 1 ? 's' : ''}${r === withSse ? ', 100 SSE subscribers' : ''}`,
        r.routesPerSecond,
        r.p50,
        r.p99,
        r.errors,
        r.total,
        r === many ? '≥ 10,000/s, p99 ≤ 5 ms' : '—',
      ]),
    ),
    '',
    `With 100 subscribers on \`GET /v1/events\` (plain HTTP clients in the bench process, each reading every frame), the same 16-connection load ran at ${(withSse.routesPerSecond / many.routesPerSecond).toFixed(2)}× the rate without them; the subscribers received ${sseFrames.toLocaleString('en-US')} event frames (${(sseFrames / 100).toLocaleString('en-US')} each; every committed route is one decision event).`,
    '',
    listingTable(listing),
  ].join('\n');
  return {
    title: 'HTTP service (`navkernel serve`)',
    body,
    figures: {
      serve_c1_routes_per_s: one.routesPerSecond,
      serve_c1_p50_ms: one.p50,
      serve_c1_p99_ms: one.p99,
      serve_c16_routes_per_s: many.routesPerSecond,
      serve_c16_p50_ms: many.p50,
      serve_c16_p99_ms: many.p99,
      serve_c16_sse100_routes_per_s: withSse.routesPerSecond,
      serve_c16_sse100_p99_ms: withSse.p99,
      serve_sse100_frames: sseFrames,
      serve_errors: one.errors + many.errors,
      runs_listing_runs: listing.runs,
      runs_first_page_before_ms: firstPage.oldMs,
      runs_first_page_ms: firstPage.newMs,
      runs_mid_page_before_ms: midPage.oldMs,
      runs_mid_page_ms: midPage.newMs,
      runs_by_status_before_ms: byStatus.oldMs,
      runs_by_status_ms: byStatus.newMs,
      runs_by_flow_before_ms: byFlow.oldMs,
      runs_by_flow_ms: byFlow.newMs,
      stats_before_ms: stats.oldMs,
      stats_ms: stats.newMs,
    },
  };
}
