// `navkernel serve` under load (issue 15 item 8): autocannon drives POST /v1/route on 127.0.0.1 with keep-alive
// against a serve process of its own (the compiled CLI) on a fresh SQLite ledger. Bounded in count and time.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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
  /** CPU time (user + system, all threads) the server process spent per answered request, in µs (Linux). */
  cpuUsPerRoute: number | undefined;
}

interface Server {
  base: string;
  /** The server process's CPU time so far in ms (user + system, from /proc), or undefined where there is none. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** Starts `navkernel serve` on any free port; resolves to its address and a stop function. */
function startServe(ledger: string): Promise<Server> {
  const bin = path.join(packageRoot(), 'bin', 'navkernel.js');
  return startChild('serve', [bin, 'serve', '--port', '0', '--flows', path.join(packageRoot(), 'charters'), '--ledger', ledger]);
}

/** Starts the HTTP floor (bench/serve-floor-child.ts): the same Fastify answering a fixed decision. */
function startFloor(): Promise<Server> {
  return startChild('serve-floor', [path.join(packageRoot(), 'dist', 'bench', 'serve-floor-child.js')]);
}

async function startChild(name: string, args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`${name} exited ${code}: ${err}`)));
  });
  const stat = `/proc/${child.pid}/stat`;
  return {
    base,
    cpuMs: () => {
      if (!existsSync(stat)) return undefined;
      // Fields 14 and 15 (utime, stime) in clock ticks, after the command name in parentheses; USER_HZ is 100 on Linux.
      const text = readFileSync(stat, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) * 10;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Routes `amount` requests over `connections` keep-alive connections; `runs` runs take turns. The rate is the
 * requests answered over the time from the first request sent to the last answer received: autocannon's own
 * start/finish are taken at its 1-second sampling ticks, which rounds a 1.5 s run up to 2 s (30,000 routes at a
 * true 20,000/s read as 15,000/s).
 */
async function load(server: Server, label: string, connections: number, amount: number, runs: number): Promise<Load> {
  // Each run re-runs build-step-1 (restart) 5 times at most, then the next generation of runs takes over: every report
  // sends the run to build-step-2, whose max_visits is 6 (a 7th would escalate and the run's routes be refused, 409).
  const body = (k: number) => JSON.stringify({ run_id: `${label}-${k % runs}-${Math.floor(k / (runs * 5))}`, flow: 'build', step_completed: 'build-step-1', status: 'VERIFIED', restart: { reason: 'bench' } });
  let n = 0;
  let first: number | undefined;
  let last = 0;
  const cpu0 = server.cpuMs();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.base}/v1/route`,
        connections,
        pipelining: 1,
        amount,
        duration: 60,
        timeout: 10,
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              first ??= performance.now();
              return { ...req, body: body(n++) };
            },
          },
        ],
      },
      (err: unknown, r: autocannon.Result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(r)),
    );
    instance.on('response', () => {
      last = performance.now();
    });
  });
  const cpu1 = server.cpuMs();
  const seconds = (last - (first ?? last)) / 1000;
  const ok = result['2xx'];
  return {
    label,
    connections,
    routesPerSecond: seconds > 0 ? ok / seconds : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    total: result.requests.total,
    cpuUsPerRoute: cpu0 !== undefined && cpu1 !== undefined && result.requests.total > 0 ? ((cpu1 - cpu0) * 1000) / result.requests.total : undefined,
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
  const amount = quick ? 1_500 : 30_000;
  const rows: Load[] = [];
  let sseFrames = 0;
  // The floor first, then serve, each warmed up, in the same minute.
  const floor = await startFloor();
  try {
    await load(floor, 'warm', 8, quick ? 300 : 3_000, 64);
    rows.push({ ...(await load(floor, 'c16', 16, amount, 256)), label: 'floor' });
  } finally {
    await floor.stop();
  }
  const server = await startServe(path.join(dir, 'ledger.sqlite'));
  try {
    await load(server, 'warm', 8, quick ? 300 : 3_000, 64); // JIT and SQLite page cache
    rows.push(await load(server, 'c1', 1, Math.round(amount / 3), 64));
    rows.push(await load(server, 'c16', 16, amount, 256));
    const subs = await subscribers(server.base, 100);
    rows.push({ ...(await load(server, 'c16s', 16, amount, 256)), label: 'sse' });
    sseFrames = subs.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const [floorRow, one, many, withSse] = rows as [Load, Load, Load, Load];
  const shown = [one, many, withSse, floorRow];
  // The web UI's landing page and stats on a large ledger: the listing and the aggregates as the store computes them, against the former per-run code.
  const listing = await runsListingFigures(quick ? 2_000 : 20_000);
  const [firstPage, midPage, byStatus, byFlow, stats] = listing.rows as [ListingRow, ListingRow, ListingRow, ListingRow, ListingRow];
  const body = [
    `autocannon (in the bench process) → \`navkernel serve\` (a child process, compiled CLI) on 127.0.0.1, keep-alive, no pipelining, SQLite ledger (WAL, durability normal) in a temp folder; each request is a tier-1 route (\`build-step-1\` VERIFIED) of one of 64 or 256 runs in turn, validated, recorded (row, hash chain) and its response checked against its schema; each answer is sent after its route's group commit. Routes/s is the answered requests over the time from the first request sent to the last answer (not autocannon's start/finish, which fall on its 1-second ticks). Latency is autocannon's, per request, in ms (its resolution is 1 ms below 1 ms: read p50 as "under 1 ms"). Server CPU is the server process's user + system time (all its threads) per request, from /proc: it does not depend on how busy the rest of the machine is, unlike routes/s.`,
    '',
    `The floor: the same autocannon, in the same run, against the same Fastify configured as serve configures it, answering POST /v1/route with a fixed decision after parsing the body (no kernel, no ledger, no validation, no metrics; bench/serve-floor-child.ts). autocannon and the server share the machine's ${availableParallelism()} cores, so on a quiet machine serve cannot be faster than this floor, and on 2 cores the client's own CPU per request bounds both. When other work shares the cores, rates swing with it from one load to the next: compare the server CPU column.`,
    '',
    table(
      ['load', 'routes/s', 'p50 ms', 'p99 ms', 'server CPU µs/request', 'errors', 'requests', 'goal'],
      shown.map((r) => [
        r === floorRow
          ? '16 connections, HTTP floor (Fastify, fixed answer)'
          : `${r.connections} connection${r.connections > 1 ? 's' : ''}${r === withSse ? ', 100 SSE subscribers' : ''}`,
        r.routesPerSecond,
        r.p50,
        r.p99,
        r.cpuUsPerRoute ?? '—',
        r.errors,
        r.total,
        r === many ? '≥ 20,000/s, p99 ≤ 5 ms' : '—',
      ]),
    ),
    '',
    `16 connections: serve answered at ${((100 * many.routesPerSecond) / floorRow.routesPerSecond).toFixed(0)}% of the floor's rate${many.cpuUsPerRoute !== undefined && floorRow.cpuUsPerRoute !== undefined ? `, spending ${many.cpuUsPerRoute.toFixed(0)} µs of server CPU per route against the floor's ${floorRow.cpuUsPerRoute.toFixed(0)} µs per request` : ''}.`,
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
      serve_c16_cpu_us_per_route: many.cpuUsPerRoute ?? 0,
      serve_floor_c16_routes_per_s: floorRow.routesPerSecond,
      serve_floor_c16_p99_ms: floorRow.p99,
      serve_floor_cpu_us_per_request: floorRow.cpuUsPerRoute ?? 0,
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
